#include "app/cli/experiment_commands.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/command_support.hpp"
#include "app/cli/job_commands.hpp"
#include "app/cli/progress_line.hpp"
#include "core/common/folder_walk.hpp"
#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"
#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"
#include "core/config/size_bounds.hpp"
#include "core/engine/edited_evaluation.hpp"
#include "core/engine/experiment_job.hpp"
#include "core/runs/run_dir.hpp"
#include "core/train/run_validation.hpp"

namespace proteus::cli {
namespace {

struct ExperimentOptions {
  std::string config;
  std::string resume;
  // Given or not: an empty value given ("--runs-dir ''") is a bad value, never "not given".
  std::optional<std::string> runs_dir;
  std::optional<std::string> device;
  std::optional<int64_t> threads;  // absent: the config's
  std::optional<int64_t> steps;
  std::vector<std::string> sets;  // "path=value" overrides
  std::vector<std::string> variants;  // only these variants (by name)
  std::optional<std::string> seeds;   // "1,2,3": the experiment's "seeds"
  bool no_eval = false;
  bool side_by_side = false;
  bool dry_run = false;
  SlurmCliOptions slurm;  // --slurm: a Slurm job array instead of training here
};

constexpr const char* config_help = R"(CONFIG is a JSON run config (experiments/*.json): fields not given take their defaults, unknown
keys are refused. It may name a "parent" config to start from, "variants" (runs trained one after
another, e.g. the baseline E = 1 and Proteus E = 16 on the same data and seed), "seeds" ([1, 2, 3]:
each variant trained once per seed, a seed group "NAME-VARIANT" of runs "NAME-VARIANT-s1", ...; the
engine writes each group's summary under RUNS_DIR/groups/) and, for `sweep`,
a "sweep" grid ({"model.mixer.E": [1, 2, 4], "seed": [1, 2]}). Each run writes a directory under
runs_dir: config.json, metrics.jsonl (streamed), status.json, checkpoint.safetensors and the
evaluation results (per_position.csv, niah.csv, occupancy.json, ...).
Ctrl-C cancels cleanly: the run keeps a checkpoint and `proteus train --resume RUN` continues it.
Exit status: 0 done; 1 a run failed; 2 bad config or usage; 130 cancelled.)";

// "1,2,3" -> [1, 2, 3]; the experiment checks the list's size when it makes its runs.
std::vector<uint64_t> parse_seeds(const std::string& list) {
  std::vector<uint64_t> seeds;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, comma - start);
    size_t used = 0;
    uint64_t seed = 0;
    try {
      if (item.empty() || item.front() == '-' || item.front() == '+') throw std::invalid_argument("sign");
      seed = std::stoull(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size())
      throw InputError("--seeds", "expected integers >= 0 separated by commas (1,2,3), got " + common::quoted(item));
    if (std::find(seeds.begin(), seeds.end(), seed) != seeds.end())
      throw InputError("--seeds", "seed " + std::to_string(seed) + " is given twice: a seed is trained once per run");
    seeds.push_back(seed);
    start = comma + 1;
  }
  return seeds;
}

// --set model.mixer.E=16 --set data.batch=4: the value is JSON when it parses as JSON, else a string.
// --threads and --steps are checked here, under the names the user typed, against the config's bounds.
void apply_overrides(config::Experiment& e, const ExperimentOptions& o) {
  for (const auto& s : o.sets) {
    auto [path, value] = config::parse_override(s);
    e.set(path, value);
  }
  if (o.runs_dir) {
    if (o.runs_dir->empty()) throw InputError("--runs-dir", "must name a folder, got \"\"");
    e.set("runs_dir", *o.runs_dir);
  }
  if (o.device) {
    if (std::find(config::device_names().begin(), config::device_names().end(), *o.device) == config::device_names().end())
      throw InputError("--device", "expected cpu or cuda, got " + common::quoted(*o.device));
    e.set("device", *o.device);
  }
  if (o.threads) {
    config::check_size_bound("threads", *o.threads, "--threads");
    e.set("threads", *o.threads);
  }
  if (o.steps) {
    config::check_size_bound("train.steps", *o.steps, "--steps");
    e.set("train.steps", *o.steps);
  }
  if (o.seeds) e.seeds = parse_seeds(*o.seeds);
}

void add_common_options(CLI::App* c, ExperimentOptions& o) {
  c->add_option("--set", o.sets, "override a config field, e.g. --set model.mixer.E=16 (repeatable)")
      ->option_text("PATH=VALUE");
  c->add_option("--runs-dir", o.runs_dir, "where run directories go (config: runs_dir)")->option_text("DIR");
  c->add_option("--device", o.device, "cpu or cuda (falls back to the CPU with a message)")->option_text("DEVICE");
  c->add_option("--threads", o.threads, "CPU threads, 0 = all cores")->option_text("N");
  c->add_option("--steps", o.steps, "training steps, overriding the config (for a quick try)")->option_text("N");
  c->add_option("--variant", o.variants, "train only this variant of the config (repeatable), e.g. --variant baseline")
      ->option_text("NAME");
  c->add_option("--seeds", o.seeds, "train every run once per seed (a seed group per variant), e.g. --seeds 1,2,3")
      ->option_text("LIST");
  c->add_flag("--no-eval", o.no_eval, "skip the evaluations after training");
  c->add_flag("--side-by-side", o.side_by_side, "train the runs at once, sharing the cores (the compare view)");
  c->add_flag("--dry-run", o.dry_run, "validate and list the runs without training");
  add_slurm_options(c, o.slurm);
  c->footer(std::string(config_help) + "\n\n" + slurm_help());
}

// Starts a job (in `start`) and watches it: refusals before it starts exit 2, failures after 1.
template <class Start>
int watch(const std::string& program, Start&& start) {
  count_interrupts_until_exit();  // before the job exists: a SIGTERM from now on cancels it cleanly
  engine::ExperimentHandle job;
  try {
    job = start();
  } catch (const InputError& e) {
    fail(program, e.what(), exit_bad_input);
  } catch (const std::exception& e) {
    fail(program, e.what(), exit_failure);
  }
  std::shared_ptr<const engine::Snapshot> s;
  try {
    s = watch_job(job);
  } catch (const std::exception& e) {
    fail(program, e.what(), exit_failure);
  }
  return s ? job_status(*s) : exit_failure;
}

int run_job(const std::string& program, std::vector<train::ValidRun> runs, const ExperimentOptions& o) {
  if (o.dry_run) {
    for (const auto& valid : runs) {
      const config::RunConfig& r = valid.config();
      std::cout << r.name << ": " << common::choice_name(r.model.mixer.type) << " " << memory::rule_name(r.model.mixer.rule)
                << " E=" << r.model.mixer.E
                << " seed=" << r.seed << " steps=" << r.train.steps;
      // What tells Hope-Attention's arms apart: the MLP chain's periods and the parameter schedule.
      if (r.model.mlp.chain.size() > 1) {
        std::cout << " mlp.chain.every=";
        for (size_t i = 0; i < r.model.mlp.chain.size(); ++i) std::cout << (i ? "," : "") << r.model.mlp.chain[i].every;
      }
      if (r.model.param_schedule.enabled) std::cout << " param_schedule.E=" << r.model.param_schedule.E;
      std::cout << "\n";
    }
    return exit_ok;
  }
  return watch(program, [&] {
    return engine::start_training(std::move(runs), {.evaluate = !o.no_eval, .side_by_side = o.side_by_side});
  });
}

// A resumed run keeps the config it was started with: options that would change it are refused.
void refuse_with_resume(const std::string& program, const ExperimentOptions& o) {
  const auto refuse = [&](const char* option) {
    fail(program, std::string(option) + ": cannot be combined with --resume (a resumed run continues with the config "
                                        "in its config.json)",
         exit_bad_input);
  };
  if (!o.config.empty()) fail(program, "give either CONFIG or --resume RUN, not both", exit_bad_input);
  if (!o.sets.empty()) refuse("--set");
  if (o.runs_dir) refuse("--runs-dir");
  if (o.device) refuse("--device");
  if (o.threads) refuse("--threads");
  if (o.steps) refuse("--steps");
  if (!o.variants.empty()) refuse("--variant");
  if (o.seeds) refuse("--seeds");
  if (o.side_by_side) refuse("--side-by-side");
  if (o.dry_run) refuse("--dry-run");
}

// What a config expands into: its variants (`train`) or its sweep grid crossed with them (`sweep`).
enum class Expansion { variants, sweep };

// The runs of the config (only the --variant ones when given), each passed through
// train::validate_run once: what is trained, listed (--dry-run) or submitted. `experiment` gets
// the resolved experiment they were expanded from.
std::vector<train::ValidRun> load_runs(const std::string& program, const ExperimentOptions& o, Expansion expansion,
                                       config::Experiment* experiment = nullptr) {
  try {
    auto e = config::Experiment::load(shipped_or_given(program, o.config));
    apply_overrides(e, o);
    auto runs = expansion == Expansion::sweep ? e.sweep_runs() : e.runs();
    if (experiment) *experiment = e;
    auto valid = train::validate_runs(runs);
    if (o.variants.empty()) return valid;
    std::vector<train::ValidRun> picked;
    for (const auto& v : o.variants) {
      const auto before = picked.size();
      for (const auto& run : valid) {
        const config::RunConfig& r = run.config();
        if (r.name.ends_with("-" + v) || (!r.group.empty() && r.group.ends_with("-" + v))) picked.push_back(run);
      }
      if (picked.size() == before)
        throw InputError("--variant", "no variant named " + common::quoted(v) + " in " + o.config);
    }
    return picked;
  } catch (const InputError& e) {
    fail(program, e.what(), exit_bad_input);
  } catch (const std::exception& e) {
    fail(program, e.what(), exit_bad_input);
  }
}

void finish(int status) {
  if (status != exit_ok) throw CLI::RuntimeError(status);
}

// `train` / `sweep`: here, or as a Slurm job array with --slurm.
void train_or_submit(const std::string& program, const ExperimentOptions& o, Expansion expansion) {
  check_slurm_request(program, o.slurm);
  if (!o.slurm.slurm) {
    finish(run_job(program, load_runs(program, o, expansion), o));
    return;
  }
  const auto refuse = [&](bool given, const char* option, const char* why) {
    if (given) fail(program, std::string(option) + ": cannot be combined with --slurm (" + why + ")", exit_bad_input);
  };
  refuse(o.side_by_side, "--side-by-side", "each run is its own array task");
  refuse(o.dry_run, "--dry-run", "--slurm --print writes the job without submitting it");
  refuse(o.no_eval, "--no-eval", "the merge job summarises the evaluations");
  config::Experiment experiment;
  std::vector<config::RunConfig> runs;
  for (const auto& r : load_runs(program, o, expansion, &experiment)) runs.push_back(r.config());
  finish(submit_to_slurm(program, runs, experiment, o.slurm));
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto o = std::make_shared<ExperimentOptions>();
  auto* c = app.add_subcommand("train", "Train the runs of a config (its variants, one after another), then evaluate them");
  c->add_option("config", o->config, "run config (JSON)")->option_text("CONFIG");
  c->add_option("--resume", o->resume, "continue a cancelled or crashed run from its checkpoint")->option_text("RUN");
  add_common_options(c, *o);
  c->callback([o] {
    const std::string program = "proteus train";
    if (!o->resume.empty()) {
      refuse_with_resume(program, *o);
      if (o->slurm.slurm) fail(program, "--slurm: cannot be combined with --resume (run the --slurm command again: it "
                                         "resumes the job's interrupted runs)", exit_bad_input);
      check_slurm_request(program, o->slurm);  // the other --slurm options need --slurm
      if (!std::filesystem::exists(std::filesystem::path(o->resume) / runs::kConfigFile))
        fail(program, o->resume + ": not a run directory (no config.json)", exit_bad_input);
      finish(watch(program, [&] { return engine::start_resume(o->resume, {.evaluate = !o->no_eval}); }));
      return;
    }
    if (o->config.empty()) fail(program, "CONFIG: required (or --resume RUN)", exit_bad_input);
    train_or_submit(program, *o, Expansion::variants);
  });
}

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<ExperimentOptions>();
  auto* c = app.add_subcommand("sweep", "Train a grid of runs: the config's \"sweep\" fields crossed with its variants");
  c->add_option("config", o->config, "run config with a \"sweep\" grid (JSON)")->required()->option_text("CONFIG");
  add_common_options(c, *o);
  c->callback([o] { train_or_submit("proteus sweep", *o, Expansion::sweep); });
}

struct EvalOptions {
  std::vector<std::string> runs;
  std::vector<std::string> sets;
  std::string as;
};

void add_eval_command(CLI::App& app) {
  auto o = std::make_shared<EvalOptions>();
  auto* c = app.add_subcommand("eval", "Evaluate saved runs again, or under another schedule into RUN/evals/NAME");
  c->add_option("runs", o->runs, "run directories")->required()->option_text("RUN...");
  c->add_option("--set", o->sets,
                "evaluate under a changed config (with --as), e.g. --set model.mixer.N=1024 (repeatable): the "
                "schedule (model.mixer.E, N, schedule, normalize), eval.*, data.text.*, the MQAR load "
                "(data.mqar.pairs, layout, alpha), device, threads")
      ->option_text("PATH=VALUE");
  auto* as = c->add_option("--as", o->as, "write into RUN/evals/NAME (a new folder; the run's own results are left alone)")
                 ->option_text("NAME");
  c->footer("Uses each run's checkpoint.safetensors and the eval section of its config.json (edit it to\n"
            "evaluate at other lengths or depths). Without --as the results are written into the run\n"
            "directory. With --as NAME they go to RUN/evals/NAME/ with config.json (the edited config),\n"
            "delta.json (the --set overrides) and every result file in the run's formats; an existing NAME\n"
            "is refused. `proteus export RUN --evals` draws those folders beside the run.");
  c->callback([o, as] {
    const std::string program = "proteus eval";
    for (const auto& d : o->runs)
      if (!common::holds_regular_file(d, runs::kConfigFile))
        fail(program, d + ": not a run directory (no config.json, or it cannot be read)", exit_bad_input);
    // `--as ''` names no folder: it is a bad name, never "no --as" (which rewrites the run's own results).
    if (as->count() > 0 && o->as.empty())
      fail(program, "--as: must name the evaluation's folder RUN/evals/NAME, got \"\"", exit_bad_input);
    if (as->count() == 0) {
      if (!o->sets.empty())
        fail(program,
             "--set: needs --as NAME (an evaluation under another config goes to RUN/evals/NAME; the run's own "
             "results are never overwritten)",
             exit_bad_input);
      finish(watch(program, [&] { return engine::start_evaluation(o->runs); }));
      return;
    }
    engine::ConfigDelta delta;
    try {
      for (const auto& s : o->sets) delta.push_back(config::parse_override(s));
    } catch (const InputError& e) {
      fail(program, e.what(), exit_bad_input);
    }
    finish(watch(program, [&] {
      try {
        return engine::start_edited_evaluation(o->runs, o->as, delta);
      } catch (const InputError& e) {
        // The evaluation's name is --as's, under the option the user typed; a --set of "name" is the --set's.
        const bool set_name = std::any_of(delta.begin(), delta.end(), [](const auto& d) { return d.first == "name"; });
        if (e.field() == "name" && !set_name) throw InputError("--as", e.reason());
        throw;
      }
    }));
  });
}

}  // namespace proteus::cli
