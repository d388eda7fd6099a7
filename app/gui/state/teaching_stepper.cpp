#include "app/gui/state/teaching_stepper.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "core/memory/block_axis.hpp"
#include "core/memory/memory_op.hpp"

namespace proteus::gui {
namespace {

std::vector<double> matrix_of(const nlohmann::json& m) {
  std::vector<double> out;
  for (const auto& row : m)
    for (const auto& x : row) out.push_back(x.get<double>());
  return out;
}

// The stream's first n tokens as their own memory-op input, horizon kept (without recall: the
// whole run's recall_error already holds every step's).
nlohmann::json prefix_input(const nlohmann::json& input, int n) {
  auto in = input;
  for (const char* key : {"q", "k", "v", "beta", "a", "p", "eta", "gamma"})
    if (in.contains(key)) {
      auto& arr = in[key];
      arr.erase(arr.begin() + n, arr.end());
    }
  in.erase("recall");
  return in;
}

}  // namespace

std::vector<std::string> rule_equations(memory::Rule rule) {
  const auto& update = memory::describe(rule).teach_update;
  std::vector<std::string> eq(update.begin(), update.end());
  eq.push_back("o_t = (G_t * S_t)^T q_t");
  eq.push_back("S = S_{t-1};  * is elementwise;  G_t = 1 on the first k(t) blocks");
  eq.push_back("locked elements keep their value: (1 - G_t) * S_t = (1 - G_t) * S_{t-1}");
  return eq;
}

int MemoryStep::recalled() const {
  return static_cast<int>(std::count_if(recall.begin(), recall.end(), [](double e) { return e < kRecalledBelow; }));
}

void TeachingStepper::set_example(const TeachingExample& ex) {
  auto in = teaching_input(ex);
  const auto gated = memory::run_memory_op(memory::parse_memory_op(in));  // throws InputError naming the field
  const auto ungated = memory::run_memory_op(memory::parse_memory_op(ungated_input(in)));
  ex_ = ex;
  input_ = std::move(in);
  gated_out_ = gated;
  ungated_out_ = ungated;
  go_to(std::min(t_, ex_.T));
}

void TeachingStepper::go_to(int t) {
  if (input_.is_null()) set_example(ex_);
  t_ = std::max(0, std::min(t, ex_.T));
  step_.t = t_;
  step_.gated = compute(input_, gated_out_, t_);
  step_.ungated = compute(ungated_input(input_), ungated_out_, t_);
}

MemoryStep TeachingStepper::compute(const nlohmann::json& input, const nlohmann::json& whole, int t) const {
  MemoryStep s;
  const size_t D = static_cast<size_t>(ex_.d_k) * ex_.d_v;
  s.state.assign(D, 0.0);
  s.written.assign(D, 0);
  const int E = input["E"].get<int>();
  // The mask at t (at t = 0: the one the first token will see), from the engine's schedule.
  const auto request = memory::parse_memory_op(input);
  const auto schedule = memory::Schedule::make(request.schedule, int64_t(D), E, ex_.horizon());
  const bool by_value = request.block_axis == memory::BlockAxis::value_rows;
  s.mask = schedule.mask(std::max(1, t));
  s.open_rows = by_value ? ex_.d_k : static_cast<int>(schedule.active_rows(std::max(1, t), ex_.d_v));
  s.open_values = by_value ? static_cast<int>(schedule.active_rows(std::max(1, t), ex_.d_k)) : ex_.d_v;
  if (by_value) {  // element (i, j) of S is element j d_k + i of M = S^T, the flattening value_rows blocks
    const int64_t end = schedule.active_elements(std::max(1, t));
    for (int i = 0; i < ex_.d_k; ++i)
      for (int j = 0; j < ex_.d_v; ++j) s.mask[size_t(i) * ex_.d_v + j] = memory::value_rows_open(end, i, j, ex_.d_k);
  }
  if (t == 0) {
    s.active_blocks = static_cast<int>(schedule.active_blocks(1));
    s.active_elements = 0;
    return s;
  }
  const auto out = memory::run_memory_op(memory::parse_memory_op(prefix_input(input, t)));
  s.active_blocks = out["active_blocks"].back().get<int>();
  s.active_elements = out["active_elements"].back().get<int>();
  s.state = matrix_of(out["S"]);
  s.read = out["o"].back().get<std::vector<double>>();
  s.recall = whole["recall_error"][t - 1].get<std::vector<double>>();
  std::vector<double> prev(D, 0.0);
  if (t > 1) prev = matrix_of(memory::run_memory_op(memory::parse_memory_op(prefix_input(input, t - 1)))["S"]);
  for (size_t i = 0; i < D; ++i) s.written[i] = s.state[i] != prev[i];
  return s;
}

std::string TeachingStepper::caption() const {
  const auto& s = step_;
  const auto& e = ex_;
  char buf[512];
  if (s.t == 0) {
    std::snprintf(buf, sizeof buf,
                  "Before the first token: both memories are empty. Each token t writes one association "
                  "k_t -> v_t (a random unit key, a random value) into both. At every step both are read with "
                  "the key of every association written so far; the bars show how far the read lands from "
                  "the value, ||(G_t * S_t)^T k_i - v_i|| / ||v_i|| (0 = recalled exactly, 1 = as if never "
                  "written).");
    return buf;
  }
  const int D = e.d_k * e.d_v;
  const int rows = s.gated.open_rows;
  std::string text;
  if (e.block_axis == memory::BlockAxis::value_rows)
    std::snprintf(buf, sizeof buf, "Token %d writes association %d. The gated memory has %d of %d blocks open (%d of %d elements, %d of %d value dimensions)",
                  s.t, s.t, s.gated.active_blocks, e.E, s.gated.active_elements, D, s.gated.open_values, e.d_v);
  else
    std::snprintf(buf, sizeof buf, "Token %d writes association %d. The gated memory has %d of %d blocks open (%d of %d elements, %d of %d key rows)",
                  s.t, s.t, s.gated.active_blocks, e.E, s.gated.active_elements, D, rows, e.d_k);
  text = buf;
  const auto& blocks = gated_out_["active_blocks"];
  if (s.t > 1 && blocks[s.t - 1].get<int>() > blocks[s.t - 2].get<int>()) text += ": a block opened at this token";
  text += ".";
  if (memory::renormalizes(e.normalize) && rows < e.d_k)
    text += " Its keys are re-normalised over the open rows (" + std::string(memory::key_normalize_name(e.normalize)) +
            "), so an early write has more strength.";
  std::snprintf(buf, sizeof buf, " Recalled (error < %.2f) of the %d written so far: ungated %d, gated %d.",
                kRecalledBelow, s.t, s.ungated.recalled(), s.gated.recalled());
  text += buf;
  return text;
}

}  // namespace proteus::gui
