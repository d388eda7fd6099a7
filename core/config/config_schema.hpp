// The config schema, walked once: visit() names every field of RunConfig in order with its role
// (field_role.hpp), and the JSON writer (config_json.cpp), the checked reader (config_reader.cpp),
// the list of paths and roles (config_schema.cpp) and the size-bound check (config_validation.cpp)
// are visitors over it. So a field added to config.hpp and to visit() is written, read,
// typo-checked, overridable and asked its role at once. Internal to core/config.
//
// A visitor has three calls:
//   field(key, value, role)        a leaf: a number, a string, a choice, a list of scalars
//   object(key, body)              a nested object, its fields named by body()
//   list(key, items, role, body)   a list of objects (data.mix): one leaf; body(item) names an
//                                  item's fields, which take the list's role
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/config/config.hpp"
#include "core/config/field_role.hpp"

namespace proteus::config::schema {

template <class V>
void visit_schedule(V& v, memory::ScheduleSpec& s, FieldRole role) {
  v.field("type", s.type, role);
  v.field("power", s.power, role);
  v.field("unlock", s.unlock, role);
}

template <class V>
void visit_model(V& v, ModelConfig& m) {
  using enum FieldRole;
  v.field("vocab", m.vocab, trained);
  v.field("d_model", m.d_model, trained);
  v.field("layers", m.layers, trained);
  v.field("d_hidden", m.d_hidden, derived);
  v.field("norm_eps", m.norm_eps, trained);
  v.field("init_std", m.init_std, trained);
  v.object("mixer", [&] {
    MixerConfig& x = m.mixer;
    v.field("type", x.type, trained);
    v.field("rule", x.rule, trained);
    v.field("heads", x.heads, trained);
    v.field("d_head", x.d_head, trained);
    v.field("conv", x.conv, trained);
    v.field("decay", x.decay, trained);
    v.field("window", x.window, trained);
    v.field("E", x.E, schedule);
    v.field("N", x.N, schedule_horizon);
    v.object("schedule", [&] { visit_schedule(v, x.schedule, schedule); });
    v.field("normalize", x.normalize, schedule_reading);
    v.field("form", x.form, schedule);
    v.field("block_axis", x.block_axis, schedule_reading);
    v.field("output_gate", x.output_gate, reading);
  });
  v.object("mlp", [&] {
    v.list("chain", m.mlp.chain, trained, [&](MlpBlockConfig& block) { v.field("every", block.every, trained); });
  });
  v.object("param_schedule", [&] {
    ParamScheduleConfig& p = m.param_schedule;
    v.field("enabled", p.enabled, trained);
    v.field("E", p.E, trained);
    v.field("N", p.N, derived);
    v.object("schedule", [&] { visit_schedule(v, p.schedule, trained); });
  });
}

template <class V>
void visit_data(V& v, DataConfig& d) {
  using enum FieldRole;
  v.field("seq_len", d.seq_len, trained);
  v.field("batch", d.batch, trained);
  v.field("tokenizer", d.tokenizer, reading);
  v.field("vocab", d.vocab, trained);
  v.field("tokenizer_hash", d.tokenizer_hash, trained);
  v.object("text", [&] {
    v.field("path", d.text.path, trained);
    v.field("holdout", d.text.holdout, trained);
  });
  v.list("mix", d.mix, trained, [&](MixItem& item) {
    v.field("task", item.task, trained);
    v.field("weight", item.weight, trained);
  });
  v.object("niah", [&] {
    v.field("tasks", d.niah.tasks, trained);
    v.field("question", d.niah.question, trained);
    v.field("answer_weight", d.niah.answer_weight, trained);
  });
  v.object("mqar", [&] {
    v.field("vocab", d.mqar.vocab, trained);
    v.field("pairs", d.mqar.pairs, trained);
    v.field("train_pairs", d.mqar.train_pairs, trained);
    v.field("alpha", d.mqar.alpha, trained);
    v.field("layout", d.mqar.layout, trained);
  });
  v.object("needle", [&] {
    v.field("vocab", d.needle.vocab, trained);
    v.field("forms", d.needle.forms, trained);
    v.field("distractors", d.needle.distractors, trained);
    v.field("answer_weight", d.needle.answer_weight, trained);
  });
}

template <class V>
void visit_train(V& v, TrainConfig& t) {
  using enum FieldRole;
  v.field("steps", t.steps, trained);
  v.field("lr", t.lr, trained);
  v.field("min_lr", t.min_lr, trained);
  v.field("warmup", t.warmup, trained);
  v.field("weight_decay", t.weight_decay, trained);
  v.field("beta1", t.beta1, trained);
  v.field("beta2", t.beta2, trained);
  v.field("eps", t.eps, trained);
  v.field("grad_clip", t.grad_clip, trained);
  v.field("log_every", t.log_every, reporting);
  v.field("eval_every", t.eval_every, reporting);
  v.field("val_batches", t.val_batches, trained);
  v.field("checkpoint_every", t.checkpoint_every, reporting);
}

template <class V>
void visit_eval(V& v, EvalConfig& e) {
  constexpr FieldRole role = FieldRole::evaluation;
  v.object("per_position", [&] {
    v.field("enabled", e.per_position.enabled, role);
    v.field("seq_len", e.per_position.seq_len, role);
    v.field("sequences", e.per_position.sequences, role);
    v.field("buckets", e.per_position.buckets, role);
  });
  v.object("niah", [&] {
    v.field("enabled", e.niah.enabled, role);
    v.field("tasks", e.niah.tasks, role);
    v.field("lengths", e.niah.lengths, role);
    v.field("depths", e.niah.depths, role);
    v.field("samples", e.niah.samples, role);
    v.field("max_new_bytes", e.niah.max_new_bytes, role);
  });
  v.object("needle", [&] {
    v.field("enabled", e.needle.enabled, role);
    v.field("forms", e.needle.forms, role);
    v.field("lengths", e.needle.lengths, role);
    v.field("depths", e.needle.depths, role);
    v.field("samples", e.needle.samples, role);
  });
  v.object("mqar", [&] {
    v.field("enabled", e.mqar.enabled, role);
    v.field("samples", e.mqar.samples, role);
  });
  v.object("occupancy", [&] {
    v.field("enabled", e.occupancy.enabled, role);
    v.field("blocks", e.occupancy.blocks, role);
    v.field("seq_len", e.occupancy.seq_len, role);
  });
}

template <class V>
void visit(V& v, RunConfig& c) {
  using enum FieldRole;
  v.field("name", c.name, identity);
  v.field("seed", c.seed, identity);
  v.field("group", c.group, identity);
  v.field("device", c.device, identity);
  v.field("threads", c.threads, identity);
  v.field("runs_dir", c.runs_dir, identity);
  v.object("model", [&] { visit_model(v, c.model); });
  v.object("data", [&] { visit_data(v, c.data); });
  v.object("train", [&] { visit_train(v, c.train); });
  v.object("eval", [&] { visit_eval(v, c.eval); });
}

// Calls leaf(dotted path, value, role) for every field in schema order; a list (data.mix) is one
// leaf. Listing the paths and roles and checking the size bounds are such walks.
template <class Leaf>
class PathWalker {
 public:
  explicit PathWalker(Leaf leaf) : leaf_(std::move(leaf)) {}

  template <class T>
  void field(const char* key, T& value, FieldRole role) { leaf_(at(key), value, role); }

  template <class F>
  void object(const char* key, F&& body) {
    const std::string saved = prefix_;
    prefix_ = at(key);
    body();
    prefix_ = saved;
  }

  template <class Item, class F>
  void list(const char* key, std::vector<Item>& items, FieldRole role, F&&) { leaf_(at(key), items, role); }

 private:
  std::string at(const char* key) const { return prefix_.empty() ? std::string(key) : prefix_ + "." + key; }
  Leaf leaf_;
  std::string prefix_;
};

}  // namespace proteus::config::schema
