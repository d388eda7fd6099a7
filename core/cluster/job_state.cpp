// A job's runs classified (job_state.hpp): the rules in classify(), the reading in gather_facts().
#include "core/cluster/job_state.hpp"

#include "core/common/atomic_file.hpp"
#include "core/common/json_read.hpp"
#include "core/runs/run_dir.hpp"
#include "core/runs/run_lock.hpp"

namespace proteus::cluster {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr common::JsonLimits kTaskRecordLimits{size_t{1} << 20, 16, "a task record"};
constexpr const char* kTaskRecordFile = "task.json";

bool queued_state(const std::string& s) {
  return s == "PENDING" || s == "CONFIGURING" || s == "REQUEUED" || s == "REQUEUE_HOLD" || s == "SUSPENDED";
}
bool running_state(const std::string& s) { return s == "RUNNING" || s == "COMPLETING" || s == "STAGE_OUT"; }

}  // namespace

const char* task_state_name(TaskState s) {
  switch (s) {
    case TaskState::running: return "running";
    case TaskState::finished: return "finished";
    case TaskState::failed: return "failed";
    case TaskState::cancelled: return "cancelled";
    case TaskState::skipped: return "skipped";
    case TaskState::held: return "held";
  }
  return "failed";
}

std::optional<TaskState> parse_task_state(const std::string& name) {
  for (TaskState s : {TaskState::running, TaskState::finished, TaskState::failed, TaskState::cancelled,
                      TaskState::skipped, TaskState::held})
    if (name == task_state_name(s)) return s;
  return std::nullopt;
}

const char* job_run_state_name(JobRunState s) {
  switch (s) {
    case JobRunState::queued: return "queued";
    case JobRunState::running: return "running";
    case JobRunState::finished: return "finished";
    case JobRunState::failed: return "failed";
    case JobRunState::interrupted: return "interrupted";
  }
  return "failed";
}

fs::path task_dir(const fs::path& job_dir, size_t index) { return job_dir / "tasks" / std::to_string(index); }

std::optional<TaskRecord> read_task_record(const fs::path& job_dir, size_t index) {
  const fs::path file = task_dir(job_dir, index) / kTaskRecordFile;
  if (!fs::is_regular_file(file)) return std::nullopt;
  try {
    const json j = common::read_json_file(file, kTaskRecordLimits);
    const auto text = [&](const char* key) {
      return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
    };
    const long pid = j.contains("pid") && j["pid"].is_number_integer() ? j["pid"].get<long>() : 0;
    const std::optional<TaskState> state = parse_task_state(text("state"));
    if (!state)
      return TaskRecord{TaskState::failed,
                        "unreadable task record: state " + common::quoted(text("state")) +
                            " is not running, finished, failed, cancelled, skipped or held",
                        text("slurm_job"), text("host"), 0, text("updated")};
    return TaskRecord{*state, text("message"), text("slurm_job"), text("host"), pid, text("updated")};
  } catch (const std::exception& e) {
    return TaskRecord{TaskState::failed, std::string("unreadable task record: ") + e.what(), "", "", 0, ""};
  }
}

void write_task_record(const fs::path& job_dir, size_t index, const TaskRecord& r) {
  const fs::path dir = task_dir(job_dir, index);
  fs::create_directories(dir);
  const json j = {{"state", task_state_name(r.state)}, {"message", r.message}, {"slurm_job", r.slurm_job},
                  {"host", r.host},       {"pid", r.pid},           {"updated", r.updated.empty() ? utc_now() : r.updated}};
  common::write_file_atomically(dir / kTaskRecordFile, j.dump(2) + "\n");
}

bool run_evaluated(const config::RunConfig& cfg, const fs::path& run_dir) {
  if (cfg.eval.per_position.enabled) return fs::is_regular_file(run_dir / "per_position.json");
  try {
    return !runs::RunReader::open(run_dir).results().empty();
  } catch (const InputError&) {
    return false;
  }
}

RunJobState classify(const RunFacts& f) {
  using runs::ObservedState;
  const std::string task_failure = f.task && f.task->state == TaskState::failed ? f.task->message : "";
  // Someone works on it now: a task holds its lock, or a writer holds the run's.
  if (f.task_active || (f.run_exists && f.run_state == ObservedState::running))
    return {JobRunState::running, f.run_exists ? (f.run_message.empty() ? "training" : f.run_message) : "starting"};
  if (f.run_exists) {
    if (f.run_state == ObservedState::finished && f.evaluated) return {JobRunState::finished, f.run_message};
    if (f.run_state == ObservedState::failed) return {JobRunState::failed, f.run_message};
    if (!task_failure.empty()) return {JobRunState::failed, task_failure};  // trained, then the evaluation failed
    // Stopped part-way (killed, cancelled, a time limit, or trained but not evaluated): it resumes.
    if (queued_state(f.queue_state)) return {JobRunState::queued, "resumes when its task starts"};
    if (running_state(f.queue_state)) return {JobRunState::running, "its task is starting"};
    const std::string why = f.run_state == ObservedState::finished    ? "trained but not evaluated"
                            : f.run_state == ObservedState::cancelled ? "cancelled (" + f.run_message + ")"
                                                                      : "stopped at its last checkpoint";
    return {JobRunState::interrupted, why + "; resubmit to finish it"};
  }
  if (!task_failure.empty()) return {JobRunState::failed, task_failure};
  if (queued_state(f.queue_state))
    return {JobRunState::queued, f.queue_reason.empty() || f.queue_reason == "None" ? "" : f.queue_reason};
  if (running_state(f.queue_state)) return {JobRunState::running, "its task is starting"};
  if (f.task && f.task->state == TaskState::cancelled)
    return {JobRunState::interrupted, "its task was cancelled before the run began"};
  if (f.submitted && f.queue_known)
    return {JobRunState::failed,
            "its array task left the queue without making the run (cancelled, or see its log in logs/)"};
  return {JobRunState::queued, f.submitted ? "" : "not submitted"};
}

RunFacts gather_facts(const JobRecord& job, size_t index, const QueueView* queue) {
  RunFacts f;
  const fs::path run_dir = job.run_dir(index);
  f.task = read_task_record(job.dir, index);
  f.task_active = runs::RunLock::held(task_dir(job.dir, index));
  f.submitted = !job.submissions.empty() &&
                std::any_of(job.submissions.begin(), job.submissions.end(),
                            [](const Submission& s) { return !s.array_job.empty(); });
  if (queue && queue->available) {
    f.queue_known = true;
    if (auto it = queue->tasks.find(static_cast<int>(index)); it != queue->tasks.end()) {
      f.queue_state = it->second.state;
      f.queue_reason = it->second.reason;
    }
  }
  try {
    const auto reader = runs::RunReader::open(run_dir);
    f.run_exists = true;
    const auto status = reader.status();
    f.run_state = runs::observed_state(status, reader.writer_active());
    f.run_message = status.message;
    f.evaluated = run_evaluated(job.runs[index], run_dir);
  } catch (const InputError& e) {
    if (fs::exists(run_dir / runs::kConfigFile)) {
      f.run_exists = true;
      f.run_state = runs::ObservedState::failed;
      f.run_message = std::string("unreadable run folder: ") + e.what();
    }
  }
  return f;
}

std::vector<RunJobView> job_states(const JobRecord& job, const QueueView* queue) {
  std::vector<RunJobView> out;
  for (size_t i = 0; i < job.runs.size(); ++i) {
    try {
      const auto facts = gather_facts(job, i, queue);
      const auto s = classify(facts);
      out.push_back({i, job.runs[i].name, job.run_dir(i), s.state, s.reason, facts.queue_state});
    } catch (const std::exception& e) {
      // A run or task folder that cannot be read (a symlink loop, no permission) is named, not fatal.
      out.push_back({i, job.runs[i].name, job.run_dir(i), JobRunState::failed, std::string("cannot read it: ") + e.what(), ""});
    }
  }
  return out;
}

QueueView query_job_queue(const JobRecord& job) {
  std::vector<std::string> ids, arrays;
  for (const auto& s : job.submissions) {
    if (!s.array_job.empty()) ids.push_back(s.array_job), arrays.push_back(s.array_job);
    if (!s.merge_job.empty()) ids.push_back(s.merge_job);
  }
  return query_queue(ids, arrays);
}

std::vector<std::string> failed_run_notes(const fs::path& runs_dir) {
  std::vector<std::string> notes;
  for (const auto& dir : list_jobs(runs_dir, &notes)) {
    try {
      const auto job = read_job(dir);
      for (const auto& r : job_states(job, nullptr))
        if (r.state == JobRunState::failed)
          notes.push_back("job " + job.name + ": run " + r.name + " (task " + std::to_string(r.index) + ") failed: " +
                          r.reason);
    } catch (const std::exception& e) {
      notes.push_back("job folder " + dir.string() + ": " + e.what());
    }
  }
  return notes;
}

}  // namespace proteus::cluster
