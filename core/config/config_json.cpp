// The config schema, walked once: visit() names every field of RunConfig in order, and the JSON
// writer, the checked reader and the list of paths are three visitors over it, so a field added
// to config.hpp and to visit() is written, read, typo-checked and overridable at once.
#include "core/config/config_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include "core/common/json_fields.hpp"
#include "core/common/json_writer.hpp"
#include "core/config/data_values.hpp"
#include "core/config/memory_regime.hpp"
#include "core/config/mixer_schedule.hpp"
#include "core/config/size_bounds.hpp"
#include "core/memory/gated_rule.hpp"
#include "core/memory/block_axis.hpp"
#include "core/memory/key_normalize.hpp"
#include "core/memory/rule_form.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::config {
namespace {

using common::format_number;
using common::indexed;
using common::join;
using common::quoted;
using common::read_int64;
using nlohmann::json;

// ---- The schema --------------------------------------------------------------------------------

template <class V>
void visit_schedule(V& v, memory::ScheduleSpec& s) {
  v.field("type", s.type);
  v.field("power", s.power);
  v.field("unlock", s.unlock);
}

template <class V>
void visit_model(V& v, ModelConfig& m) {
  v.field("vocab", m.vocab);
  v.field("d_model", m.d_model);
  v.field("layers", m.layers);
  v.field("d_hidden", m.d_hidden);
  v.field("norm_eps", m.norm_eps);
  v.field("init_std", m.init_std);
  v.object("mixer", [&] {
    MixerConfig& x = m.mixer;
    v.field("type", x.type);
    v.field("rule", x.rule);
    v.field("heads", x.heads);
    v.field("d_head", x.d_head);
    v.field("conv", x.conv);
    v.field("decay", x.decay);
    v.field("window", x.window);
    v.field("E", x.E);
    v.field("N", x.N);
    v.object("schedule", [&] { visit_schedule(v, x.schedule); });
    v.field("normalize", x.normalize);
    v.field("form", x.form);
    v.field("block_axis", x.block_axis);
    v.field("output_gate", x.output_gate);
  });
  v.object("mlp", [&] {
    v.list("chain", m.mlp.chain, [&](MlpBlockConfig& block) { v.field("every", block.every); });
  });
  v.object("param_schedule", [&] {
    ParamScheduleConfig& p = m.param_schedule;
    v.field("enabled", p.enabled);
    v.field("E", p.E);
    v.field("N", p.N);
    v.object("schedule", [&] { visit_schedule(v, p.schedule); });
  });
}

template <class V>
void visit_data(V& v, DataConfig& d) {
  v.field("seq_len", d.seq_len);
  v.field("batch", d.batch);
  v.field("tokenizer", d.tokenizer);
  v.field("vocab", d.vocab);
  v.field("tokenizer_hash", d.tokenizer_hash);
  v.object("text", [&] {
    v.field("path", d.text.path);
    v.field("holdout", d.text.holdout);
  });
  v.list("mix", d.mix, [&](MixItem& item) {
    v.field("task", item.task);
    v.field("weight", item.weight);
  });
  v.object("niah", [&] {
    v.field("tasks", d.niah.tasks);
    v.field("question", d.niah.question);
    v.field("answer_weight", d.niah.answer_weight);
  });
  v.object("mqar", [&] {
    v.field("vocab", d.mqar.vocab);
    v.field("pairs", d.mqar.pairs);
    v.field("train_pairs", d.mqar.train_pairs);
    v.field("alpha", d.mqar.alpha);
    v.field("layout", d.mqar.layout);
  });
  v.object("needle", [&] {
    v.field("vocab", d.needle.vocab);
    v.field("forms", d.needle.forms);
    v.field("distractors", d.needle.distractors);
    v.field("answer_weight", d.needle.answer_weight);
  });
}

template <class V>
void visit_train(V& v, TrainConfig& t) {
  v.field("steps", t.steps);
  v.field("lr", t.lr);
  v.field("min_lr", t.min_lr);
  v.field("warmup", t.warmup);
  v.field("weight_decay", t.weight_decay);
  v.field("beta1", t.beta1);
  v.field("beta2", t.beta2);
  v.field("eps", t.eps);
  v.field("grad_clip", t.grad_clip);
  v.field("log_every", t.log_every);
  v.field("eval_every", t.eval_every);
  v.field("val_batches", t.val_batches);
  v.field("checkpoint_every", t.checkpoint_every);
}

template <class V>
void visit_eval(V& v, EvalConfig& e) {
  v.object("per_position", [&] {
    v.field("enabled", e.per_position.enabled);
    v.field("seq_len", e.per_position.seq_len);
    v.field("sequences", e.per_position.sequences);
    v.field("buckets", e.per_position.buckets);
  });
  v.object("niah", [&] {
    v.field("enabled", e.niah.enabled);
    v.field("tasks", e.niah.tasks);
    v.field("lengths", e.niah.lengths);
    v.field("depths", e.niah.depths);
    v.field("samples", e.niah.samples);
    v.field("max_new_bytes", e.niah.max_new_bytes);
  });
  v.object("needle", [&] {
    v.field("enabled", e.needle.enabled);
    v.field("forms", e.needle.forms);
    v.field("lengths", e.needle.lengths);
    v.field("depths", e.needle.depths);
    v.field("samples", e.needle.samples);
  });
  v.object("mqar", [&] {
    v.field("enabled", e.mqar.enabled);
    v.field("samples", e.mqar.samples);
  });
  v.object("occupancy", [&] {
    v.field("enabled", e.occupancy.enabled);
    v.field("blocks", e.occupancy.blocks);
    v.field("seq_len", e.occupancy.seq_len);
  });
}

template <class V>
void visit(V& v, RunConfig& c) {
  v.field("name", c.name);
  v.field("seed", c.seed);
  v.field("group", c.group);
  v.field("device", c.device);
  v.field("threads", c.threads);
  v.field("runs_dir", c.runs_dir);
  v.object("model", [&] { visit_model(v, c.model); });
  v.object("data", [&] { visit_data(v, c.data); });
  v.object("train", [&] { visit_train(v, c.train); });
  v.object("eval", [&] { visit_eval(v, c.eval); });
}

// ---- Writing -----------------------------------------------------------------------------------

// The common walker (core/common/json_writer.hpp) writes every field visit() names.
using Writer = common::JsonWriter;

// ---- Reading -----------------------------------------------------------------------------------

// "model.mixer.rule: unknown value "delat" (did you mean delta?); expected one of linear, delta, ...".
[[noreturn]] void refuse_unknown_value(const std::string& field, const std::string& value,
                                       const std::vector<std::string>& allowed) {
  std::string reason = "unknown value " + quoted(value);
  const std::string best = closest_name(value, allowed);
  if (!best.empty()) reason += " (did you mean " + best + "?)";
  throw InputError(field, reason + "; expected one of " + join(allowed));
}

void read_value(const json& j, const std::string& field, std::string& out) {
  if (!j.is_string()) throw InputError(field, "expected a string, got " + describe_json(j));
  out = j.get<std::string>();
}

void read_value(const json& j, const std::string& field, bool& out) {
  if (!j.is_boolean()) throw InputError(field, "expected true or false, got " + describe_json(j));
  out = j.get<bool>();
}

void read_value(const json& j, const std::string& field, double& out) { out = common::read_number(j, field); }

// "eval.niah.lengths[2]" -> "eval.niah.lengths": the path a size bound is listed under.
std::string bound_path(const std::string& field) {
  std::string path;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '[') i = field.find(']', i);
    else path += field[i];
    if (i == std::string::npos) break;
  }
  return path;
}

void read_value(const json& j, const std::string& field, int& out) {
  const int64_t x = read_int64(j, field);
  check_size_bound(bound_path(field), x, field);  // the bound in the message, before any int cast
  if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max())
    throw InputError(field, "is out of range, got " + std::to_string(x));
  out = static_cast<int>(x);
}

void read_value(const json& j, const std::string& field, int64_t& out) { out = read_int64(j, field); }

// The one place a choice's name becomes its value: anything not in its name table is refused here,
// naming the field and the names it takes.
template <class E>
  requires common::is_named_choice_v<E>
void read_value(const json& j, const std::string& field, E& out) {
  std::string name;
  read_value(j, field, name);
  const auto value = common::choice_from_name<E>(name);
  if (!value) refuse_unknown_value(field, name, common::choice_names<E>());
  out = *value;
}

void read_value(const json& j, const std::string& field, uint64_t& out) {
  if (j.is_number_unsigned()) {
    out = j.get<uint64_t>();
    return;
  }
  const int64_t x = read_int64(j, field);
  if (x < 0) throw InputError(field, "expected a non-negative integer, got " + std::to_string(x));
  out = static_cast<uint64_t>(x);
}

template <class T>
void read_value(const json& j, const std::string& field, std::vector<T>& out) {
  if (!j.is_array()) throw InputError(field, "expected an array, got " + describe_json(j));
  std::vector<T> values(j.size());
  for (size_t i = 0; i < j.size(); ++i) read_value(j[i], indexed(field, i), values[i]);
  out = std::move(values);
}

// Reads the fields visit() names from the current object; anything else there is refused.
class Reader {
 public:
  explicit Reader(const json& root) : cur_(&root) {}

  template <class T>
  void field(const char* key, T& value) {
    keys_.emplace_back(key);
    if (const auto it = cur_->find(key); it != cur_->end()) read_value(*it, at(key), value);
  }

  template <class F>
  void object(const char* key, F&& body) {
    keys_.emplace_back(key);
    const auto it = cur_->find(key);
    if (it == cur_->end()) return;
    if (!it->is_object()) throw InputError(at(key), "expected an object, got " + describe_json(*it));
    enter(*it, at(key), body);
  }

  template <class Item, class F>
  void list(const char* key, std::vector<Item>& items, F&& body) {
    keys_.emplace_back(key);
    const auto it = cur_->find(key);
    if (it == cur_->end()) return;
    const std::string path = at(key);
    if (!it->is_array()) throw InputError(path, "expected an array of objects, got " + describe_json(*it));
    std::vector<Item> read;
    for (size_t i = 0; i < it->size(); ++i) {
      const json& element = (*it)[i];
      if (!element.is_object()) throw InputError(indexed(path, i), "expected an object, got " + describe_json(element));
      Item item{};  // fields the element leaves out keep the struct's defaults
      enter(element, indexed(path, i), [&] { body(item); });
      read.push_back(std::move(item));
    }
    items = std::move(read);
  }

  // The root object: same as a nested one, plus the keys the root may hold but the schema does not.
  template <class F>
  void root(F&& body) {
    body();
    check_keys();
  }

 private:
  std::string at(const char* key) const { return path_.empty() ? std::string(key) : path_ + "." + key; }

  template <class F>
  void enter(const json& object, const std::string& path, F&& body) {
    const json* saved_cur = cur_;
    std::string saved_path = std::move(path_);
    std::vector<std::string> saved_keys = std::move(keys_);
    cur_ = &object;
    path_ = path;
    keys_.clear();
    body();
    check_keys();
    cur_ = saved_cur;
    path_ = std::move(saved_path);
    keys_ = std::move(saved_keys);
  }

  void check_keys() const {
    for (const auto& [key, value] : cur_->items()) {
      if (std::find(keys_.begin(), keys_.end(), key) != keys_.end()) continue;
      if (path_.empty()) {
        if (key == "comment") {
          if (!common::is_text(value))
            throw InputError("comment", "expected a string or an array of strings, got " + describe_json(value));
          continue;
        }
        if (key == "regime" && value.is_object()) continue;  // derived from the fields (memory_regime.hpp)
        if (key == "parent" || key == "variants" || key == "sweep")
          throw InputError(key, "belongs to an experiment file: load it with the experiment loader, which "
                                "expands it into runs");
      }
      const std::string shown = common::clipped(key);  // a 50 MB key is not echoed whole
      throw InputError(path_.empty() ? shown : path_ + "." + shown, unknown_key_reason(key, keys_));
    }
  }

  const json* cur_;
  std::string path_;
  std::vector<std::string> keys_;
};

// ---- Walking paths -----------------------------------------------------------------------------

// Calls leaf(dotted path, value) for every field in schema order; a list (data.mix) is one leaf.
// Listing the paths and checking the size bounds are two such walks.
template <class Leaf>
class PathWalker {
 public:
  explicit PathWalker(Leaf leaf) : leaf_(std::move(leaf)) {}

  template <class T>
  void field(const char* key, T& value) { leaf_(at(key), value); }

  template <class F>
  void object(const char* key, F&& body) {
    const std::string saved = prefix_;
    prefix_ = at(key);
    body();
    prefix_ = saved;
  }

  template <class Item, class F>
  void list(const char* key, std::vector<Item>& items, F&&) { leaf_(at(key), items); }

 private:
  std::string at(const char* key) const { return prefix_.empty() ? std::string(key) : prefix_ + "." + key; }
  Leaf leaf_;
  std::string prefix_;
};

// ---- Validation --------------------------------------------------------------------------------

// Checks every integer field that size_bounds() lists, walking the schema so none is missed.
void check_size_bounds(const RunConfig& c) {
  RunConfig copy = c;  // visit() takes a mutable config; the walk only reads
  PathWalker walker([](const std::string& path, const auto& value) {
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<T, int>) {
      check_size_bound(path, value);
    } else if constexpr (std::is_same_v<T, std::vector<int>>) {
      for (size_t i = 0; i < value.size(); ++i) check_size_bound(path, value[i], indexed(path, i));
    }
  });
  visit(walker, copy);
}

std::string with_commas(int64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// One (batch, length) shape the model runs at: training, or one of the evaluations. A size that
// grows with the tokens of a batch is blamed on `tokens_field`, one that grows with the length
// alone (attention's T x T, the memory's states over T) on `length_field`.
struct Shape {
  std::string tokens_field;
  std::string length_field;
  std::string what;  // "data.batch x data.seq_len"
  int64_t B, T;
};

// Sizes computed from several fields, in 64 bits and saturating, so nothing wraps: the parameter
// count, and per shape the tokens of one batch and the largest buffer (logits, MLP hidden units,
// projections, attention probabilities, one head's memory state over the sequence).
void check_derived_sizes(const RunConfig& c) {
  const ModelConfig& m = c.model;
  const MixerConfig& x = m.mixer;
  const int64_t V = m.vocab, C = m.d_model, L = m.layers, F = resolved_d_hidden(m), H = x.heads, dh = x.d_head;
  const int64_t HD = saturating_product({H, dh});
  const int64_t per_layer = saturating_product({4, C, HD}) +
                            saturating_product({3, C, F, std::max<int64_t>(1, static_cast<int64_t>(m.mlp.chain.size()))}) +
                            saturating_product({3, HD, std::max<int64_t>(x.conv, 1)}) + saturating_product({C, H, x.window + 4});
  const int64_t params = saturating_product({V, C}) + saturating_product({L, per_layer});
  if (params > kMaxParameters || params < 0)
    throw InputError("model", "has about " + with_commas(params) + " parameters (model.vocab x model.d_model + " +
                                  "model.layers x the layer's), more than the limit of " + with_commas(kMaxParameters) +
                                  "; lower model.vocab, model.d_model, model.d_hidden, model.layers or the mixer's sizes");

  const auto& e = c.eval;
  const int64_t seq = c.data.seq_len, batch = c.data.batch;
  std::vector<Shape> shapes = {{"data.batch", "data.seq_len", "data.batch x data.seq_len", batch, seq}};
  if (e.per_position.enabled)
    shapes.push_back({"eval.per_position.seq_len", "eval.per_position.seq_len", "data.batch x eval.per_position.seq_len",
                      batch, resolved_per_position_length(c)});
  if (e.niah.enabled)
    for (size_t i = 0; i < e.niah.lengths.size(); ++i)
      shapes.push_back({indexed("eval.niah.lengths", i), indexed("eval.niah.lengths", i),
                        indexed("eval.niah.lengths", i), 1, e.niah.lengths[i]});
  if (e.needle.enabled)
    for (size_t i = 0; i < e.needle.lengths.size(); ++i)
      shapes.push_back({indexed("eval.needle.lengths", i), indexed("eval.needle.lengths", i),
                        indexed("eval.needle.lengths", i), 1, e.needle.lengths[i]});
  if (e.occupancy.enabled)
    shapes.push_back({"eval.occupancy.seq_len", "eval.occupancy.seq_len", "eval.occupancy.seq_len", 1,
                      e.occupancy.seq_len > 0 ? e.occupancy.seq_len : seq});
  const int64_t width = std::max({V, F, C, HD, saturating_product({H, x.window})});
  for (const Shape& s : shapes) {
    const int64_t tokens = saturating_product({s.B, s.T});
    if (tokens > kMaxTokensPerBatch)
      throw InputError(s.tokens_field, s.what + " = " + with_commas(tokens) + " tokens in one batch, more than the limit of " +
                                           with_commas(kMaxTokensPerBatch));
    const int64_t activations = saturating_product({tokens, width});
    if (activations > kMaxBufferElements)
      throw InputError(s.tokens_field, "with " + s.what + ", one buffer would hold " + with_commas(activations) +
                                           " numbers (tokens x the widest layer, " + with_commas(width) +
                                           "), more than the limit of " + with_commas(kMaxBufferElements));
    const bool attention = x.type == MixerType::attention;
    const int64_t mixer = attention ? saturating_product({s.B, H, s.T, s.T}) : saturating_product({s.T + 1, dh, dh});
    if (mixer > kMaxBufferElements)
      throw InputError(s.length_field, "with " + s.what + ", one buffer would hold " + with_commas(mixer) + " numbers (" +
                                           (attention ? "attention probabilities: batch x heads x length^2"
                                                      : "one head's memory states over the sequence: (length + 1) x d_head^2") +
                                           "), more than the limit of " + with_commas(kMaxBufferElements));
  }
}

void in_int_range(const std::string& field, int64_t value, int64_t lo, int64_t hi, const std::string& hi_text) {
  if (value < lo || value > hi)
    throw InputError(field, "must be in [" + std::to_string(lo) + ", " + hi_text + "], got " + std::to_string(value));
}

void positive(const std::string& field, double value) {
  if (!(value > 0.0)) throw InputError(field, "must be > 0, got " + format_number(value));
}

void non_negative(const std::string& field, double value) {
  if (!(value >= 0.0)) throw InputError(field, "must be >= 0, got " + format_number(value));
}

// Whether 0 itself is allowed: [0, 1) for the Adam betas, (0, 1) for the holdout fraction.
enum class Zero { allowed, excluded };

void in_unit_range(const std::string& field, double value, Zero zero, const std::string& range) {
  const bool below = zero == Zero::excluded ? !(value > 0.0) : !(value >= 0.0);
  if (below || !(value < 1.0)) throw InputError(field, "must be in " + range + ", got " + format_number(value));
}

void one_of(const std::string& field, const std::string& value, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) refuse_unknown_value(field, value, allowed);
}

void check_name(const std::string& field, const std::string& name) {
  // The name becomes a directory under runs_dir, so it must be one plain path component.
  const bool control = std::any_of(name.begin(), name.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20; });
  if (name.empty() || name.front() == '.' || name.find('/') != std::string::npos ||
      name.find('\\') != std::string::npos || control || name.size() > 200)
    throw InputError(field, "must be a plain directory name (1 to 200 characters, no '/', '\\' or control "
                            "characters, not starting with '.'), got " + quoted(name));
}

// `make` builds the schedule (schedule_from_config or param_schedule_from_config), once to check it.
template <class Make>
memory::Schedule check_schedule(const std::string& field, Make make) {
  try {
    return make();
  } catch (const InputError& e) {
    throw e.under(field);
  }
}

// The output gate is the memory mixer's (the reader has already refused any name outside a table).
void check_output_gate(const MixerConfig& x) {
  if (x.type == MixerType::attention && x.output_gate != OutputGate::none)
    throw InputError("model.mixer.output_gate", "gates the memory mixer's read; the attention mixer takes none, got " +
                                                    std::string(common::choice_name(x.output_gate)));
}

// What each block axis asks of E and of the rest of the mixer (math.md section 8): whole value
// dimensions (key rows of the layer) per block, and keys left whole (their normalisation untouched).
void check_block_axis(const MixerConfig& x) {
  const memory::BlockAxis axis = x.block_axis;
  if (axis == memory::BlockAxis::key_rows) return;
  const std::string E = std::to_string(x.E);
  if (axis == memory::BlockAxis::value_rows && x.d_head % x.E != 0)
    throw InputError("model.mixer.E", "block_axis value_rows needs E to divide d_v = d_head = " +
                                          std::to_string(x.d_head) + " (d_v / E value dimensions per block), got E = " + E);
  const int64_t rows = static_cast<int64_t>(x.heads) * x.d_head;
  if (axis == memory::BlockAxis::layer && rows % x.E != 0)
    throw InputError("model.mixer.E", "block_axis layer needs E to divide heads * d_head = " + std::to_string(x.heads) +
                                          " * " + std::to_string(x.d_head) + " = " + std::to_string(rows) +
                                          " (key rows of the layer), got E = " + E);
  if (x.normalize != memory::KeyNormalize::normalize_then_mask)
    throw InputError("model.mixer.normalize",
                     "block_axis " + std::string(memory::block_axis_name(axis)) + " takes normalize_then_mask, got " +
                         std::string(memory::key_normalize_name(x.normalize)) +
                         (axis == memory::BlockAxis::value_rows
                              ? " (value_rows leaves the keys whole: there are no open key rows to re-normalise over)"
                              : " (re-normalising over each head's own open key rows, none for a locked head, is not "
                                "built; key_rows takes every normalize)"));
}

// model.mlp.chain (math.md section 8, Hope-Attention): 1 to kMaxMlpChain blocks, each updated every
// `every` steps in [1, kMaxMlpEvery], the first every step (C_1 = 1).
void check_mlp_chain(const MlpConfig& mlp) {
  const auto& chain = mlp.chain;
  if (chain.empty())
    throw InputError("model.mlp.chain", "must hold at least one block, e.g. [{\"every\": 1}] (the one-MLP model)");
  if (chain.size() > static_cast<size_t>(kMaxMlpChain))
    throw InputError("model.mlp.chain", "holds " + std::to_string(chain.size()) + " blocks, more than the limit of " +
                                            std::to_string(kMaxMlpChain));
  for (size_t i = 0; i < chain.size(); ++i)
    in_int_range(indexed("model.mlp.chain", i) + ".every", chain[i].every, 1, kMaxMlpEvery,
                 std::to_string(kMaxMlpEvery));
  if (chain[0].every != 1)
    throw InputError("model.mlp.chain[0].every", "must be 1: the first block is updated every step (C_1 = 1), got " +
                                                     std::to_string(chain[0].every));
}

// data.tokenizer and its fields (math.md section 8). A synthetic task keeps its own ids (MQAR's and
// the needle's vocabularies), so bpe is refused where the mix draws one; NIAH is text, tokenised.
void check_tokenizer(const RunConfig& c) {
  const DataConfig& d = c.data;
  if (d.tokenizer == Tokenizer::bytes) {
    if (d.vocab != 0)
      throw InputError("data.vocab", "applies to data.tokenizer bpe only (bytes are 256 ids), got " + std::to_string(d.vocab));
    if (!d.tokenizer_hash.empty())
      throw InputError("data.tokenizer_hash", "applies to data.tokenizer bpe only, got " + quoted(d.tokenizer_hash));
    return;
  }
  if (d.vocab < 260)
    throw InputError("data.vocab", "must be at least 260 with data.tokenizer bpe (256 byte pieces, <unk> and pieces "
                                   "learnt from the text), got " + std::to_string(d.vocab));
  if (c.model.vocab != d.vocab)
    throw InputError("model.vocab", "must equal data.vocab = " + std::to_string(d.vocab) +
                                        " with data.tokenizer bpe (leave model.vocab out: it follows data.vocab), got " +
                                        std::to_string(c.model.vocab));
  for (const auto& item : d.mix) {
    if (item.weight <= 0 || item.task == "text" || item.task == "niah") continue;
    throw InputError("data.tokenizer", "bpe tokenises text (and NIAH's), but the mix draws " + item.task +
                                           ": it has its own vocabulary (data." + item.task +
                                           ".vocab); use data.tokenizer bytes for this mix");
  }
  if (c.eval.mqar.enabled)
    throw InputError("data.tokenizer", "bpe tokenises text only, but eval.mqar is enabled: MQAR has its own vocabulary "
                                       "(data.mqar.vocab); disable it or use data.tokenizer bytes");
}

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
  visit(writer, copy);
  if (form == JsonForm::resolved && copy.model.mixer.type == MixerType::memory) {
    const MemoryRegime r = memory_regime(copy);
    out["regime"] = {{"key_rows_per_block", r.key_rows_per_block},
                     {"tokens_per_key_dimension", r.tokens_per_key_dimension},
                     {"row_aligned", r.row_aligned}};
  }
  return out;
}

RunConfig read_run_config(const json& j) {
  if (!j.is_object()) throw InputError("config", "expected a JSON object, got " + describe_json(j));
  RunConfig c;
  Reader reader(j);
  reader.root([&] { visit(reader, c); });
  // With bpe, data.vocab is the one fact: model.vocab follows it unless the file gives it too (then
  // validate() asks that the two agree).
  const bool model_vocab_given = j.contains("model") && j["model"].is_object() && j["model"].contains("vocab");
  if (c.data.tokenizer == Tokenizer::bpe && !model_vocab_given) c.model.vocab = c.data.vocab;
  return c;
}

RunConfig parse_run_config(const json& j) {
  RunConfig c = read_run_config(j);
  validate(c);
  return c;
}

std::vector<std::string> config_paths() {
  std::vector<std::string> paths;
  RunConfig c;
  PathWalker lister([&](const std::string& path, const auto&) { paths.push_back(path); });
  visit(lister, c);
  return paths;
}

void validate(const RunConfig& c) {
  check_name("name", c.name);
  if (!c.group.empty()) check_name("group", c.group);
  one_of("device", c.device, device_names());
  if (c.runs_dir.empty()) throw InputError("runs_dir", "must name a directory, got \"\"");
  // Every size-like field against its bound first: everything below is computed from them.
  check_size_bounds(c);

  // Model sizes first: the schedules below are built from them.
  const ModelConfig& m = c.model;
  positive("model.norm_eps", m.norm_eps);
  positive("model.init_std", m.init_std);
  const MixerConfig& x = m.mixer;
  check_output_gate(x);
  const int64_t D = mixer_state_size(x);
  in_int_range("model.mixer.E", x.E, 1, D, "D = d_head^2 = " + std::to_string(D));
  if (x.type == MixerType::memory) check_block_axis(x);
  check_mlp_chain(m.mlp);
  const ParamScheduleConfig& p = m.param_schedule;
  const int64_t F = resolved_d_hidden(m);
  in_int_range("model.param_schedule.E", p.E, 1, F, "d_hidden = " + std::to_string(F));

  const DataConfig& d = c.data;
  if (d.text.path.empty()) throw InputError("data.text.path", "must name a text file or a folder, got \"\"");
  in_unit_range("data.text.holdout", d.text.holdout, Zero::excluded, "(0, 1)");
  if (d.mix.empty()) throw InputError("data.mix", "must hold at least one task, e.g. [{\"task\": \"text\"}]");
  double total_weight = 0.0;
  for (size_t i = 0; i < d.mix.size(); ++i) {
    one_of(indexed("data.mix", i) + ".task", d.mix[i].task, mix_task_names());
    non_negative(indexed("data.mix", i) + ".weight", d.mix[i].weight);
    total_weight += d.mix[i].weight;
  }
  if (!(total_weight > 0.0)) throw InputError("data.mix", "needs at least one task with weight > 0");
  if (d.niah.tasks.empty())
    throw InputError("data.niah.tasks", "must hold at least one task (" + join(niah_task_names()) + ")");
  for (size_t i = 0; i < d.niah.tasks.size(); ++i) one_of(indexed("data.niah.tasks", i), d.niah.tasks[i], niah_task_names());
  one_of("data.niah.question", d.niah.question, niah_question_styles());
  non_negative("data.niah.answer_weight", d.niah.answer_weight);
  check_tokenizer(c);
  // The model's vocabulary must cover every token the data can hold.
  bool bytes = false, mqar = c.eval.mqar.enabled, needle = false;
  for (const auto& item : d.mix) {
    bytes |= item.weight > 0 && (item.task == "text" || item.task == "niah");
    mqar |= item.weight > 0 && item.task == "mqar";
    needle |= item.weight > 0 && item.task == "needle";
  }
  if (needle && c.model.vocab < d.needle.vocab)
    throw InputError("model.vocab", "must be >= data.needle.vocab = " + std::to_string(d.needle.vocab) +
                                        " for the needle task, got " + std::to_string(c.model.vocab));
  if (bytes && d.tokenizer == Tokenizer::bytes && c.model.vocab < 256)
    throw InputError("model.vocab", "must be >= 256 for byte-level text and NIAH data, got " + std::to_string(c.model.vocab));
  if (mqar && c.model.vocab < d.mqar.vocab)
    throw InputError("model.vocab", "must be >= data.mqar.vocab = " + std::to_string(d.mqar.vocab) +
                                        " for MQAR, got " + std::to_string(c.model.vocab));
  if (d.mqar.vocab <= d.seq_len)
    throw InputError("data.mqar.vocab", "must exceed data.seq_len = " + std::to_string(d.seq_len) + ", got " +
                                            std::to_string(d.mqar.vocab));
  positive("data.mqar.alpha", d.mqar.alpha);
  one_of("data.mqar.layout", d.mqar.layout, mqar_layout_names());
  for (size_t i = 0; i < d.needle.forms.size(); ++i) one_of(indexed("data.needle.forms", i), d.needle.forms[i], needle_form_names());
  non_negative("data.needle.answer_weight", d.needle.answer_weight);

  const TrainConfig& t = c.train;
  positive("train.lr", t.lr);
  if (!(t.min_lr >= 0.0 && t.min_lr <= t.lr))
    throw InputError("train.min_lr", "must be in [0, lr = " + format_number(t.lr) + "], got " + format_number(t.min_lr));
  non_negative("train.weight_decay", t.weight_decay);
  in_unit_range("train.beta1", t.beta1, Zero::allowed, "[0, 1)");
  in_unit_range("train.beta2", t.beta2, Zero::allowed, "[0, 1)");
  positive("train.eps", t.eps);
  non_negative("train.grad_clip", t.grad_clip);

  const EvalConfig& e = c.eval;
  for (size_t i = 0; i < e.niah.tasks.size(); ++i) one_of(indexed("eval.niah.tasks", i), e.niah.tasks[i], niah_task_names());
  for (size_t i = 0; i < e.needle.forms.size(); ++i) one_of(indexed("eval.needle.forms", i), e.needle.forms[i], needle_form_names());

  check_derived_sizes(c);
  // Last, once the horizons they default to (data.seq_len, train.steps) are known to be valid.
  const auto schedule = check_schedule("model.mixer.schedule", [&] { return schedule_from_config(c); });
  if (x.type == MixerType::memory && x.form == memory::RuleForm::chunked) {  // only now is the schedule known to be valid
    try {
      memory::resolve_rule_form(memory::RuleForm::chunked, x.rule, schedule, x.d_head);
    } catch (const InputError& e) {
      throw e.under("model.mixer");
    }
  }
  check_schedule("model.param_schedule.schedule", [&] { return param_schedule_from_config(c); });
}

}  // namespace proteus::config
