#include "core/teaching/teaching_stream.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace proteus::teaching {

nlohmann::json teaching_input(const TeachingExample& ex) {
  std::mt19937_64 rng(ex.seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  nlohmann::json keys = nlohmann::json::array(), values = nlohmann::json::array();
  for (int t = 0; t < ex.T; ++t) {  // a random unit key: a normal vector, normalised
    std::vector<double> k(std::max(ex.d_k, 0));
    double n = 0;
    for (auto& x : k) x = normal(rng), n += x * x;
    for (auto& x : k) x /= std::sqrt(std::max(n, 1e-300));
    keys.push_back(k);
  }
  for (int t = 0; t < ex.T; ++t) {
    std::vector<double> v(std::max(ex.d_v, 0));
    for (auto& x : v) x = u(rng);
    values.push_back(v);
  }
  nlohmann::json in;
  in["comment"] = "proteus-lab Teach: seed " + std::to_string(ex.seed);
  in["rule"] = memory::rule_name(ex.rule);
  in["E"] = ex.E;
  in["N"] = ex.horizon();
  in["schedule"] = {{"type", memory::schedule_type_name(ex.schedule)}};
  in["normalize"] = memory::key_normalize_name(ex.normalize);
  if (ex.block_axis != memory::BlockAxis::key_rows) in["block_axis"] = memory::block_axis_name(ex.block_axis);
  in["q"] = keys;  // each token reads with its own key
  in["k"] = keys;
  in["v"] = values;
  if (memory::rule_uses_beta(ex.rule)) in["beta"] = std::vector<double>(ex.T, ex.beta);
  if (ex.decay != 1.0 && memory::rule_traits(ex.rule).per_key_retention) {
    // A row per step: key row i keeps decay^((d_k - i) / d_k), the first row fading fastest, so the
    // picture shows each row of S fading at its own rate.
    std::vector<double> row(std::max(ex.d_k, 0));
    for (int i = 0; i < ex.d_k; ++i) row[i] = std::pow(ex.decay, double(ex.d_k - i) / ex.d_k);
    in["a"] = std::vector<std::vector<double>>(ex.T, row);
  } else if (ex.decay != 1.0) {
    in["a"] = std::vector<double>(ex.T, ex.decay);
  }
  if (memory::rule_uses_p(ex.rule)) in["p"] = in["k"];
  if (memory::rule_uses_eta(ex.rule)) in["eta"] = std::vector<double>(ex.T, 0.5);
  if (memory::rule_uses_gamma(ex.rule)) in["gamma"] = std::vector<std::vector<double>>(ex.T, std::vector<double>{1.0, 1.0});
  in["recall"] = true;
  return in;
}

nlohmann::json ungated_input(const nlohmann::json& gated) {
  auto in = gated;
  in["E"] = 1;
  return in;
}

}  // namespace proteus::teaching
