// The run config as JSON: resolve() fills the derived defaults, and to_json() writes every field the
// schema (config_schema.hpp) names. Reading is config_reader.cpp's, the checks config_validation.cpp's.
#include "core/config/config_json.hpp"

#include <algorithm>
#include <vector>

#include "core/common/json_writer.hpp"
#include "core/config/config_schema.hpp"
#include "core/config/memory_regime.hpp"

namespace proteus::config {
namespace {

using nlohmann::json;

// The common walker (core/common/json_writer.hpp) writes every field visit() names; a role is not written.
class Writer : public common::JsonWriter {
 public:
  using JsonWriter::JsonWriter;

  template <class T>
  void field(const char* key, const T& value, FieldRole) { JsonWriter::field(key, value); }

  template <class Item, class F>
  void list(const char* key, std::vector<Item>& items, FieldRole, F&& body) { JsonWriter::list(key, items, body); }
};

}  // namespace

RunConfig resolve(const RunConfig& c) {
  RunConfig r = c;
  const int L = c.data.seq_len;
  r.model.d_hidden = resolved_d_hidden(c.model);
  r.model.mixer.N = resolved_mixer_horizon(c);
  r.model.param_schedule.N = resolved_param_horizon(c);
  if (r.eval.per_position.seq_len == 0) r.eval.per_position.seq_len = resolved_per_position_length(c);
  if (r.eval.niah.tasks.empty()) r.eval.niah.tasks = c.data.niah.tasks;
  if (r.eval.niah.lengths.empty()) r.eval.niah.lengths = {std::max(1, L / 2), L, 2 * L};
  if (r.eval.needle.forms.empty()) r.eval.needle.forms = c.data.needle.forms;
  if (r.eval.needle.lengths.empty()) r.eval.needle.lengths = {std::max(1, L / 2), L, 2 * L};
  if (r.eval.occupancy.seq_len == 0) r.eval.occupancy.seq_len = L;
  return r;
}

json to_json(const RunConfig& c, JsonForm form) {
  RunConfig copy = form == JsonForm::resolved ? resolve(c) : c;
  json out = json::object();
  Writer writer(out);
  schema::visit(writer, copy);
  if (form == JsonForm::resolved && copy.model.mixer.type == MixerType::memory) {
    const MemoryRegime r = memory_regime(copy);
    out["regime"] = {{"key_rows_per_block", r.key_rows_per_block},
                     {"tokens_per_key_dimension", r.tokens_per_key_dimension},
                     {"row_aligned", r.row_aligned}};
  }
  return out;
}

}  // namespace proteus::config
