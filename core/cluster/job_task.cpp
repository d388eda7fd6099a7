// One array task and the merge (job_task.hpp), over the engine's training and evaluation jobs.
#include "core/cluster/job_task.hpp"

#include <unistd.h>

#include <cstdlib>

#include "core/common/atomic_file.hpp"
#include "core/common/input_error.hpp"
#include "core/config/config_json.hpp"
#include "core/engine/seed_groups.hpp"
#include "core/runs/run_dir.hpp"
#include "core/runs/run_lock.hpp"
#include "core/train/checkpoint.hpp"

namespace proteus::cluster {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string host_name() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? name : "";
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

const char* action_name(TaskAction a) {
  switch (a) {
    case TaskAction::train: return "train";
    case TaskAction::resume: return "resume";
    case TaskAction::evaluate: return "evaluate";
    case TaskAction::restart: return "restart";
    case TaskAction::skip: return "skip";
    case TaskAction::leave: return "leave";
  }
  return "train";
}

TaskDecision decide_task(const JobRecord& job, size_t index) {
  const fs::path dir = job.run_dir(index);
  if (!fs::exists(dir)) return {TaskAction::train, "no run folder yet"};
  if (!fs::is_regular_file(dir / runs::kConfigFile))
    throw InputError(dir.string(), "exists but is not a run (no config.json): move it away and resubmit");
  if (runs::RunLock::held(dir)) return {TaskAction::leave, "another writer holds it"};
  const auto reader = runs::RunReader::open(dir);
  // A run of the same name and another config (a local `proteus train` of something else) is never
  // taken over; one of the same config (another preset's identical baseline) is this task's run.
  if (!same_run(config::to_json(reader.run_config()), config::to_json(job.runs[index])))
    throw InputError(dir.string(), "holds a run of another config than task " + std::to_string(index) +
                                       "'s (runs.json): move it away and resubmit");
  const auto status = reader.status();
  const bool checkpoint = fs::is_regular_file(dir / train::kCheckpointFile);
  if (status.state == runs::RunState::finished && run_evaluated(job.runs[index], dir))
    return {TaskAction::skip, "finished and evaluated"};
  if (status.state == runs::RunState::finished && checkpoint) return {TaskAction::evaluate, "trained, not evaluated"};
  if (checkpoint) {
    const bool writer_active = false;  // this task is the run's only writer, and it has not started
    const char* state = runs::observed_state_name(runs::observed_state(status, writer_active));
    return {TaskAction::resume,
            "stopped at step " + std::to_string(status.step) + " (" + state + "): resumes from its checkpoint"};
  }
  return {TaskAction::restart, "no checkpoint to resume from: trained again from step 0"};
}

int parse_task_index(const std::string& text) {
  if (text.empty())
    throw InputError("--index", "is empty: SLURM_ARRAY_TASK_ID is not set (run this as a task of the job's array, "
                                "or give the index)");
  if (text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
    throw InputError("--index", "expected a task index (a whole number from 0, digits only), got " + common::quoted(text));
  return std::stoi(text);
}

TaskOutcome run_task(const fs::path& job_dir, int index, const JobWatcher& watch, std::ostream& log) {
  const JobRecord job = read_job(job_dir);
  if (index < 0 || static_cast<size_t>(index) >= job.runs.size())
    throw InputError("--index", "must be in [0, " + std::to_string(job.runs.size() - 1) + "] (the job has " +
                                    std::to_string(job.runs.size()) + " runs), got " + std::to_string(index));
  const size_t i = static_cast<size_t>(index);
  const std::string name = job.runs[i].name;
  const std::string prefix = "task " + std::to_string(i) + " (" + name + "): ";
  fs::create_directories(task_dir(job_dir, i));
  runs::RunLock lock;
  try {
    lock = runs::RunLock::acquire(task_dir(job_dir, i));
  } catch (const InputError&) {
    // Its holder owns the record too: nothing is written.
    log << prefix << "another task holds this run: left alone\n";
    return {{TaskState::held, "another task holds this run", env("SLURM_JOB_ID"), host_name(), ::getpid(), ""}, 0};
  }
  TaskOutcome out;
  out.record = {TaskState::running, "", env("SLURM_JOB_ID"), host_name(), ::getpid(), ""};
  write_task_record(job_dir, i, out.record);
  const auto finish = [&](TaskState state, const std::string& message, int status) {
    out.record.state = state;
    out.record.message = message;
    out.exit_status = status;
    write_task_record(job_dir, i, out.record);
    log << prefix << task_state_name(state) << (message.empty() ? "" : ": " + message) << "\n";
    return out;
  };

  TaskDecision d;
  try {
    d = decide_task(job, i);
  } catch (const std::exception& e) {
    return finish(TaskState::failed, e.what(), 1);
  }
  log << prefix << action_name(d.action) << ": " << d.why << "\n" << std::flush;
  if (d.action == TaskAction::skip) return finish(TaskState::skipped, d.why, 0);
  if (d.action == TaskAction::leave) return finish(TaskState::held, d.why, 0);

  const std::string run_dir = job.run_dir(i).string();
  engine::ExperimentHandle handle;
  try {
    if (d.action == TaskAction::restart) fs::remove_all(run_dir);  // nothing in it can be resumed
    if (d.action == TaskAction::train || d.action == TaskAction::restart)
      handle = engine::start_training({job.runs[i]}, {.evaluate = true});
    else if (d.action == TaskAction::resume)
      handle = engine::start_resume(run_dir, {.evaluate = true});
    else
      handle = engine::start_evaluation({run_dir});
  } catch (const std::exception& e) {
    return finish(TaskState::failed, e.what(), 1);
  }
  const auto snapshot = watch(handle);
  if (!snapshot || snapshot->runs.empty()) {
    const std::string why = handle.error_message();
    return finish(TaskState::failed, why.empty() ? "the engine's job ended without a result" : why, 1);
  }
  const auto& r = snapshot->runs.front();
  if (r.state == engine::RunPhase::finished) return finish(TaskState::finished, "", 0);
  if (r.state == engine::RunPhase::cancelled) return finish(TaskState::cancelled, r.message, 130);
  return finish(TaskState::failed, r.message.empty() ? std::string("ended ") + engine::run_phase_name(r.state) : r.message,
                1);
}

MergeResult merge_job(const fs::path& job_dir, const FigureWriter& draw) {
  const JobRecord job = read_job(job_dir);
  MergeResult m;
  QueueView over;  // after the array: no task of it is queued any more
  over.available = true;
  m.runs = job_states(job, &over);
  std::vector<std::string> done;
  for (const auto& r : m.runs)
    if (r.state == JobRunState::finished) done.push_back(r.run_dir.string());
  m.finished = done.size();
  try {
    m.groups = engine::write_seed_group_results(done, &m.notes);
  } catch (const std::exception& e) {
    m.notes.push_back(std::string("seed group summaries not written: ") + e.what());
  }
  if (draw && !done.empty()) {
    try {
      m.figures = draw(done, job_dir / "figures");
    } catch (const std::exception& e) {
      m.notes.push_back(std::string("figures not drawn: ") + e.what());
    }
  } else if (!draw) {
    m.notes.push_back("figures not drawn: this proteus was built without cairo");
  }

  json runs = json::array(), groups = json::array();
  json counts = json::object();
  for (JobRunState s : kJobRunStates) counts[job_run_state_name(s)] = 0;
  for (const auto& r : m.runs) {
    const char* state = job_run_state_name(r.state);
    runs.push_back({{"index", r.index}, {"name", r.name}, {"state", state}, {"reason", r.reason},
                    {"run_dir", r.run_dir.string()}});
    counts[state] = counts[state].get<int>() + 1;
  }
  for (const auto& g : m.groups) groups.push_back(g.string());
  const json summary = {{"job", job.name}, {"merged", utc_now()}, {"counts", counts}, {"runs", runs},
                        {"groups", groups}, {"figures", m.figures}, {"notes", m.notes}};
  common::write_file_atomically(job_dir / "summary.json", summary.dump(2) + "\n");
  return m;
}

}  // namespace proteus::cluster
