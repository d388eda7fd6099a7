#include "app/gui/state/teaching_stepper.hpp"

#include <cmath>
#include <random>

#include "core/memory/memory_op.hpp"

namespace proteus::gui {

nlohmann::json teaching_input(const TeachingExample& ex) {
  std::mt19937_64 rng(ex.seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto unit_rows = [&](int rows, int cols) {
    nlohmann::json m = nlohmann::json::array();
    for (int r = 0; r < rows; ++r) {
      std::vector<double> x(cols);
      double n = 0;
      for (auto& v : x) v = u(rng), n += v * v;
      n = std::sqrt(std::max(n, 1e-12));
      for (auto& v : x) v = std::round(v / n * 100) / 100;  // two decimals: readable in the panel
      m.push_back(x);
    }
    return m;
  };
  auto rows = [&](int r, int c) {
    nlohmann::json m = nlohmann::json::array();
    for (int i = 0; i < r; ++i) {
      std::vector<double> x(c);
      for (auto& v : x) v = std::round(u(rng) * 100) / 100;
      m.push_back(x);
    }
    return m;
  };
  nlohmann::json in;
  in["rule"] = ex.rule;
  in["E"] = ex.E;
  in["N"] = ex.N > 0 ? ex.N : ex.T;
  in["schedule"] = {{"type", ex.schedule}};
  in["q"] = unit_rows(ex.T, ex.d_k);
  in["k"] = unit_rows(ex.T, ex.d_k);
  in["v"] = rows(ex.T, ex.d_v);
  if (ex.rule != "swla") in["beta"] = std::vector<double>(ex.T, 0.8);
  if (ex.decay != 1.0) in["a"] = std::vector<double>(ex.T, ex.decay);
  if (ex.rule == "comba") in["p"] = in["k"];
  if (ex.rule == "titans") in["eta"] = std::vector<double>(ex.T, 0.5);
  if (ex.rule == "swla") in["gamma"] = std::vector<std::vector<double>>(ex.T, std::vector<double>{1.0, 1.0});
  return in;
}

std::vector<std::string> rule_equations(const std::string& rule) {
  std::vector<std::string> eq;
  if (rule == "linear") {
    eq = {"S_t = S + G_t * ((a-1) S + beta k v^T)"};
  } else if (rule == "delta") {
    eq = {"Sg = G_t * S", "S_t = S + G_t * ((a-1) S + beta k (v - a Sg^T k)^T)"};
  } else if (rule == "comba") {
    eq = {"Sg = G_t * S", "S_t = S + G_t * ((a-1) S + beta k (v - Sg^T p)^T)"};
  } else if (rule == "titans") {
    eq = {"Sg = G_t * S", "Z_t = Z + G_t * ((eta-1) Z - beta k (Sg^T k - v)^T)", "S_t = S + G_t * ((a-1) S + Z_t)"};
  } else if (rule == "swla") {
    eq = {"S_t = S + G_t * ((a-1) S + sum_j gamma_t[j] k_{t-j} v_{t-j}^T)"};
  }
  eq.push_back("o_t = (G_t * S_t)^T q_t");
  eq.push_back("S = S_{t-1};  * is elementwise;  G_t = 1 on the first k(t) blocks");
  eq.push_back("locked elements keep their value: (1 - G_t) * S_t = (1 - G_t) * S_{t-1}");
  return eq;
}

void TeachingStepper::set_example(const TeachingExample& ex) {
  auto in = teaching_input(ex);
  memory::parse_memory_op(in);  // throws InputError naming the field
  ex_ = ex;
  input_ = std::move(in);
  go_to(std::min(t_, ex_.T));
}

void TeachingStepper::go_to(int t) {
  if (input_.is_null()) set_example(ex_);
  t_ = std::max(0, std::min(t, ex_.T));
  step_ = compute(t_);
}

TeachingStep TeachingStepper::compute(int t) const {
  TeachingStep s;
  s.t = t;
  const size_t D = static_cast<size_t>(ex_.d_k) * ex_.d_v;
  s.state.assign(D, 0.0);
  s.mask.assign(D, 0);
  s.written.assign(D, 0);
  const auto schedule_at = [&](int tt) {
    return memory::Schedule::make(memory::ScheduleSpec{ex_.schedule, 2.0, {}}, int64_t(D), ex_.E,
                                  ex_.N > 0 ? ex_.N : ex_.T)
        .mask(std::max(1, tt));
  };
  if (t == 0) {
    s.mask = schedule_at(1);
    s.active_elements = 0;
    for (auto m : s.mask) s.active_elements += m;
    return s;
  }
  // The prefix of t tokens through the memory-op engine: its final state is S_t.
  auto run_prefix = [&](int n) {
    auto in = input_;
    for (const char* key : {"q", "k", "v", "beta", "a", "p", "eta", "gamma"})
      if (in.contains(key)) {
        auto& arr = in[key];
        arr.erase(arr.begin() + n, arr.end());
      }
    in["N"] = ex_.N > 0 ? ex_.N : ex_.T;  // the horizon stays the example's, not the prefix's
    return memory::run_memory_op(memory::parse_memory_op(in));
  };
  const auto out = run_prefix(t);
  s.active_blocks = out["active_blocks"].back().get<int>();
  s.active_elements = out["active_elements"].back().get<int>();
  for (int r = 0; r < ex_.d_k; ++r)
    for (int c = 0; c < ex_.d_v; ++c) s.state[size_t(r) * ex_.d_v + c] = out["S"][r][c].get<double>();
  s.read = out["o"].back().get<std::vector<double>>();
  s.mask = schedule_at(t);
  std::vector<double> prev(D, 0.0);
  if (t > 1) {
    const auto before = run_prefix(t - 1);
    for (int r = 0; r < ex_.d_k; ++r)
      for (int c = 0; c < ex_.d_v; ++c) prev[size_t(r) * ex_.d_v + c] = before["S"][r][c].get<double>();
  }
  for (size_t i = 0; i < D; ++i) s.written[i] = s.state[i] != prev[i];
  return s;
}

}  // namespace proteus::gui
