// Issue 59 item 1: a field's role lives in the schema (core/config/config_schema.hpp, field_role.hpp).
// Every field has exactly one role tag; the four lists the tags replaced (run identity, owned by
// the schedule, a reading, derived) are written out here as they stood before, and every field
// answers as it did; and the one differing_fields, field_text and last_component.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/config/config_json.hpp"
#include "core/config/field_role.hpp"
#include "core/config/flat_fields.hpp"

namespace {

using namespace proteus::config;
using nlohmann::json;

// The four lists as they were hard-coded before the tags (6befe94): run_identity_field
// (seed_group_members.cpp), eval::schedule_owned_field (baseline.cpp), the forest plot's
// readings_changed (gating_effect_by_variant.cpp) and derived_field (flat_fields.cpp).
bool former_run_identity(const std::string& path) {
  return path == "name" || path == "group" || path == "seed" || path == "runs_dir" || path == "device" ||
         path == "threads" || path == "train.eval_every" || path == "train.log_every" ||
         path == "train.checkpoint_every";
}

bool former_schedule_owned(const std::string& p) {
  return p == "model.mixer.E" || p == "model.mixer.N" || p == "model.mixer.normalize" || p == "model.mixer.form" ||
         p == "model.mixer.block_axis" || p == "model.mixer.schedule" || p.starts_with("model.mixer.schedule.");
}

bool former_reading(const std::string& p) {
  return p == "model.mixer.block_axis" || p == "model.mixer.normalize" || p == "model.mixer.output_gate" ||
         p == "data.tokenizer";
}

bool former_derived(const std::string& path) {
  return path == "model.d_hidden" || path == "model.mixer.N" || path == "model.param_schedule.N" ||
         path.starts_with("eval.");
}

TEST(FieldRoles, EveryFieldOfTheSchemaHasExactlyOneRoleTag) {
  const auto& roles = field_roles();
  std::vector<std::string> tagged;
  for (const auto& [path, role] : roles) {
    tagged.push_back(path);
    EXPECT_NE(proteus::common::choice_name(role), "?") << path << ": a role outside the table";
  }
  EXPECT_EQ(tagged, config_paths()) << "one tag per field, in schema order";
  EXPECT_EQ(std::set<std::string>(tagged.begin(), tagged.end()).size(), tagged.size()) << "a field tagged twice";
  // Every leaf the writer writes is a tagged field (the as-given form: no derived regime block).
  for (const auto& [path, value] : flat_fields(RunConfig{}, JsonForm::as_given))
    EXPECT_NE(std::find(tagged.begin(), tagged.end(), path), tagged.end()) << path << " has no role";
  EXPECT_EQ(flat_fields(RunConfig{}, JsonForm::as_given).size(), tagged.size());
}

// The schema's fields when the tags replaced the lists: each answers as it did then. A field added
// since is held to its tag alone (EveryFieldOfTheSchemaHasExactlyOneRoleTag).
std::vector<std::string> former_schema() {
  std::istringstream words(R"(name seed group device threads runs_dir model.vocab model.d_model model.layers
    model.d_hidden model.norm_eps model.init_std model.mixer.type model.mixer.rule model.mixer.heads
    model.mixer.d_head model.mixer.conv model.mixer.decay model.mixer.window model.mixer.E model.mixer.N
    model.mixer.schedule.type model.mixer.schedule.power model.mixer.schedule.unlock model.mixer.normalize
    model.mixer.form model.mixer.block_axis model.mixer.output_gate model.mlp.chain model.param_schedule.enabled
    model.param_schedule.E model.param_schedule.N model.param_schedule.schedule.type
    model.param_schedule.schedule.power model.param_schedule.schedule.unlock data.seq_len data.batch
    data.tokenizer data.vocab data.tokenizer_hash data.text.path data.text.holdout data.mix data.niah.tasks
    data.niah.question data.niah.answer_weight data.mqar.vocab data.mqar.pairs data.mqar.train_pairs
    data.mqar.alpha data.mqar.layout data.needle.vocab data.needle.forms data.needle.distractors
    data.needle.answer_weight train.steps train.lr train.min_lr train.warmup train.weight_decay train.beta1
    train.beta2 train.eps train.grad_clip train.log_every train.eval_every train.val_batches
    train.checkpoint_every eval.per_position.enabled eval.per_position.seq_len eval.per_position.sequences
    eval.per_position.buckets eval.niah.enabled eval.niah.tasks eval.niah.lengths eval.niah.depths
    eval.niah.samples eval.niah.max_new_bytes eval.needle.enabled eval.needle.forms eval.needle.lengths
    eval.needle.depths eval.needle.samples eval.mqar.enabled eval.mqar.samples eval.occupancy.enabled
    eval.occupancy.blocks eval.occupancy.seq_len)");
  std::vector<std::string> paths;
  for (std::string p; words >> p;) paths.push_back(p);
  return paths;
}

TEST(FieldRoles, TheFourFormerListsAgreeWithTheTags) {
  const auto paths = config_paths();
  const auto former = former_schema();
  EXPECT_EQ(former.size(), 88u);
  for (const auto& path : former) {
    ASSERT_NE(std::find(paths.begin(), paths.end(), path), paths.end()) << path << " left the schema";
    const FieldRole role = field_role(path);
    const RoleTraits t = role_traits(role);
    EXPECT_EQ(t.run_identity, former_run_identity(path)) << path;
    EXPECT_EQ(run_identity_field(path), former_run_identity(path)) << path;
    EXPECT_EQ(t.schedule_owned, former_schedule_owned(path)) << path;
    EXPECT_EQ(t.reading, former_reading(path)) << path;
    EXPECT_EQ(reading_field(path), former_reading(path)) << path;
    EXPECT_EQ(t.derived, former_derived(path)) << path;
    EXPECT_EQ(derived_field(path), former_derived(path)) << path;
  }
}

TEST(FieldRoles, APathThatIsNoLeafTakesTheRoleItsObjectsFieldsShare) {
  EXPECT_EQ(field_role("model.mixer.schedule"), FieldRole::schedule) << "an object: its fields' role";
  EXPECT_EQ(field_role("model.mixer.schedule.typo"), FieldRole::schedule) << "a key the schema lacks, in that object";
  EXPECT_TRUE(role_traits(field_role("model.mixer.schedule.typo")).schedule_owned);
  EXPECT_TRUE(derived_field("eval.per_position.typo"));
  EXPECT_EQ(field_role("model.param_schedule.schedule"), FieldRole::trained);
  EXPECT_EQ(field_role("model.mixer"), FieldRole::trained) << "fields of several roles";
  EXPECT_EQ(field_role("train.typo"), FieldRole::trained);
  EXPECT_EQ(field_role("regime.row_aligned"), FieldRole::trained) << "outside the schema";
  EXPECT_EQ(field_role("data.mix.task"), FieldRole::trained) << "a key of a list's items: the list's";
  EXPECT_EQ(field_role(""), FieldRole::trained);
  EXPECT_EQ(field_role("model.mixer.Ex"), FieldRole::trained) << "no leaf by prefix of letters";
}

TEST(DifferingFields, FieldsThatVaryOrAreAbsentSomewhereRunIdentityAside) {
  const FlatConfig a = {{"name", "a"}, {"seed", 1}, {"model.mixer.E", 16}, {"model.d_model", 64}};
  const FlatConfig b = {{"name", "b"}, {"seed", 2}, {"model.mixer.E", 8}, {"model.d_model", 64}, {"data.batch", 4}};
  const FlatConfig unread;  // a config that did not read says nothing
  EXPECT_EQ(differing_fields<FlatConfig>({&a, &b, &unread}), (std::vector<std::string>{"data.batch", "model.mixer.E"}));
  EXPECT_EQ(differing_fields<FlatConfig>({&a, &b}, {.shown = {"seed"}}),
            (std::vector<std::string>{"data.batch", "model.mixer.E", "seed"}));
  EXPECT_TRUE(differing_fields<FlatConfig>({&a, &a}).empty());
  EXPECT_TRUE(differing_fields<FlatConfig>({&a}).empty());
  // Any map of path to value: the runs table passes its texts.
  using Texts = std::map<std::string, std::string>;
  const Texts x = {{"model.mixer.E", "16"}}, y = {{"model.mixer.E", "8"}};
  EXPECT_EQ(differing_fields<Texts>({&x, &y}), (std::vector<std::string>{"model.mixer.E"}));
}

TEST(DifferingFields, ALockstepClassIsNamedByTheFieldAskedThenAModelFieldDerivedLast) {
  const auto config = [](int steps, int warmup, int d_head, int batch, int eval_len) {
    return FlatConfig{{"train.steps", steps}, {"train.warmup", warmup}, {"model.mixer.d_head", d_head},
                      {"data.batch", batch}, {"eval.per_position.seq_len", eval_len}};
  };
  const FlatConfig a = config(100, 10, 16, 4, 64), b = config(200, 20, 32, 8, 128), c = config(400, 40, 16, 4, 64);
  // steps with warmup one class; d_head, batch and the eval length another.
  EXPECT_EQ(differing_fields<FlatConfig>({&a, &b, &c}, {.lockstep = true}),
            (std::vector<std::string>{"model.mixer.d_head", "train.steps"}));
  EXPECT_EQ(differing_fields<FlatConfig>({&a, &b, &c}, {.lockstep = true, .named_first = "data.batch"}),
            (std::vector<std::string>{"data.batch", "train.steps"}));
  const FlatConfig d = {{"data.batch", 4}, {"eval.per_position.seq_len", 64}};
  const FlatConfig e = {{"data.batch", 8}, {"eval.per_position.seq_len", 128}};
  EXPECT_EQ(differing_fields<FlatConfig>({&d, &e}, {.lockstep = true}), (std::vector<std::string>{"data.batch"}))
      << "a derived field names its class last";
}

TEST(DifferingFields, InSchemaOrderTheFieldsAUserSetsComeFirst) {
  const FlatConfig a = {{"model.vocab", 256}, {"model.d_model", 64}, {"model.param_schedule.N", 100},
                        {"train.steps", 100}, {"regime.row_aligned", true}};
  const FlatConfig b = {{"model.vocab", 512}, {"model.d_model", 32}, {"model.param_schedule.N", 200},
                        {"train.steps", 200}, {"regime.row_aligned", false}};
  EXPECT_EQ(differing_fields<FlatConfig>({&a, &b}, {.order = DifferingOptions::Order::schema}),
            (std::vector<std::string>{"model.vocab", "model.d_model", "train.steps", "model.param_schedule.N",
                                      "regime.row_aligned"}));
}

TEST(FieldText, AValueAsATableShowsIt) {
  EXPECT_EQ(field_text(json("delta")), "delta");
  EXPECT_EQ(field_text(json(16)), "16");
  EXPECT_EQ(field_text(json(16.0)), "16");
  EXPECT_EQ(field_text(json(0.001)), "0.001");
  EXPECT_EQ(field_text(json(true)), "true");
  EXPECT_EQ(field_text(json::array({1, 2})), "[1,2]");
  EXPECT_EQ(last_component("model.mixer.E"), "E");
  EXPECT_EQ(last_component("seed"), "seed");
}

}  // namespace
