// metrics.jsonl's record (metrics_record.hpp).
#include "core/runs/metrics_record.hpp"

#include <cmath>

namespace proteus::runs {
namespace {

using nlohmann::json;

// Each field's key and where it lives in the record: the one list both directions use.
struct Field {
  const char* key;
  double MetricsRecord::*value;
};
constexpr Field kFields[] = {{"loss", &MetricsRecord::loss},
                             {"lr", &MetricsRecord::lr},
                             {"grad_norm", &MetricsRecord::grad_norm},
                             {"tokens_per_s", &MetricsRecord::tokens_per_s},
                             {"elapsed_s", &MetricsRecord::elapsed_s},
                             {"val_bpb", &MetricsRecord::val_bpb}};

double finite_number(const json& line, const char* key) {
  const auto it = line.find(key);
  if (it == line.end() || !it->is_number()) return MetricsRecord::kAbsent;
  const double x = it->get<double>();
  return std::isfinite(x) ? x : MetricsRecord::kAbsent;
}

}  // namespace

json to_json(const MetricsRecord& r) {
  json j = {{"step", r.step}};
  for (const Field& f : kFields)
    if (!std::isnan(r.*f.value)) j[f.key] = r.*f.value;
  return j;
}

std::optional<MetricsRecord> metrics_record_from_json(const json& line) {
  if (!line.is_object()) return std::nullopt;
  const double step = finite_number(line, "step");
  if (std::isnan(step) || step != std::floor(step) || std::fabs(step) > 9007199254740992.0) return std::nullopt;
  MetricsRecord r;
  r.step = static_cast<int64_t>(step);
  for (const Field& f : kFields) r.*f.value = finite_number(line, f.key);
  return r;
}

}  // namespace proteus::runs
