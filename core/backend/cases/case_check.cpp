#include "core/backend/cases/case_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

#include "core/backend/ops/open_widths_rule.hpp"

namespace proteus::backend {
namespace {

std::string sci(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", x);
  return buf;
}

OutputCheck compare(const std::string& name, const CaseOutput& got, const CaseOutput& want, double max_nmse,
                    std::vector<std::string>& problems) {
  OutputCheck o;
  o.name = name;
  o.elements = want.values.size();
  const auto& g = got.values;
  const auto& w = want.values;
  double num = 0, den = 0;
  size_t first_nan = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    o.oracle_scale = std::max(o.oracle_scale, std::fabs(w[i]));
    if (std::isnan(g[i]) && !std::isnan(w[i])) {
      if (!o.nan++) first_nan = i;
      continue;
    }
    if (std::isinf(g[i]) || std::isinf(w[i])) {
      if (g[i] != w[i]) ++o.inf_mismatch;
      continue;
    }
    const double err = std::fabs(g[i] - w[i]);
    if (!want.masked.empty() && want.masked[i]) {
      ++o.masked;
      o.masked_max_error = std::max(o.masked_max_error, err);
      continue;
    }
    o.max_error = std::max(o.max_error, err);
    num += err * err;
    den += w[i] * w[i];
  }
  o.nmse = den > 0 ? num / den : num;
  if (o.nan) problems.push_back(name + ": " + std::to_string(o.nan) + " NaN (first at element " +
                                std::to_string(first_nan) + ")");
  if (o.inf_mismatch) problems.push_back(name + ": infinities differ from the oracle's at " +
                                         std::to_string(o.inf_mismatch) + " elements");
  if (o.masked_max_error != 0)
    problems.push_back(name + ": masked region differs from the oracle by up to " + sci(o.masked_max_error) +
                       " (it must match exactly)");
  if (!(o.nmse <= max_nmse))  // NaN fails too
    problems.push_back(name + ": normalised error " + sci(o.nmse) + " > " + sci(max_nmse) + ", max |error| " +
                       sci(o.max_error));
  return o;
}

}  // namespace

CaseCheck check_case(const OpCase& c, Backend<float>& be, Backend<double>& oracle) {
  CaseCheck r;
  r.name = c.name;
  r.op = c.op;
  std::string why;
  // A rule under open widths runs as the model runs it (OpenWidthsRule: the table, or the masks).
  const bool runs = c.op == Op::memory_rule ? OpenWidthsRule<float>::supported(be, c.shape, &why)
                                            : be.supports(c.op, c.shape, &why);
  if (!runs) {
    r.skipped = true;
    r.skip_reason = why.empty() ? "not supported" : why;
    return r;
  }
  CaseOutputs want, got;
  try {
    CaseBuffers<double> s(oracle);
    want = c.run_double(s);
    for (const auto& line : s.guard_damage()) r.problems.push_back("the float64 oracle: " + line);
  } catch (const std::exception& e) {
    r.problems.push_back(std::string("the float64 oracle threw: ") + e.what());
    return r;
  }
  try {
    CaseBuffers<float> s(be);
    got = c.run_float(s);
    for (const auto& line : s.guard_damage()) r.problems.push_back(line);
  } catch (const std::exception& e) {
    r.problems.push_back(std::string("threw: ") + e.what());
    return r;
  }
  for (const auto& [name, w] : want) {
    const auto it = got.find(name);
    if (it == got.end()) {
      r.problems.push_back(name + ": missing");
      continue;
    }
    if (it->second.values.size() != w.values.size()) {
      r.problems.push_back(name + ": " + std::to_string(it->second.values.size()) + " values, the oracle has " +
                           std::to_string(w.values.size()));
      continue;
    }
    r.outputs.push_back(compare(name, it->second, w, c.max_nmse, r.problems));
  }
  return r;
}

}  // namespace proteus::backend
