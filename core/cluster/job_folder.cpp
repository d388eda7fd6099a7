// The job folder's planning, scripts, writing and reading (job_folder.hpp). No Slurm is needed
// here: submission is slurm_commands.cpp's.
#include "core/cluster/job_folder.hpp"

#include <algorithm>
#include <regex>
#include <sstream>

#include "core/cluster/sbatch_args.hpp"
#include "core/cluster/shell_quote.hpp"
#include "core/common/atomic_file.hpp"
#include "core/common/folder_walk.hpp"
#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"
#include "core/common/json_read.hpp"
#include "core/config/config_json.hpp"
#include "core/runs/staged_folder.hpp"

namespace proteus::cluster {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr common::JsonLimits kJobFileLimits{size_t{64} << 20, 64, "a job folder's file"};

bool matches(const std::string& text, const char* pattern) { return std::regex_match(text, std::regex(pattern)); }

// A path written into an #SBATCH line, which sbatch splits at white space and does not unquote.
void check_script_path(const fs::path& p, const std::string& field) {
  const std::string s = p.string();
  if (s.find_first_of(" \t\r\n'\"\\$`%") != std::string::npos)
    throw InputError(field, "the path " + common::quoted(s) +
                                " has a space, quote, '$', '%' or '\\', which an #SBATCH line cannot hold: use a "
                                "folder without them");
}

std::string header(const JobPlan& plan, const std::string& what) {
  std::string command = plan.command;  // one comment line, whatever the arguments held
  for (char& c : command)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Proteus Lab job " << plan.name << ": " << what << "\n"
    << "# Written by: " << command << "\n";
  return s.str();
}

// The #SBATCH lines both scripts share: where Slurm runs them and the user's pass-through options.
std::string shared_options(const JobPlan& plan) {
  std::ostringstream s;
  s << "#SBATCH --chdir=" << plan.workdir.string() << "\n#SBATCH --ntasks=1\n";
  if (!plan.slurm.partition.empty()) s << "#SBATCH --partition=" << plan.slurm.partition << "\n";
  if (!plan.slurm.time.empty()) s << "#SBATCH --time=" << plan.slurm.time << "\n";
  if (!plan.slurm.account.empty()) s << "#SBATCH --account=" << plan.slurm.account << "\n";
  for (const auto& a : plan.slurm.sbatch_args) s << "#SBATCH " << a << "\n";
  return s.str();
}

json options_json(const SlurmOptions& o) {
  return {{"partition", o.partition},     {"time", o.time},
          {"account", o.account},         {"cpus_per_task", o.cpus_per_task},
          {"gpus_per_task", o.gpus_per_task}, {"max_running", o.max_running},
          {"sbatch_args", o.sbatch_args}};
}

json runs_json(const std::vector<config::RunConfig>& runs) {
  json a = json::array();
  for (const auto& r : runs) a.push_back(config::to_json(r));
  return a;
}

std::string pretty(const json& j) { return j.dump(2) + "\n"; }

}  // namespace

void check_slurm_options(const SlurmOptions& o) {
  // Partition and account: Slurm names (a partition may be a comma-separated list).
  if (!o.partition.empty() && !matches(o.partition, "[A-Za-z0-9_.,-]{1,128}"))
    throw InputError("--partition", "expected a Slurm partition name (letters, digits, '_', '.', '-', ','), got " +
                                        common::quoted(o.partition));
  if (!o.account.empty() && !matches(o.account, "[A-Za-z0-9_.-]{1,128}"))
    throw InputError("--account", "expected a Slurm account name (letters, digits, '_', '.', '-'), got " +
                                      common::quoted(o.account));
  if (!o.time.empty() && !matches(o.time, "\\d{1,6}(:\\d{1,2}){0,2}|\\d{1,4}-\\d{1,2}(:\\d{1,2}){0,2}|UNLIMITED|INFINITE"))
    throw InputError("--time", "expected MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS, got " +
                                   common::quoted(o.time));
  if (o.cpus_per_task < 0 || o.cpus_per_task > 4096)
    throw InputError("--cpus-per-task", "must be in [1, 4096], got " + std::to_string(o.cpus_per_task));
  if (o.gpus_per_task < 0 || o.gpus_per_task > 64)
    throw InputError("--gpus-per-task", "must be in [1, 64], got " + std::to_string(o.gpus_per_task));
  if (o.max_running < 0 || o.max_running > 100000)
    throw InputError("--max-running", "must be in [1, 100000], got " + std::to_string(o.max_running));
  for (size_t i = 0; i < o.sbatch_args.size(); ++i)
    check_sbatch_arg(o.sbatch_args[i], "--sbatch-arg[" + std::to_string(i) + "]");
}

JobPlan plan_job(std::vector<config::RunConfig> runs, config::Experiment experiment, const std::string& name,
                 const SlurmOptions& slurm, const fs::path& proteus, const fs::path& workdir,
                 const std::string& command) {
  check_slurm_options(slurm);
  if (runs.empty()) throw InputError("runs", "the config expands to no runs");
  JobPlan plan;
  plan.name = name;
  if (plan.name.empty()) plan.name = experiment.given_name().value_or("");
  if (plan.name.empty()) plan.name = runs.front().name;
  if (!matches(plan.name, "[A-Za-z0-9][A-Za-z0-9._-]{0,99}"))
    throw InputError(name.empty() ? "name" : "--job-name",
                     "a job's name must be letters, digits, '.', '_' or '-' (at most 100), got " +
                         common::quoted(plan.name));
  plan.workdir = fs::absolute(workdir).lexically_normal();
  plan.proteus = fs::absolute(proteus).lexically_normal();
  for (size_t i = 0; i < runs.size(); ++i) {
    auto& r = runs[i];
    const fs::path dir = (plan.workdir / r.runs_dir).lexically_normal();
    if (i == 0) plan.runs_dir = dir;
    if (dir != plan.runs_dir)
      throw InputError("runs_dir", "every run of a job goes to one runs folder, got " + plan.runs_dir.string() +
                                       " and " + dir.string() + " (run " + r.name + ")");
    r.runs_dir = dir.string();
    if (slurm.cpus_per_task > 0 && r.threads == 0) r.threads = slurm.cpus_per_task;
    for (size_t j = 0; j < i; ++j)
      if (runs[j].name == r.name)
        throw InputError("runs", "two runs are named " + common::quoted(r.name) + ": a task finds its run by name");
  }
  check_script_path(plan.runs_dir, "runs_dir");
  check_script_path(plan.workdir, "the working folder");
  // The binary is named only on the scripts' exec lines, shell-quoted: any folder holds it.
  plan.experiment = std::move(experiment);
  plan.runs = std::move(runs);
  plan.slurm = slurm;
  plan.command = command;
  return plan;
}

std::string array_script(const JobPlan& plan) {
  const auto dir = plan.job_dir().string();
  std::ostringstream s;
  s << header(plan, std::to_string(plan.runs.size()) + " runs, one array task each (runs.json by index)")
    << "# A task trains and evaluates one run; run again it skips a finished run, resumes an interrupted\n"
    << "# one from its checkpoint and leaves alone a run another task holds.\n"
    << "#SBATCH --job-name=proteus-" << plan.name << "\n"
    << "#SBATCH --array=0-" << plan.runs.size() - 1
    << (plan.slurm.max_running > 0 ? "%" + std::to_string(plan.slurm.max_running) : "") << "\n"
    << "#SBATCH --output=" << dir << "/logs/task-%A_%a.out\n"
    << shared_options(plan);
  if (plan.slurm.cpus_per_task > 0) s << "#SBATCH --cpus-per-task=" << plan.slurm.cpus_per_task << "\n";
  if (plan.slurm.gpus_per_task > 0) s << "#SBATCH --gpus-per-task=" << plan.slurm.gpus_per_task << "\n";
  s << "exec " << shell_quoted(plan.proteus.string()) << " job-task " << shell_quoted(dir)
    << " --index \"$SLURM_ARRAY_TASK_ID\"\n";
  return s.str();
}

std::string merge_script(const JobPlan& plan) {
  const auto dir = plan.job_dir().string();
  std::ostringstream s;
  s << header(plan, "the merge after the array: seed-group summaries, figures, summary.json")
    << "# Submitted with --dependency=afterany:<array id>, so it runs however the tasks ended.\n"
    << "#SBATCH --job-name=proteus-" << plan.name << "-merge\n"
    << "#SBATCH --output=" << dir << "/logs/merge-%j.out\n"
    << shared_options(plan)
    << "exec " << shell_quoted(plan.proteus.string()) << " job-merge " << shell_quoted(dir) << "\n";
  return s.str();
}

void write_job_folder(const JobPlan& plan) {
  const fs::path dir = plan.job_dir();
  const json runs = runs_json(plan.runs);
  json names = json::array();
  for (const auto& r : plan.runs) names.push_back(r.name);
  const json job = {{"name", plan.name},
                    {"proteus", plan.proteus.string()},
                    {"workdir", plan.workdir.string()},
                    {"runs_dir", plan.runs_dir.string()},
                    {"command", plan.command},
                    {"written", utc_now()},
                    {"slurm", options_json(plan.slurm)},
                    {"runs", names}};
  if (fs::exists(dir / kRunsFile)) {
    // Resubmitting: the same runs keep their folder (and their task records); other runs are refused.
    json existing;
    try {
      existing = common::read_json_file(dir / kRunsFile, kJobFileLimits);
    } catch (const InputError& e) {
      throw InputError("--job-name", dir.string() + " exists and its runs.json cannot be read (" + e.reason() +
                                         "): give another --job-name or remove that folder");
    }
    bool same = existing.is_array() && existing.size() == runs.size();
    for (size_t i = 0; same && i < runs.size(); ++i) same = same_run(existing[i], runs[i]);
    if (!same)
      throw InputError("--job-name", dir.string() + " holds another job's runs (another config, seeds or --set): "
                                     "give another --job-name, or remove that folder");
  } else {
    // A job folder is whole or absent (runs::StagedFolder).
    runs::StagedFolder staged(dir.parent_path(), plan.name);
    common::write_file_atomically(staged.path() / kRunsFile, pretty(runs));
    common::write_file_atomically(staged.path() / "experiment.json", pretty(plan.experiment.to_json()));
    common::write_file_atomically(staged.path() / kSubmissionsFile, "[]\n");
    fs::create_directories(staged.path() / "logs");
    fs::create_directories(staged.path() / "tasks");
    if (!staged.commit_as(plan.name))
      throw fs::filesystem_error("another job folder appeared in its place", dir,
                                 std::make_error_code(std::errc::directory_not_empty));
  }
  common::write_file_atomically(dir / kRunsFile, pretty(runs));  // this submission's threads
  common::write_file_atomically(dir / kJobFile, pretty(job));
  common::write_file_atomically(dir / kArrayScript, array_script(plan));
  common::write_file_atomically(dir / kMergeScript, merge_script(plan));
  fs::create_directories(dir / "logs");
  fs::create_directories(dir / "tasks");
}

bool same_run(const json& a, const json& b) {
  if (!a.is_object() || !b.is_object()) return a == b;
  json x = a, y = b;
  x.erase("threads");
  y.erase("threads");
  return x == y;
}

fs::path JobRecord::run_dir(size_t index) const { return fs::path(runs.at(index).runs_dir) / runs.at(index).name; }

JobRecord read_job(const fs::path& job_dir) {
  if (!fs::is_regular_file(job_dir / kRunsFile))
    throw InputError(job_dir.string(), "not a job folder (no runs.json)");
  JobRecord job;
  job.dir = job_dir;
  job.name = job_dir.filename().string();
  const json runs = common::read_json_file(job_dir / kRunsFile, kJobFileLimits);
  if (!runs.is_array() || runs.empty()) throw InputError((job_dir / kRunsFile).string(), "expected a list of run configs");
  for (size_t i = 0; i < runs.size(); ++i) {
    try {
      job.runs.push_back(config::parse_run_config(runs[i]));
    } catch (const InputError& e) {
      throw InputError((job_dir / kRunsFile).string() + ": [" + std::to_string(i) + "]." + e.field(), e.reason());
    }
  }
  if (fs::is_regular_file(job_dir / kSubmissionsFile)) {
    const json subs = common::read_json_file(job_dir / kSubmissionsFile, kJobFileLimits);
    if (!subs.is_array()) throw InputError((job_dir / kSubmissionsFile).string(), "expected a list");
    for (const auto& s : subs) {
      if (!s.is_object()) throw InputError((job_dir / kSubmissionsFile).string(), "expected a list of objects");
      const auto text = [&](const char* key) {
        return s.contains(key) && s[key].is_string() ? s[key].get<std::string>() : std::string();
      };
      job.submissions.push_back({text("array_job"), text("merge_job"), text("submitted"), text("error")});
    }
  }
  return job;
}

std::vector<fs::path> list_jobs(const fs::path& runs_dir, std::vector<std::string>* unreadable) {
  std::vector<fs::path> jobs;
  for (const auto& dir : common::list_subfolders(runs_dir / "jobs", unreadable))
    if (!runs::is_staging_name(dir.filename().string()) && common::holds_regular_file(dir, kRunsFile, unreadable))
      jobs.push_back(dir);
  return jobs;
}

void record_submission(const fs::path& job_dir, const Submission& s) {
  json subs = json::array();
  if (fs::is_regular_file(job_dir / kSubmissionsFile)) {
    subs = common::read_json_file(job_dir / kSubmissionsFile, kJobFileLimits);
    if (!subs.is_array()) subs = json::array();
  }
  json entry = {{"array_job", s.array_job}, {"merge_job", s.merge_job}, {"submitted", s.submitted}};
  if (!s.error.empty()) entry["error"] = s.error;
  subs.push_back(entry);
  common::write_file_atomically(job_dir / kSubmissionsFile, pretty(subs));
}

}  // namespace proteus::cluster
