// The range and cross-field checks of a run config (validate()): every refusal names the field's
// full path and the range it must be in. The reader (config_reader.cpp) has already checked the
// keys, the types and the choices' names.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/common/json_fields.hpp"
#include "core/config/config_json.hpp"
#include "core/config/config_schema.hpp"
#include "core/config/data_values.hpp"
#include "core/config/mixer_schedule.hpp"
#include "core/config/size_bounds.hpp"
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

// Checks every integer field that size_bounds() lists, walking the schema so none is missed.
void check_size_bounds(const RunConfig& c) {
  RunConfig copy = c;  // visit() takes a mutable config; the walk only reads
  schema::PathWalker walker([](const std::string& path, const auto& value, FieldRole) {
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<T, int>) {
      check_size_bound(path, value);
    } else if constexpr (std::is_same_v<T, std::vector<int>>) {
      for (size_t i = 0; i < value.size(); ++i) check_size_bound(path, value[i], indexed(path, i));
    }
  });
  schema::visit(walker, copy);
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
