// The config schema: derived defaults, the JSON round trip, and every refusal naming its field path
// (the readings of math.md section 8, output_gate and block_axis, among them).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"

namespace {

using nlohmann::json;
using proteus::InputError;
using namespace proteus::config;
namespace memory = proteus::memory;

json text(const char* json_text) { return json::parse(json_text); }

// The InputError parse_run_config throws for `j`, or a failed test when it accepts it.
InputError refusal(const json& j) {
  try {
    parse_run_config(j);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << j.dump();
  return InputError("", "");
}

// Follows a dotted path through nested objects; nullptr when a component is missing.
const json* find_path(const json& root, const std::string& path) {
  const json* node = &root;
  size_t begin = 0;
  while (true) {
    const size_t dot = path.find('.', begin);
    const std::string key = path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
    if (dot == std::string::npos) return node;
    begin = dot + 1;
  }
}

TEST(config, ResolvedDerivedValues) {
  ModelConfig m;
  EXPECT_EQ(resolved_d_hidden(m), 352);  // 8/3 * 128 = 341.3 -> 11 * 32
  m.d_model = 96;
  EXPECT_EQ(resolved_d_hidden(m), 256);  // exactly 8 * 32
  m.d_model = 100;
  EXPECT_EQ(resolved_d_hidden(m), 288);  // 266.7 -> 9 * 32
  m.d_hidden = 100;
  EXPECT_EQ(resolved_d_hidden(m), 100);

  RunConfig c;
  EXPECT_EQ(resolved_mixer_horizon(c), c.data.seq_len);
  EXPECT_EQ(resolved_param_horizon(c), c.train.steps);
  c.model.mixer.N = 77;
  c.model.param_schedule.N = 55;
  EXPECT_EQ(resolved_mixer_horizon(c), 77);
  EXPECT_EQ(resolved_param_horizon(c), 55);

  const RunConfig defaults;
  const RunConfig r = resolve(defaults);
  EXPECT_EQ(r.eval.per_position.seq_len, 1024);  // 4 x the training length
  EXPECT_EQ(r.eval.niah.tasks, std::vector<std::string>{"s-niah-1"});
  EXPECT_EQ(r.eval.niah.lengths, (std::vector<int>{128, 256, 512}));
  EXPECT_EQ(r.eval.occupancy.seq_len, 256);
}

TEST(config, DefaultsRoundTrip) {
  const RunConfig defaults;
  const json first = to_json(defaults);
  const json second = to_json(parse_run_config(first));
  EXPECT_EQ(first.dump(2), second.dump(2));
  // The resolved form writes the derived values out.
  EXPECT_EQ(first["model"]["d_hidden"], 352);
  EXPECT_EQ(first["model"]["mixer"]["N"], 256);
  EXPECT_EQ(first["model"]["param_schedule"]["N"], 300);

  const json given = to_json(defaults, JsonForm::as_given);
  EXPECT_EQ(given["model"]["d_hidden"], 0);
  EXPECT_EQ(to_json(parse_run_config(given), JsonForm::as_given), given);
}

TEST(config, NonDefaultRoundTrip) {
  RunConfig c;
  c.name = "wide";
  c.seed = 18446744073709551615ull;  // the largest seed survives as an unsigned integer
  c.model.mixer.rule = memory::Rule::titans;
  c.model.mixer.E = 8;
  c.model.mixer.schedule.type = memory::ScheduleType::custom;
  c.model.mixer.schedule.unlock = {1, 2, 4, 8, 16, 32, 64, 128};
  c.model.param_schedule.enabled = true;
  c.data.mix = {{"text", 0.5}, {"niah", 0.25}, {"mqar", 0.25}};
  c.model.vocab = c.data.mqar.vocab;  // MQAR tokens need the wider vocabulary
  c.train.lr = 1.0 / 3.0;  // a double with no short decimal form
  c.train.min_lr = 1e-5;
  c.eval.niah.lengths = {64, 1024};
  const RunConfig back = parse_run_config(to_json(c));
  EXPECT_EQ(back.seed, c.seed);
  EXPECT_EQ(back.train.lr, c.train.lr);
  EXPECT_EQ(back.model.mixer.schedule.unlock, c.model.mixer.schedule.unlock);
  ASSERT_EQ(back.data.mix.size(), 3u);
  EXPECT_EQ(back.data.mix[1].task, "niah");
  EXPECT_EQ(back.data.mix[2].weight, 0.25);
  EXPECT_EQ(to_json(back), to_json(c));
}

TEST(config, EveryPathIsWrittenAndListed) {
  const RunConfig defaults;
  const json j = to_json(defaults);
  const std::vector<std::string> paths = config_paths();
  EXPECT_GT(paths.size(), 60u);
  for (const auto& p : paths) EXPECT_NE(find_path(j, p), nullptr) << p;
  // And nothing is written that is not listed: count the leaves.
  size_t leaves = 0;
  std::function<void(const json&)> count = [&](const json& node) {
    if (node.is_object())
      for (const auto& [k, v] : node.items()) count(v);
    else
      ++leaves;
  };
  json fields = j;
  EXPECT_EQ(fields.erase("regime"), 1u);  // derived ratios (memory_regime.hpp), not a field: ignored on read
  count(fields);
  EXPECT_EQ(leaves, paths.size());
}

TEST(config, ParseOverridesOnlyGivenFields) {
  const RunConfig c = parse_run_config(text(R"({"model": {"mixer": {"E": 4}}, "train": {"lr": 0.01},
                                               "data": {"mix": [{"task": "niah"}]}})"));
  RunConfig want;
  want.model.mixer.E = 4;
  want.train.lr = 0.01;
  want.data.mix = {{"niah", 1.0}};  // the item's weight keeps its default
  EXPECT_EQ(to_json(c), to_json(want));
  EXPECT_EQ(parse_run_config(json::object()).model.d_model, 128);
}

TEST(config, IntegersWrittenAsFloatsAreAccepted) {
  EXPECT_EQ(parse_run_config(text(R"({"train": {"steps": 40.0}})")).train.steps, 40);
  EXPECT_EQ(parse_run_config(text(R"({"train": {"lr": 1}})")).train.lr, 1.0);
}

TEST(config, ExactMessages) {
  EXPECT_STREQ(refusal(text(R"({"train": {"lr": "fast"}})")).what(), "train.lr: expected a number, got \"fast\"");
  EXPECT_STREQ(refusal(text(R"({"model": {"mixer": {"E": 0}}})")).what(),
               "model.mixer.E: must be in [1, D = d_head^2 = 1024], got 0");
  EXPECT_STREQ(refusal(text(R"({"model": {"mixr": {}}})")).what(), "model.mixr: unknown key (did you mean mixer?)");
  EXPECT_STREQ(refusal(text(R"({"train": {"min_lr": 0.5}})")).what(), "train.min_lr: must be in [0, lr = 0.003], got 0.5");
}

// model.mlp.chain (math.md section 8, Hope-Attention): read, written back, and refused with the field and
// the value; absent, it is one block updated every step.
TEST(config, MlpChainRoundTripsAndNamesItsRefusals) {
  EXPECT_EQ(RunConfig().model.mlp.chain.size(), 1u);
  EXPECT_EQ(parse_run_config(json::object()).model.mlp.chain[0].every, 1);
  const auto c = parse_run_config(json::parse(R"({"model": {"mlp": {"chain": [{"every": 1}, {"every": 4}, {}]}}})"));
  ASSERT_EQ(c.model.mlp.chain.size(), 3u);
  EXPECT_EQ(c.model.mlp.chain[1].every, 4);
  EXPECT_EQ(c.model.mlp.chain[2].every, 1);  // an element's missing field keeps its default
  const auto back = parse_run_config(to_json(c));
  ASSERT_EQ(back.model.mlp.chain.size(), 3u);
  EXPECT_EQ(back.model.mlp.chain[1].every, 4);
  EXPECT_EQ(to_json(RunConfig())["model"]["mlp"]["chain"], json::parse(R"([{"every": 1}])"));
  EXPECT_EQ(describe_mlp_chain(RunConfig().model.mlp), "MLP: one SwiGLU block, updated every step");
  EXPECT_EQ(describe_mlp_chain(c.model.mlp), "MLP chain: 3 SwiGLU blocks, updated every 1, 4, 1 steps");
  EXPECT_STREQ(refusal(json::parse(R"({"model": {"mlp": {"chain": [{"every": 2}]}}})")).what(),
               "model.mlp.chain[0].every: must be 1: the first block is updated every step (C_1 = 1), got 2");
  EXPECT_STREQ(refusal(json::parse(R"({"model": {"mlp": {"chain": [{"every": 1}, {"every": 0}]}}})")).what(),
               "model.mlp.chain[1].every: must be in [1, 1048576], got 0");
  EXPECT_NE(std::string(refusal(json::parse(R"({"model": {"mlp": {"chain": [{}, {}, {}, {}, {}, {}, {}, {}, {}]}}})")).what())
                .find("holds 9 blocks, more than the limit of 8"),
            std::string::npos);
}

TEST(config, UnknownKeysAnywhere) {
  struct Case {
    const char* json_text;
    const char* field;
    const char* suggestion;  // "" when none is expected
  };
  const Case cases[] = {
      {R"({"sed": 3})", "sed", "did you mean seed?"},
      {R"({"model": {"d_modle": 3}})", "model.d_modle", "did you mean d_model?"},
      {R"({"model": {"mixer": {"schedule": {"typ": "uniform"}}}})", "model.mixer.schedule.typ", "did you mean type?"},
      {R"({"data": {"mix": [{"task": "text"}, {"wieght": 1}]}})", "data.mix[1].wieght", "did you mean weight?"},
      {R"({"eval": {"niah": {"lenghts": [64]}}})", "eval.niah.lenghts", "did you mean lengths?"},
      {R"({"train": {"zzzzzzzz": 1}})", "train.zzzzzzzz", ""},
  };
  for (const Case& c : cases) {
    const InputError e = refusal(json::parse(c.json_text));
    EXPECT_EQ(e.field(), c.field) << c.json_text;
    EXPECT_NE(e.reason().find("unknown key"), std::string::npos) << e.what();
    if (*c.suggestion) EXPECT_NE(e.reason().find(c.suggestion), std::string::npos) << e.what();
    else EXPECT_EQ(e.reason().find("did you mean"), std::string::npos) << e.what();
  }
}

// Each bad snippet and the field its error must name.
TEST(config, EveryRefusalNamesItsPath) {
  const std::pair<const char*, const char*> cases[] = {
      {R"([])", "config"},
      {R"({"name": ""})", "name"},
      {R"({"name": "a/b"})", "name"},
      {R"({"name": 3})", "name"},
      {R"({"seed": -1})", "seed"},
      {R"({"seed": 1.5})", "seed"},
      {R"({"device": "gpu"})", "device"},
      {R"({"threads": -1})", "threads"},
      {R"({"runs_dir": ""})", "runs_dir"},
      {R"({"model": 3})", "model"},
      {R"({"model": {"vocab": 1}})", "model.vocab"},
      {R"({"model": {"d_model": 0}})", "model.d_model"},
      {R"({"model": {"layers": 0}})", "model.layers"},
      {R"({"model": {"d_hidden": -32}})", "model.d_hidden"},
      {R"({"model": {"norm_eps": 0}})", "model.norm_eps"},
      {R"({"model": {"init_std": -1}})", "model.init_std"},
      {R"({"model": {"mixer": {"type": "mamba"}}})", "model.mixer.type"},
      {R"({"model": {"mixer": {"rule": "detla"}}})", "model.mixer.rule"},
      {R"({"model": {"mixer": {"heads": 0}}})", "model.mixer.heads"},
      {R"({"model": {"mixer": {"d_head": 0}}})", "model.mixer.d_head"},
      {R"({"model": {"mixer": {"conv": -1}}})", "model.mixer.conv"},
      {R"({"model": {"mixer": {"decay": 1}}})", "model.mixer.decay"},
      {R"({"model": {"mixer": {"window": 0}}})", "model.mixer.window"},
      {R"({"model": {"mixer": {"E": 1025}}})", "model.mixer.E"},
      {R"({"model": {"mixer": {"d_head": 2, "E": 5}}})", "model.mixer.E"},
      {R"({"model": {"mixer": {"E": 2.5}}})", "model.mixer.E"},
      {R"({"model": {"mixer": {"E": 3000000000}}})", "model.mixer.E"},
      {R"({"model": {"mixer": {"N": -1}}})", "model.mixer.N"},
      {R"({"model": {"mixer": {"schedule": "uniform"}}})", "model.mixer.schedule"},
      {R"({"model": {"mixer": {"schedule": {"type": "cosine"}}}})", "model.mixer.schedule.type"},
      {R"({"model": {"mixer": {"schedule": {"type": "power", "power": 0}}}})", "model.mixer.schedule.power"},
      {R"({"model": {"mixer": {"E": 3, "schedule": {"type": "custom", "unlock": [1, 5]}}}})",
       "model.mixer.schedule.unlock"},
      {R"({"model": {"mixer": {"E": 2, "schedule": {"type": "custom", "unlock": [2, 5]}}}})",
       "model.mixer.schedule.unlock[0]"},
      {R"({"model": {"mixer": {"E": 3, "schedule": {"type": "custom", "unlock": [1, 5, 4]}}}})",
       "model.mixer.schedule.unlock[2]"},
      {R"({"model": {"mixer": {"schedule": {"unlock": [1, "x"]}}}})", "model.mixer.schedule.unlock[1]"},
      {R"({"model": {"param_schedule": {"enabled": "yes"}}})", "model.param_schedule.enabled"},
      {R"({"model": {"param_schedule": {"E": 0}}})", "model.param_schedule.E"},
      {R"({"model": {"param_schedule": {"E": 353}}})", "model.param_schedule.E"},
      {R"({"model": {"d_hidden": 64, "param_schedule": {"E": 65}}})", "model.param_schedule.E"},
      {R"({"model": {"param_schedule": {"N": -5}}})", "model.param_schedule.N"},
      {R"({"model": {"param_schedule": {"schedule": {"type": "geometrik"}}}})", "model.param_schedule.schedule.type"},
      {R"({"model": {"param_schedule": {"E": 2, "schedule": {"type": "custom", "unlock": [1]}}}})",
       "model.param_schedule.schedule.unlock"},
      {R"({"model": {"mlp": {"chain": []}}})", "model.mlp.chain"},
      {R"({"model": {"mlp": {"chain": {"every": 1}}}})", "model.mlp.chain"},
      {R"({"model": {"mlp": {"chain": [{"every": 1}, {"every": 0}]}}})", "model.mlp.chain[1].every"},
      {R"({"model": {"mlp": {"chain": [{"every": 1}, {"every": -4}]}}})", "model.mlp.chain[1].every"},
      {R"({"model": {"mlp": {"chain": [{"every": 1}, {"every": 2.5}]}}})", "model.mlp.chain[1].every"},
      {R"({"model": {"mlp": {"chain": [{"every": 4}, {"every": 16}]}}})", "model.mlp.chain[0].every"},
      {R"({"model": {"mlp": {"chain": [{}, {}, {}, {}, {}, {}, {}, {}, {}]}}})", "model.mlp.chain"},
      {R"({"model": {"mlp": {"chain": [{"every": 1}, {"every": 1048577}]}}})", "model.mlp.chain[1].every"},
      {R"({"model": {"mlp": {"chain": [{"every": 1}, {"evry": 4}]}}})", "model.mlp.chain[1].evry"},
      {R"({"model": {"mlp": {"chains": []}}})", "model.mlp.chains"},
      {R"({"data": {"seq_len": 7}})", "data.seq_len"},
      {R"({"data": {"batch": 0}})", "data.batch"},
      {R"({"data": {"text": {"path": ""}}})", "data.text.path"},
      {R"({"data": {"text": {"holdout": 0}}})", "data.text.holdout"},
      {R"({"data": {"text": {"holdout": 1}}})", "data.text.holdout"},
      {R"({"data": {"mix": []}})", "data.mix"},
      {R"({"data": {"mix": {"task": "text"}}})", "data.mix"},
      {R"({"data": {"mix": [3]}})", "data.mix[0]"},
      {R"({"data": {"mix": [{"task": "text"}, {"task": "ruler"}]}})", "data.mix[1].task"},
      {R"({"data": {"mix": [{"task": "text", "weight": -1}]}})", "data.mix[0].weight"},
      {R"({"data": {"mix": [{"task": "text", "weight": 0}]}})", "data.mix"},
      {R"({"data": {"niah": {"tasks": []}}})", "data.niah.tasks"},
      {R"({"data": {"niah": {"tasks": ["s-niah-1", "s-niah-9"]}}})", "data.niah.tasks[1]"},
      {R"({"data": {"niah": {"tasks": "s-niah-1"}}})", "data.niah.tasks"},
      {R"({"data": {"niah": {"question": "long"}}})", "data.niah.question"},
      {R"({"data": {"mqar": {"vocab": 256}}})", "data.mqar.vocab"},
      {R"({"data": {"seq_len": 9000}})", "data.mqar.vocab"},
      {R"({"data": {"mqar": {"pairs": 0}}})", "data.mqar.pairs"},
      {R"({"data": {"mqar": {"alpha": 0}}})", "data.mqar.alpha"},
      {R"({"train": {"steps": 0}})", "train.steps"},
      {R"({"train": {"lr": 0}})", "train.lr"},
      {R"({"train": {"lr": "fast"}})", "train.lr"},
      {R"({"train": {"min_lr": -0.1}})", "train.min_lr"},
      {R"({"train": {"warmup": -1}})", "train.warmup"},
      {R"({"train": {"weight_decay": -0.1}})", "train.weight_decay"},
      {R"({"train": {"beta1": 1}})", "train.beta1"},
      {R"({"train": {"beta2": -0.5}})", "train.beta2"},
      {R"({"train": {"eps": 0}})", "train.eps"},
      {R"({"train": {"grad_clip": -1}})", "train.grad_clip"},
      {R"({"train": {"log_every": 0}})", "train.log_every"},
      {R"({"train": {"eval_every": 0}})", "train.eval_every"},
      {R"({"train": {"val_batches": 0}})", "train.val_batches"},
      {R"({"train": {"checkpoint_every": 0}})", "train.checkpoint_every"},
      {R"({"eval": {"per_position": {"seq_len": -1}}})", "eval.per_position.seq_len"},
      {R"({"eval": {"per_position": {"sequences": 0}}})", "eval.per_position.sequences"},
      {R"({"eval": {"per_position": {"buckets": 0}}})", "eval.per_position.buckets"},
      {R"({"eval": {"niah": {"tasks": ["mq-niah", "x"]}}})", "eval.niah.tasks[1]"},
      {R"({"eval": {"niah": {"lengths": [64, 0]}}})", "eval.niah.lengths[1]"},
      {R"({"eval": {"niah": {"lengths": [64, "128"]}}})", "eval.niah.lengths[1]"},
      {R"({"eval": {"niah": {"depths": 41}}})", "eval.niah.depths"},
      {R"({"eval": {"niah": {"samples": 0}}})", "eval.niah.samples"},
      {R"({"eval": {"niah": {"max_new_bytes": 0}}})", "eval.niah.max_new_bytes"},
      {R"({"eval": {"mqar": {"samples": 0}}})", "eval.mqar.samples"},
      {R"({"eval": {"occupancy": {"blocks": 0}}})", "eval.occupancy.blocks"},
      {R"({"eval": {"occupancy": {"seq_len": -2}}})", "eval.occupancy.seq_len"},
      {R"({"comment": 3})", "comment"},
      {R"({"variants": []})", "variants"},
  };
  for (const auto& [snippet, field] : cases) {
    const InputError e = refusal(json::parse(snippet));
    EXPECT_EQ(e.field(), field) << snippet << " -> " << e.what();
  }
}

// Accepted, and read as given: a reader that dropped or clamped an edge value would pass a bare
// "does not throw".
TEST(config, ValuesNearTheEdgesAreAccepted) {
  const RunConfig e = parse_run_config(text(R"({"model": {"mixer": {"E": 1024}}})"));
  EXPECT_EQ(e.model.mixer.E, 1024);
  const RunConfig attention = parse_run_config(text(R"({"model": {"mixer": {"type": "attention", "rule": "swla"}}})"));
  EXPECT_EQ(attention.model.mixer.type, MixerType::attention);
  EXPECT_EQ(attention.model.mixer.rule, memory::Rule::swla);
  const RunConfig train = parse_run_config(text(R"({"train": {"min_lr": 0.003, "beta1": 0, "grad_clip": 0, "warmup": 0}})"));
  EXPECT_EQ(train.train.min_lr, 0.003);
  EXPECT_EQ(train.train.beta1, 0.0);
  EXPECT_EQ(train.train.grad_clip, 0.0);
  EXPECT_EQ(train.train.warmup, 0);
  const RunConfig data = parse_run_config(text(R"({"data": {"seq_len": 8, "mix": [{"task": "mqar", "weight": 0},
                                                                                   {"task": "text"}]}})"));
  EXPECT_EQ(data.data.seq_len, 8);
  ASSERT_EQ(data.data.mix.size(), 2u);
  EXPECT_EQ(data.data.mix[0].task, "mqar");
  EXPECT_EQ(data.data.mix[0].weight, 0.0);
  EXPECT_EQ(data.data.mix[1].task, "text");
  EXPECT_EQ(data.data.mix[1].weight, 1.0) << "an omitted weight is the default";
  const RunConfig custom = parse_run_config(text(R"({"model": {"mixer": {"E": 4, "schedule": {"type": "custom",
                                                                   "unlock": [1, 1, 2, 300]}}}})"));
  EXPECT_EQ(custom.model.mixer.E, 4);
  EXPECT_EQ(custom.model.mixer.schedule.type, memory::ScheduleType::custom);
  EXPECT_EQ(custom.model.mixer.schedule.unlock, (std::vector<int64_t>{1, 1, 2, 300}));
  const RunConfig commented = parse_run_config(text(R"({"comment": ["a preset", "with two lines"], "device": "cuda"})"));
  EXPECT_EQ(commented.device, "cuda");
}

TEST(config, SuggestionsForValues) {
  const InputError e = refusal(text(R"({"model": {"mixer": {"rule": "detla"}}})"));
  EXPECT_NE(e.reason().find("did you mean delta?"), std::string::npos) << e.what();
  EXPECT_NE(e.reason().find("linear, delta, comba, titans, swla"), std::string::npos) << e.what();
}

TEST(config, ExperimentKeysPointToTheLoader) {
  const InputError e = refusal(text(R"({"parent": "base.json"})"));
  EXPECT_EQ(e.field(), "parent");
  EXPECT_NE(e.reason().find("experiment"), std::string::npos) << e.what();
}

TEST(config, ValidateChecksStructs) {
  RunConfig c;
  EXPECT_NO_THROW(validate(c));
  c.model.mixer.d_head = 4;
  c.model.mixer.E = 17;
  try {
    validate(c);
    FAIL() << "accepted E = 17 with D = 16";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "model.mixer.E: must be in [1, D = d_head^2 = 16], got 17");
  }
}

TEST(config, ClosestName) {
  EXPECT_EQ(closest_name("mixr", {"vocab", "mixer", "layers"}), "mixer");
  EXPECT_EQ(closest_name("qqqqqq", {"vocab", "mixer"}), "");
  EXPECT_EQ(closest_name("x", {"E", "N"}), "");  // one letter is no evidence of a typo
}

}  // namespace

TEST(config, VocabularyMustCoverTheData) {
  RunConfig c;
  c.data.mix = {{"mqar", 1.0}};
  try {
    validate(c);
    ADD_FAILURE() << "a 256-token model accepted for 8192-token MQAR";
  } catch (const proteus::InputError& e) {
    EXPECT_EQ(e.field(), "model.vocab");
  }
  c.model.vocab = c.data.mqar.vocab;
  EXPECT_NO_THROW(validate(c));
  c.data.mix = {{"text", 1.0}};
  c.model.vocab = 100;
  EXPECT_THROW(validate(c), proteus::InputError);
}

namespace {

// The enumerated fields' choices come from one table each, which the validator reads.
TEST(config, EnumeratedChoicesComeFromTheirTables) {
  using namespace proteus::config;
  for (const auto& d : device_names()) {
    RunConfig c;
    c.device = d;
    EXPECT_NO_THROW(validate(c)) << d;
  }
  for (const MixerType t : proteus::common::choice_values<MixerType>()) {
    RunConfig c;
    c.model.mixer.type = t;
    EXPECT_NO_THROW(validate(c)) << proteus::common::choice_name(t);
  }
  RunConfig bad;
  bad.device = "tpu";
  try {
    validate(bad);
    ADD_FAILURE() << "tpu accepted";
  } catch (const proteus::InputError& e) {
    EXPECT_EQ(e.field(), "device");
    for (const auto& d : device_names()) EXPECT_NE(std::string(e.reason()).find(d), std::string::npos) << e.reason();
  }
}

}  // namespace

namespace {

// ---- The readings of math.md section 8 as switches: model.mixer.output_gate and block_axis default
// to today's model, take --set, round-trip, and what cannot run is refused with the numbers. ----

// The config with `path` set as `--set path=value` would set it.
json with_set(const std::string& path_equals_value) {
  const auto [path, value] = parse_override(path_equals_value);
  return apply_override(json::object(), path, value);
}

TEST(ConfigReadings, DefaultsAreTodaysModel) {
  const RunConfig c;
  EXPECT_EQ(c.model.mixer.output_gate, OutputGate::none);
  EXPECT_EQ(c.model.mixer.block_axis, memory::BlockAxis::key_rows);
  const json j = to_json(c, JsonForm::as_given);
  EXPECT_EQ(j["model"]["mixer"]["output_gate"], "none");
  EXPECT_EQ(j["model"]["mixer"]["block_axis"], "key_rows");
}

TEST(ConfigReadings, SetOnTheCommandLineAndRoundTrip) {
  for (const OutputGate gate : proteus::common::choice_values<OutputGate>()) {
    const std::string name(proteus::common::choice_name(gate));
    const RunConfig c = parse_run_config(with_set("model.mixer.output_gate=" + name));
    EXPECT_EQ(c.model.mixer.output_gate, gate) << name;
    EXPECT_EQ(parse_run_config(to_json(c, JsonForm::as_given)).model.mixer.output_gate, gate) << name;
  }
  json j = with_set("model.mixer.block_axis=value_rows");
  j = apply_override(j, "model.mixer.E", 8);
  const RunConfig c = parse_run_config(j);
  EXPECT_EQ(c.model.mixer.block_axis, memory::BlockAxis::value_rows);
  EXPECT_EQ(parse_run_config(to_json(c, JsonForm::as_given)).model.mixer.block_axis, memory::BlockAxis::value_rows);
}

TEST(ConfigReadings, UnknownNamesAreRefusedNamingTheField) {
  EXPECT_EQ(refusal(with_set("model.mixer.output_gate=relu")).field(), "model.mixer.output_gate");
  EXPECT_EQ(refusal(with_set("model.mixer.block_axis=columns")).field(), "model.mixer.block_axis");
}

// Every enumerated field reads each name of its one table (through --set, as a variant or a sweep
// sets it) and writes it back as the same string; any other name is refused naming the field and
// the table's names. A name the table holds may still be refused for another field (custom needs
// unlock points, bpe a vocabulary), never for its own.
template <class E>
void expect_names_read_and_written(const std::string& path) {
  std::vector<std::string> names;
  for (E value : proteus::common::choice_values<E>()) names.emplace_back(proteus::common::choice_name(value));
  for (const std::string& name : names) {
    const json j = with_set(path + "=" + name);
    try {
      const json written = to_json(parse_run_config(j), JsonForm::as_given);
      const json* value = find_path(written, path);
      ASSERT_NE(value, nullptr) << path;
      EXPECT_EQ(*value, name) << path;
    } catch (const InputError& e) {
      EXPECT_NE(e.field(), path) << e.what();
    }
  }
  const InputError e = refusal(with_set(path + "=nonsense"));
  EXPECT_EQ(e.field(), path);
  EXPECT_EQ(e.reason(), "unknown value \"nonsense\"; expected one of " + proteus::common::join(names)) << e.what();
}

TEST(ConfigReadings, EveryChoiceIsReadAndWrittenByTheNamesOfItsTable) {
  expect_names_read_and_written<MixerType>("model.mixer.type");
  expect_names_read_and_written<memory::Rule>("model.mixer.rule");
  expect_names_read_and_written<memory::KeyNormalize>("model.mixer.normalize");
  expect_names_read_and_written<memory::RuleForm>("model.mixer.form");
  expect_names_read_and_written<memory::BlockAxis>("model.mixer.block_axis");
  expect_names_read_and_written<OutputGate>("model.mixer.output_gate");
  expect_names_read_and_written<memory::ScheduleType>("model.mixer.schedule.type");
  expect_names_read_and_written<memory::ScheduleType>("model.param_schedule.schedule.type");
  expect_names_read_and_written<Tokenizer>("data.tokenizer");
  // The writer's names are the ones config.json has always held.
  const json j = to_json(RunConfig{}, JsonForm::as_given);
  EXPECT_EQ(j["model"]["mixer"]["form"], "auto");
  EXPECT_EQ(j["model"]["mixer"]["rule"], "delta");
  EXPECT_EQ(j["model"]["mixer"]["type"], "memory");
  EXPECT_EQ(j["model"]["mixer"]["normalize"], "normalize_then_mask");
  EXPECT_EQ(j["model"]["mixer"]["schedule"]["type"], "uniform");
  EXPECT_EQ(j["data"]["tokenizer"], "bytes");
}

TEST(ConfigReadings, ValueRowsNeedsEToDivideTheValueWidth) {
  json j = with_set("model.mixer.block_axis=value_rows");
  j = apply_override(j, "model.mixer.E", 3);  // d_head 32
  const InputError e = refusal(j);
  EXPECT_EQ(e.field(), "model.mixer.E");
  EXPECT_NE(e.reason().find("d_head = 32"), std::string::npos) << e.reason();
  EXPECT_NE(e.reason().find("E = 3"), std::string::npos) << e.reason();
  j = apply_override(j, "model.mixer.E", 4);
  j = apply_override(j, "model.mixer.normalize", "mask_then_normalize");
  EXPECT_EQ(refusal(j).field(), "model.mixer.normalize");
}

TEST(ConfigReadings, LayerNeedsEToDivideTheLayersKeyRows) {
  json j = with_set("model.mixer.block_axis=layer");
  j = apply_override(j, "model.mixer.E", 5);  // 2 heads x 32
  const InputError e = refusal(j);
  EXPECT_EQ(e.field(), "model.mixer.E");
  EXPECT_NE(e.reason().find("= 64"), std::string::npos) << e.reason();
  EXPECT_NE(e.reason().find("E = 5"), std::string::npos) << e.reason();
  j = apply_override(j, "model.mixer.E", 16);
  EXPECT_EQ(parse_run_config(j).model.mixer.E, 16);
  j = apply_override(j, "model.mixer.rule", "swla");  // its window gates by the open widths in the rule
  EXPECT_EQ(parse_run_config(j).model.mixer.rule, memory::Rule::swla);
}

TEST(ConfigReadings, TheAttentionMixerTakesNoOutputGate) {
  json j = with_set("model.mixer.output_gate=swish");
  j = apply_override(j, "model.mixer.type", "attention");
  EXPECT_EQ(refusal(j).field(), "model.mixer.output_gate");
}

}  // namespace
