#include "core/engine/edited_evaluation.hpp"

#include "core/common/atomic_file.hpp"
#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"
#include "core/config/config_json.hpp"
#include "core/runs/run_dir.hpp"
#include "core/train/checkpoint.hpp"

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

InputError taken(const std::filesystem::path& dir) {
  return InputError("name", dir.generic_string() +
                                " already exists: choose another name (an evaluation never writes over another)");
}

}  // namespace

void check_edited_evaluation(const std::string& run_dir, const std::string& name, const ConfigDelta& delta) {
  const auto dir = evaluation_folder(run_dir, name);
  const auto run = TrainedRun::open(run_dir);
  validate_run(edited_config(run, delta));
  if (std::filesystem::exists(dir)) throw taken(dir);
}

std::filesystem::path evaluate_into_folder(const std::string& run_dir, const std::string& name,
                                           const ConfigDelta& delta, const eval::EvalProgress& progress) {
  const auto dir = evaluation_folder(run_dir, name);
  const auto run = TrainedRun::open(run_dir);
  const auto cfg = edited_config(run, delta);
  validate_run(cfg);
  std::filesystem::create_directories(dir.parent_path());
  // mkdir is the arbiter: of two evaluations racing for one name, the second is refused here.
  if (!std::filesystem::create_directory(dir)) throw taken(dir);
  common::write_file_atomically(dir / runs::kConfigFile, config::to_json(cfg).dump(2) + "\n");
  auto writer = runs::RunWriter::reopen(dir);
  const int64_t step = train::checkpoint_step(run.checkpoint);
  writer.set_status(runs::RunState::running, "evaluating " + run.name + " under " + delta_json(delta).dump(), step);
  writer.write_json(kDeltaFile, {{"run", std::filesystem::absolute(run_dir).lexically_normal().generic_string()},
                                 {"run_name", run.name},
                                 {"checkpoint_step", step},
                                 {"set", delta_json(delta)}});
  bool stopped = false;
  try {
    const auto report = evaluate_trained(run, cfg, eval::EvalParts::all(), [&](const std::string& phase, double f) {
      stopped = progress && !progress(phase, f);
      return !stopped;
    });
    eval::write_eval_report(writer, report);
  } catch (const std::exception& e) {
    writer.set_status(runs::RunState::failed, e.what(), step);
    throw;
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
      for (const auto& r : s.runs) done += r.state == "queued" ? 0 : r.state == "evaluating" ? 0.5 : 1;
      ctx.set_progress({s.done ? 1.0 : done / n, s.current >= 0 ? "evaluating " + s.runs[s.current].name : "", -1});
    };
    publish();
    for (size_t i = 0; i < dirs.size() && !ctx.cancelled(); ++i) {
      auto& r = s.runs[i];
      s.current = static_cast<int>(i);
      r.state = "evaluating";
      publish();
      try {
        evaluate_into_folder(dirs[i], name, delta, [&](const std::string& phase, double) {
          r.message = phase;
          publish();
          return !ctx.cancelled();
        });
        r.report = std::make_shared<const eval::EvalReport>(eval::read_eval_report(runs::RunReader::open(r.run_dir)));
        r.state = ctx.cancelled() ? "cancelled" : "finished";
        r.message.clear();
      } catch (const std::exception& e) {
        r.state = "failed";
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
