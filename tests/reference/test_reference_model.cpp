// The PyTorch reference model (experiments/reference/proteus_model.py) against the C++ model, both
// in float64 on the weights of tiny trained runs: the per-position NLL and the gradient of every
// parameter, for every rule at E = 1, a row-aligned E and a non-row-aligned E (and E = D), other
// schedules, no decay, no convolution, the attention mixer and both re-normalising variants of
// model.mixer.normalize, the readings of math.md section 8 (block_axis value_rows and layer, swla's
// window under both, the output gates, the MLP chain behind a memory and the attention mixer); the
// reference's chunked form (NLL and gradients) against its recurrent one and the C++; and controls
// showing the check catches a wrong E (delta's, gla's and kda's per-key retention) and a wrong block axis.
// Skips when no python3 with torch is found ($PROTEUS_PYTHON, python3, /usr/bin/python3); fails
// instead under scripts/test.sh (PROTEUS_REQUIRE_REFERENCE=1), which installs python3-torch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/config/config_json.hpp"
#include "core/model/model.hpp"
#include "core/runs/run_dir.hpp"
#include "core/runs/safetensors.hpp"
#include "core/train/checkpoint.hpp"
#include "core/train/trainer.hpp"
#include "tests/support/masking_cpu_backend.hpp"
#include "tests/support/required_check.hpp"
#include "tests/support/run_command.hpp"
#include "tests/train/tiny_run.hpp"

namespace {

using namespace proteus;
namespace fs = std::filesystem;
using nlohmann::json;

const std::string kScripts = std::string(PROTEUS_SOURCE_DIR) + "/experiments/reference/";

// Agreement bounds, relative to the largest magnitude compared. Both sides run in float64 on the
// same float32 weights, so what is left is summation order (measured: about 1e-15).
constexpr double kNllTolerance = 1e-10;
constexpr double kGradTolerance = 1e-9;

using test_support::python_with;

struct Case {
  std::string name;
  std::string type = "memory";
  std::string rule = "delta";
  int E = 1;
  bool decay = true;
  int conv = 4;
  std::string schedule = "uniform";
  bool chunked = false;  // also compare the reference's chunked form with its recurrent one
  std::string normalize = "normalize_then_mask";
  std::string block_axis = "key_rows";
  std::string output_gate = "none";
  std::vector<int> chain = {1};  // model.mlp.chain's update periods
};

// The rules the reference has a chunked form of (memory_rules.CHUNKED_RULES), with row-aligned E.
bool has_chunked_form(const std::string& rule) {
  return rule == "linear" || rule == "delta" || rule == "gla" || rule == "kda";
}

// d_head 8: D = 64 elements in rows of 8. Row-aligned E: 1, 2, 4, 8; not: 3 (blocks of 21), 5, 64.
std::vector<Case> cases() {
  std::vector<Case> c;
  for (const std::string rule : {"linear", "delta", "comba", "titans", "swla", "gla", "kda"}) {
    const bool chunk = has_chunked_form(rule);
    c.push_back({rule + "-E1", "memory", rule, 1, true, 4, "uniform", chunk});
    c.push_back({rule + "-E4", "memory", rule, 4, true, 4, "uniform", chunk});
    c.push_back({rule + "-E3", "memory", rule, 3, true, 4, "uniform", false});
  }
  c.push_back({"delta-E64", "memory", "delta", 64, true, 4, "uniform", false});
  c.push_back({"delta-E5-power", "memory", "delta", 5, true, 4, "power", false});
  c.push_back({"delta-E8-geometric", "memory", "delta", 8, true, 4, "geometric", true});
  c.push_back({"linear-E2-no-decay", "memory", "linear", 2, false, 4, "uniform", true});
  c.push_back({"delta-E4-no-decay-no-conv", "memory", "delta", 4, false, 0, "uniform", true});
  c.push_back({"comba-E5-no-conv", "memory", "comba", 5, true, 0, "uniform", false});
  c.push_back({"titans-E8-no-decay", "memory", "titans", 8, false, 4, "uniform", false});
  c.push_back({"swla-E1-window3", "memory", "swla", 1, true, 4, "uniform", false});
  c.push_back({"attention", "attention", "delta", 1, true, 4, "uniform", false});
  // How the mask meets the normalisation: the re-normalising variants, row-aligned and not.
  c.push_back({"delta-E4-mask-then-normalize", "memory", "delta", 4, true, 4, "uniform", false, "mask_then_normalize"});
  c.push_back({"comba-E3-capped-renormalize", "memory", "comba", 3, true, 4, "uniform", false, "capped_renormalize"});
  c.push_back({"linear-E5-capped-renormalize", "memory", "linear", 5, false, 4, "uniform", false, "capped_renormalize"});
  // The readings of math.md section 8: value_rows (E divides d_head 8), layer (E divides 2 x 8), swla's
  // window under each, the output gates, the MLP chain.
  const std::string ntm = "normalize_then_mask";
  c.push_back({"delta-E4-value-rows", "memory", "delta", 4, true, 4, "uniform", false, ntm, "value_rows"});
  c.push_back({"swla-E4-value-rows", "memory", "swla", 4, true, 4, "uniform", false, ntm, "value_rows"});
  c.push_back({"titans-E8-value-rows", "memory", "titans", 8, true, 4, "uniform", false, ntm, "value_rows"});
  c.push_back({"comba-E4-layer", "memory", "comba", 4, true, 4, "uniform", false, ntm, "layer"});
  c.push_back({"swla-E8-layer", "memory", "swla", 8, true, 4, "uniform", false, ntm, "layer"});
  c.push_back({"delta-E4-swish", "memory", "delta", 4, true, 4, "uniform", false, ntm, "key_rows", "swish"});
  c.push_back({"linear-E2-sigmoid-value-rows", "memory", "linear", 2, true, 4, "uniform", false, ntm, "value_rows", "sigmoid"});
  c.push_back({"comba-E4-chain", "memory", "comba", 4, true, 4, "uniform", false, ntm, "key_rows", "none", {1, 2, 4}});
  c.push_back({"attention-chain", "attention", "delta", 1, true, 4, "uniform", false, ntm, "key_rows", "none", {1, 2}});
  // gla (a retention per key row from the rank-16 gk_proj) beyond the loop's E = 1, 4, 3: without
  // decay, another schedule without conv, a re-normalising variant, both readings and a gate.
  c.push_back({"gla-E2-no-decay", "memory", "gla", 2, false, 4, "uniform", true});
  c.push_back({"gla-E8-geometric-no-conv", "memory", "gla", 8, true, 0, "geometric", true});
  c.push_back({"gla-E5-capped-renormalize", "memory", "gla", 5, true, 4, "uniform", false, "capped_renormalize"});
  c.push_back({"gla-E4-value-rows", "memory", "gla", 4, true, 4, "uniform", false, ntm, "value_rows"});
  c.push_back({"gla-E4-layer-swish", "memory", "gla", 4, true, 4, "uniform", false, ntm, "layer", "swish"});
  // kda (the delta rule with fla's KDA gate: f_proj of rank d_head, A_log per head, dt_bias per key
  // dimension) beyond the loop's E = 1, 4, 3: another schedule without conv, both readings and a gate.
  c.push_back({"kda-E8-geometric-no-conv", "memory", "kda", 8, true, 0, "geometric", true});
  c.push_back({"kda-E4-value-rows", "memory", "kda", 4, true, 4, "uniform", false, ntm, "value_rows"});
  c.push_back({"kda-E4-layer-swish", "memory", "kda", 4, true, 4, "uniform", false, ntm, "layer", "swish"});
  return c;
}

// A case's choice by its name, as a config file names it (a misspelt name throws).
template <class E>
E named(const std::string& name) {
  return common::choice_from_name<E>(name).value();
}

// A tiny run trained a few steps at a high learning rate, so that every parameter (norm gains,
// comba's d, the decay's A_log and dt_bias) has moved well away from its initial value.
config::RunConfig case_config(const Case& k, const fs::path& runs_dir) {
  auto cfg = test_support::tiny_run(runs_dir);
  cfg.name = k.name;
  cfg.threads = 1;
  cfg.model.layers = 2;
  cfg.model.mixer.type = named<config::MixerType>(k.type);
  cfg.model.mixer.rule = named<memory::Rule>(k.rule);
  cfg.model.mixer.heads = 2;
  cfg.model.mixer.d_head = 8;
  cfg.model.mixer.E = k.E;
  cfg.model.mixer.decay = k.decay;
  cfg.model.mixer.conv = k.conv;
  cfg.model.mixer.schedule.type = named<memory::ScheduleType>(k.schedule);
  cfg.model.mixer.normalize = named<memory::KeyNormalize>(k.normalize);
  cfg.model.mixer.block_axis = named<memory::BlockAxis>(k.block_axis);
  cfg.model.mixer.output_gate = named<config::OutputGate>(k.output_gate);
  cfg.model.mlp.chain.clear();
  for (int every : k.chain) cfg.model.mlp.chain.push_back({every});
  cfg.model.mixer.window = k.name.ends_with("window3") ? 3 : 2;
  cfg.train.steps = 4;
  cfg.train.lr = 0.05;
  cfg.train.min_lr = 0.05;
  cfg.train.warmup = 0;
  cfg.train.eval_every = 4;
  cfg.train.checkpoint_every = 4;
  cfg.eval.per_position.enabled = false;
  cfg.eval.occupancy.enabled = false;
  return cfg;
}

struct CppResult {
  std::vector<double> nll;  // (B, T)
  double loss = 0;
  std::map<std::string, std::vector<double>> grads;
};

// The C++ model in float64 with the run's float32 weights: what `proteus eval` computes, in double.
// masked: on a backend without the open-widths table (CUDA's path under value_rows and layer).
CppResult cpp_model(const std::string& run_dir, const std::vector<std::vector<int32_t>>& seqs, bool masked = false) {
  const auto cfg = runs::RunReader::open(run_dir).run_config();
  std::unique_ptr<backend::Backend<double>> be;
  if (masked)
    be = std::make_unique<test_support::MaskingCpuBackend<double>>(1);
  else
    be = backend::make_cpu_backend<double>(1);
  model::Model<double> m(cfg.model, config::resolved_mixer_horizon(cfg), *be, cfg.seed);
  const auto file = runs::read_safetensors(fs::path(run_dir) / train::kCheckpointFile);
  std::vector<double> params(m.num_params());
  for (const auto& e : m.table().entries()) {
    const auto values = file.at(e.name).to_f32();
    std::copy(values.begin(), values.end(), params.begin() + e.offset);
  }
  be->upload(m.params(), params.data(), params.size());
  const int B = static_cast<int>(seqs.size()), T = static_cast<int>(seqs[0].size()) - 1;
  std::vector<int32_t> tokens, targets;
  for (const auto& s : seqs) {
    tokens.insert(tokens.end(), s.begin(), s.end() - 1);
    targets.insert(targets.end(), s.begin() + 1, s.end());
  }
  CppResult r;
  r.loss = m.forward(tokens.data(), targets.data(), nullptr, B, T);
  r.nll = m.position_losses();
  m.backward();
  std::vector<double> grads(m.num_params());
  be->download(grads.data(), m.grads(), grads.size());
  for (const auto& e : m.table().entries())
    r.grads[e.name].assign(grads.begin() + e.offset, grads.begin() + e.offset + e.size);
  return r;
}

double max_abs(const std::vector<double>& x) {
  double m = 0;
  for (double v : x) m = std::max(m, std::abs(v));
  return m;
}

// max |a - b| / max |b|.
double relative_error(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double err = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) err = std::max(err, std::abs(a[i] - b[i]));
  return err / std::max(max_abs(b), 1e-300);
}

std::vector<double> flat(const json& rows) {
  std::vector<double> out;
  for (const auto& row : rows)
    for (const auto& x : row) out.push_back(x.get<double>());
  return out;
}

class ReferenceModel : public ::testing::Test {
 protected:
  void SetUp() override {
    python_ = python_with("torch");
    if (python_.empty())
      PROTEUS_SKIP_UNLESS_REQUIRED("no python3 with torch found ($PROTEUS_PYTHON, python3, /usr/bin/python3): install "
                      "python3-torch to check experiments/reference/proteus_model.py against the C++ model");
    dir_ = test_support::fresh_dir("reference");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Held-out-like sequences: random bytes, 2 x (40 + 1) tokens, past the horizon N = 16.
  std::vector<std::vector<int32_t>> sequences() const {
    std::mt19937 rng(11);
    std::uniform_int_distribution<int32_t> byte(0, 255);
    std::vector<std::vector<int32_t>> seqs(2, std::vector<int32_t>(41));
    for (auto& s : seqs)
      for (auto& t : s) t = byte(rng);
    return seqs;
  }

  std::string python_;
  fs::path dir_;
};

// What one case gives: its run, the C++ model's result, and the masking backend's where it applies.
struct Job {
  Case c;
  std::string run_dir;
  CppResult cpp;
  std::optional<CppResult> masked;  // value_rows and layer (not swla): the masking backend's model too
};

// Trains every case, evaluates it with the C++ model and adds its reference jobs to python_jobs.
std::vector<Job> prepare_jobs(const std::vector<Case>& cases, const std::vector<std::vector<int32_t>>& seqs,
                              const fs::path& dir, const fs::path& tokens, json& python_jobs) {
  std::vector<Job> jobs;
  for (const auto& c : cases) {
    const auto result = train::train_new_run(case_config(c, dir / "runs"));
    EXPECT_EQ(result.state, runs::RunState::finished) << c.name << ": " << result.message;
    if (result.state != runs::RunState::finished) continue;
    Job job{c, result.run_dir, cpp_model(result.run_dir, seqs), std::nullopt};
    if (c.block_axis != "key_rows" && c.rule != "swla" && c.E > 1) job.masked = cpp_model(result.run_dir, seqs, true);
    python_jobs.push_back({{"run", job.run_dir},
                           {"tokens", tokens.string()},
                           {"out", (dir / (c.name + ".json")).string()},
                           {"forms", c.chunked ? "recurrent,chunked" : "recurrent"},
                           {"chunk", 3},  // does not divide the unlock spacing: chunks straddle unlocks
                           {"grads", (dir / (c.name + ".safetensors")).string()}});
    if (c.chunked)  // the chunked form's gradients too (its backward is what the benchmarks time)
      python_jobs.push_back({{"run", job.run_dir},
                             {"tokens", tokens.string()},
                             {"out", (dir / (c.name + "-chunked.json")).string()},
                             {"forms", "chunked"},
                             {"chunk", 3},
                             {"grads", (dir / (c.name + "-chunked.safetensors")).string()}});
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// A control: the run evaluated by the reference with one config field changed (out: NAME.json).
void add_control(const Job& job, const std::string& name, const json::json_pointer& field, const json& value,
                 const fs::path& dir, const fs::path& tokens, json& python_jobs) {
  const fs::path control = dir / name;
  fs::create_directories(control);
  const fs::path run = fs::path(job.run_dir);
  fs::copy_file(run / train::kCheckpointFile, control / train::kCheckpointFile);
  json cfg = runs::RunReader::open(run).config();
  cfg[field] = value;
  std::ofstream(control / runs::kConfigFile) << cfg.dump();
  python_jobs.push_back({{"run", control.string()}, {"tokens", tokens.string()}, {"out", (dir / (name + ".json")).string()}});
}

// A control's NLL, against the run's C++ NLL: max relative difference.
double control_error(const Job& job, const std::string& name, const fs::path& dir) {
  std::ifstream in(dir / (name + ".json"));
  return relative_error(flat(json::parse(in)["nll"]["recurrent"]), job.cpp.nll);
}

// The reference's results against the C++ model's, case by case.
void compare_jobs(const std::vector<Job>& jobs, const fs::path& dir) {
  for (const auto& job : jobs) {
    SCOPED_TRACE(job.c.name);
    std::ifstream in(dir / (job.c.name + ".json"));
    const json py = json::parse(in);
    const auto nll = flat(py["nll"]["recurrent"]);
    ASSERT_EQ(nll.size(), job.cpp.nll.size());
    const double nll_err = relative_error(nll, job.cpp.nll);
    EXPECT_LT(nll_err, kNllTolerance);
    EXPECT_NEAR(py["loss"]["recurrent"].get<double>(), job.cpp.loss, kNllTolerance * job.cpp.loss);
    double chunk_err = 0;
    if (job.c.chunked) {
      chunk_err = relative_error(flat(py["nll"]["chunked"]), nll);
      EXPECT_LT(chunk_err, kNllTolerance) << "the chunked form differs from the recurrent one";
    }
    double grad_err = 0;
    for (const std::string form : {"", "-chunked"}) {
      if (!form.empty() && !job.c.chunked) continue;
      const auto grads = runs::read_safetensors(dir / (job.c.name + form + ".safetensors"));
      ASSERT_EQ(grads.tensors.size(), job.cpp.grads.size()) << "the models have other parameters";
      for (const auto& [name, cpp] : job.cpp.grads) {
        const auto* t = grads.find(name);
        ASSERT_NE(t, nullptr) << "the reference has no parameter " << name;
        const double err = relative_error(t->to_f64(), cpp);
        EXPECT_LT(err, kGradTolerance) << "gradient of " << name << (form.empty() ? "" : " (chunked form)");
        EXPECT_GT(max_abs(cpp), 0.0) << "gradient of " << name << " is zero: the check would not see it";
        grad_err = std::max(grad_err, err);
      }
    }
    if (job.masked) {  // the path a backend without the table takes, against the same reference
      EXPECT_LT(relative_error(nll, job.masked->nll), kNllTolerance) << "masking backend";
      const auto grads = runs::read_safetensors(dir / (job.c.name + ".safetensors"));
      for (const auto& [name, cpp] : job.masked->grads)
        EXPECT_LT(relative_error(grads.find(name)->to_f64(), cpp), kGradTolerance) << "masking backend: gradient of " << name;
    }
    // The measured agreement, for the README's record.
    std::printf("%-28s nll %.1e  grads %.1e", job.c.name.c_str(), nll_err, grad_err);
    if (job.c.chunked) std::printf("  chunked vs recurrent %.1e", chunk_err);
    std::printf("\n");
  }
}

const Job& job_named(const std::vector<Job>& jobs, const std::string& name) {
  const auto it = std::find_if(jobs.begin(), jobs.end(), [&](const Job& j) { return j.c.name == name; });
  if (it == jobs.end()) throw std::runtime_error("no case " + name);
  return *it;
}

TEST_F(ReferenceModel, AgreesWithTheCppModelForEveryMixer) {
  const auto seqs = sequences();
  const fs::path tokens = dir_ / "tokens.json";
  std::ofstream(tokens) << json{{"tokens", seqs}}.dump();
  json python_jobs = json::array();
  const auto jobs = prepare_jobs(cases(), seqs, dir_, tokens, python_jobs);
  ASSERT_EQ(jobs.size(), cases().size());
  // The control: the delta E = 4 run evaluated by the reference as if it had E = 1.
  const Job& delta_e4 = job_named(jobs, "delta-E4");
  add_control(delta_e4, "wrong-E", json::json_pointer("/model/mixer/E"), 1, dir_, tokens, python_jobs);
  // The control of the block axis: the delta value_rows run evaluated as if it had key_rows.
  const Job& value_rows = job_named(jobs, "delta-E4-value-rows");
  add_control(value_rows, "wrong-axis", json::json_pointer("/model/mixer/block_axis"), "key_rows", dir_, tokens,
              python_jobs);
  // And a per-key retention's gate: the gla E = 4 run evaluated as if it had E = 1.
  const Job& gla_e4 = job_named(jobs, "gla-E4");
  add_control(gla_e4, "gla-wrong-E", json::json_pointer("/model/mixer/E"), 1, dir_, tokens, python_jobs);
  const Job& kda_e4 = job_named(jobs, "kda-E4");
  add_control(kda_e4, "kda-wrong-E", json::json_pointer("/model/mixer/E"), 1, dir_, tokens, python_jobs);
  const fs::path jobs_file = dir_ / "jobs.json";
  std::ofstream(jobs_file) << python_jobs.dump(1);
  const auto reference =
      test_support::run_program({python_, kScripts + "proteus_model.py", "nll-jobs", jobs_file.string()});
  std::fputs(reference.out.c_str(), stdout);
  ASSERT_EQ(reference.status, 0) << "the reference failed";

  compare_jobs(jobs, dir_);
  EXPECT_GT(control_error(delta_e4, "wrong-E", dir_), 1e3 * kNllTolerance)
      << "evaluating an E = 4 run with E = 1 must not agree: the check would miss a wrong gate";
  EXPECT_GT(control_error(value_rows, "wrong-axis", dir_), 1e3 * kNllTolerance)
      << "evaluating a value_rows run as key_rows must not agree: the check would miss a wrong axis";
  EXPECT_GT(control_error(gla_e4, "gla-wrong-E", dir_), 1e3 * kNllTolerance)
      << "evaluating a gla E = 4 run with E = 1 must not agree: the check would miss a wrong gate";
  EXPECT_GT(control_error(kda_e4, "kda-wrong-E", dir_), 1e3 * kNllTolerance)
      << "evaluating a kda E = 4 run with E = 1 must not agree: the check would miss a wrong gate";
}

// The packed chunked algorithm of kernels/memory_rule_chunked.cu (linear, delta, comba, swla), step for
// step in float64 against autograd through the recurrent definition: the GPU kernels' math, checked
// on any machine (it does not run the CUDA code; the `gpu` tests do, on a GPU).
TEST(ReferenceChunkedCuda, ThePackedAlgorithmMatchesAutograd) {
  const std::string python = python_with("torch");
  if (python.empty()) PROTEUS_SKIP_UNLESS_REQUIRED("no python3 with torch found");
  const auto r = test_support::run_program({python, kScripts + "chunked_cuda_algorithm.py"});
  std::fputs(r.out.c_str(), stdout);
  EXPECT_EQ(r.status, 0) << "chunked_cuda_algorithm.py failed";
}

TEST(ReferenceConfig, DefaultsAreTheCppDefaults) {
  const std::string python = python_with("json");
  if (python.empty()) PROTEUS_SKIP_UNLESS_REQUIRED("no python3 found");
  const auto r =
      test_support::run_program({python, kScripts + "proteus_config.py", "defaults"}, {.stderr_apart = true});
  ASSERT_EQ(r.status, 0) << "proteus_config.py defaults failed:\n" << r.err;
  const json py = json::parse(r.out);
  const config::RunConfig defaults;
  const json cpp = config::to_json(defaults, config::JsonForm::as_given);
  // Every leaf the reference assumes must be the C++ default.
  std::vector<std::pair<std::string, json>> stack = {{"", py}};
  int leaves = 0;
  while (!stack.empty()) {
    auto [path, value] = stack.back();
    stack.pop_back();
    if (value.is_object()) {
      for (const auto& [key, child] : value.items()) stack.push_back({path + "/" + key, child});
      continue;
    }
    ++leaves;
    const json::json_pointer ptr(path);
    ASSERT_TRUE(cpp.contains(ptr)) << path << " is not a config field";
    EXPECT_EQ(value, cpp.at(ptr)) << path;
  }
  EXPECT_GT(leaves, 10);
}

}  // namespace
