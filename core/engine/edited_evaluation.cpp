#include "core/engine/edited_evaluation.hpp"

#include <stdexcept>

#include "core/common/atomic_file.hpp"
#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"
#include "core/config/config_json.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"
#include "core/train/checkpoint.hpp"
#include "core/train/run_validation.hpp"

namespace proteus::engine {

std::filesystem::path evaluation_folder(const std::string& run_dir, const std::string& name) {
  bool plain = !name.empty() && name.size() <= 128 && name.front() != '.';
  for (char c : name)
    plain &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
             c == '_';
  if (!plain)
    throw InputError("name", "must be a plain folder name (letters, digits, '.', '-', '_', not starting with '.'), got " +
                                 common::quoted(name));
  return std::filesystem::path(run_dir) / kEvalsFolder / name;
}

namespace {

// The name is taken: says by what (a finished evaluation, or one that failed, was cancelled or was
// interrupted, and why) and how to retry, so a failed attempt never blocks its name silently.
InputError taken(const std::filesystem::path& dir) {
  const std::string where = dir.generic_string();
  std::string what;
  try {
    const auto reader = runs::RunReader::open(dir);
    const auto status = reader.status();
    const runs::ObservedState state = reader.observed_state();
    if (state == runs::ObservedState::running)
      return InputError("name", where + " already exists: another evaluation is writing it now; choose another name");
    what = " already exists: an evaluation that " + (state == runs::ObservedState::finished ? std::string("finished") : std::string("ended ") + runs::observed_state_name(state)) +
           (status.message.empty() ? "" : " (" + status.message + ")");
  } catch (const std::exception&) {
    what = " already exists, and is not an evaluation this command wrote (no readable config.json and status.json)";
  }
  return InputError("name", where + what + ": choose another name, or remove that folder (rm -r " + where +
                                ") to evaluate again under this one");
}

}  // namespace

void check_edited_evaluation(const std::string& run_dir, const std::string& name, const ConfigDelta& delta) {
  const auto dir = evaluation_folder(run_dir, name);
  const auto run = TrainedRun::open(run_dir);
  train::validate_run(edited_config(run, delta));
  if (std::filesystem::exists(dir)) throw taken(dir);
}

std::filesystem::path evaluate_into_folder(const std::string& run_dir, const std::string& name,
                                           const ConfigDelta& delta, const eval::EvalProgress& progress) {
  const auto dir = evaluation_folder(run_dir, name);
  const auto run = TrainedRun::open(run_dir);
  const auto cfg = edited_config(run, delta);
  train::validate_run(cfg);
  if (std::filesystem::exists(dir)) throw taken(dir);
  const int64_t step = train::checkpoint_step(run.checkpoint);  // reads the whole file: a corrupt one makes no folder
  const nlohmann::json delta_record = {
      {"run", std::filesystem::absolute(run_dir).lexically_normal().generic_string()},
      {"run_name", run.name},
      {"checkpoint_step", step},
      {"set", delta_json(delta)}};
  // The folder appears with its config, delta and "running" status, or not at all; of two
  // evaluations racing for one name, the second is refused here.
  auto made = runs::RunWriter::create_exactly(
      dir.parent_path(), name, config::to_json(cfg),
      "evaluating " + run.name + " under " + delta_json(delta).dump(), step,
      [&](const std::filesystem::path& staging) {
        common::write_file_atomically(staging / kDeltaFile, delta_record.dump(2) + "\n");
      });
  if (!made) throw taken(dir);
  runs::RunWriter& writer = *made;
  bool stopped = false;
  try {
    const auto report = evaluate_trained(run, cfg, eval::EvalParts::all(), [&](const std::string& phase, double f) {
      stopped = progress && !progress(phase, f);
      return !stopped;
    });
    runs::write_eval_report(writer, report);
  } catch (const std::exception& e) {
    // Found late (held-out text without a held-out split, a full disk): the folder says failed and
    // why, and the error says how to retry.
    writer.set_status(runs::RunState::failed, e.what(), step);
    throw std::runtime_error(std::string(e.what()) + " (" + dir.generic_string() +
                             " says failed: remove it to evaluate again under this name)");
  }
  writer.set_status(stopped ? runs::RunState::cancelled : runs::RunState::finished,
                    stopped ? "cancelled during evaluation" : "", step);
  return dir;
}

ExperimentHandle start_edited_evaluation(std::vector<std::string> run_dirs, std::string name, ConfigDelta delta) {
  for (const auto& d : run_dirs) check_edited_evaluation(d, name, delta);  // refused at once, in the caller's thread
  return ExperimentHandle::start([dirs = std::move(run_dirs), name = std::move(name),
                                  delta = std::move(delta)](JobContext<Snapshot>& ctx) {
    Snapshot s;
    for (const auto& d : dirs) {
      RunView v;
      v.name = std::filesystem::path(d).filename().string() + "/" + kEvalsFolder + "/" + name;
      v.run_dir = evaluation_folder(d, name).string();
      s.runs.push_back(v);
    }
    const auto publish = [&] {
      ctx.publish(std::make_shared<const Snapshot>(s));
      const double n = static_cast<double>(dirs.size());
      double done = 0;
      for (const auto& r : s.runs) done += r.state == RunPhase::queued ? 0 : r.state == RunPhase::evaluating ? 0.5 : 1;
      ctx.set_progress({s.done ? 1.0 : done / n, s.current >= 0 ? "evaluating " + s.runs[s.current].name : "", -1});
    };
    publish();
    for (size_t i = 0; i < dirs.size() && !ctx.cancelled(); ++i) {
      auto& r = s.runs[i];
      s.current = static_cast<int>(i);
      r.state = RunPhase::evaluating;
      publish();
      try {
        evaluate_into_folder(dirs[i], name, delta, [&](const std::string& phase, double) {
          r.message = phase;
          publish();
          return !ctx.cancelled();
        });
        r.report = std::make_shared<const eval::EvalReport>(runs::read_eval_report(runs::RunReader::open(r.run_dir)));
        r.state = ctx.cancelled() ? RunPhase::cancelled : RunPhase::finished;
        r.message.clear();
      } catch (const std::exception& e) {
        r.state = RunPhase::failed;
        r.message = e.what();
        s.messages.push_back(r.name + ": " + e.what());
      }
      publish();
    }
    s.done = true;
    publish();
  });
}

}  // namespace proteus::engine
