// `--slurm`, `proteus jobs`, `proteus job-task` and `proteus job-merge` (job_commands.hpp).
#include "app/cli/job_commands.hpp"

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>

#include "app/cli/command_support.hpp"
#include "app/cli/progress_line.hpp"
#include "core/cluster/job_state.hpp"
#include "core/cluster/job_task.hpp"
#include "core/cluster/shell_quote.hpp"
#include "core/cluster/slurm_commands.hpp"
#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"
#if PROTEUS_HAVE_FIGURES
#include "core/figures/figure_export.hpp"
#include "core/figures/figure_set.hpp"
#endif
#include "core/runs/run_dir.hpp"

namespace proteus::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* slurm_help_text = R"(With --slurm the runs go to a Slurm job array instead: RUNS_DIR/jobs/NAME/ gets runs.json (every
run's config, by task index), array.sbatch (one task per run: `proteus job-task JOB --index I`),
merge.sbatch (after the array, afterany: seed-group summaries, figures, summary.json), and both are
submitted with sbatch. --print writes them without submitting. The same command again is safe:
finished runs are skipped, interrupted ones resume from their checkpoints, a run another task holds
is left alone. `proteus jobs RUNS_DIR` shows each run as queued, running, finished, failed or
interrupted.)";

fs::path own_binary() {
  std::error_code ec;
  const auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("proteus") : p;
}

#if PROTEUS_HAVE_FIGURES
std::vector<std::string> draw_figures(const std::vector<std::string>& run_dirs, const fs::path& out) {
  std::vector<runs::RunReader> readers;
  for (const auto& d : run_dirs) readers.push_back(runs::RunReader::open(d));
  const auto figs = figures::standard_figures(readers);
  if (figs.empty()) return {};
  return figures::export_figures(figs, out, figures::ExportSettings{});
}
#endif

std::string pad(const std::string& s, size_t width) { return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' '); }

}  // namespace

void add_slurm_options(CLI::App* c, SlurmCliOptions& o) {
  c->add_flag("--slurm", o.slurm, "submit the runs as a Slurm job array (one task per run) with a merge job after it");
  c->add_flag("--print", o.print, "with --slurm: write RUNS_DIR/jobs/NAME/ and its scripts without submitting");
  o.text_options = {
      c->add_option("--job-name", o.job_name, "with --slurm: the job's folder name (default: the config's name)")
          ->option_text("NAME"),
      c->add_option("--partition", o.sbatch.partition, "with --slurm: sbatch --partition")->option_text("NAME"),
      c->add_option("--time", o.sbatch.time, "with --slurm: each task's time limit (sbatch --time), e.g. 2:00:00")
          ->option_text("TIME"),
      c->add_option("--account", o.sbatch.account, "with --slurm: sbatch --account")->option_text("NAME"),
      c->add_option("--sbatch-arg", o.sbatch.sbatch_args,
                    "with --slurm: one more #SBATCH line for both scripts, e.g. --sbatch-arg=--qos=short (repeatable)")
          ->option_text("ARG")};
  o.count_options = {
      c->add_option("--cpus-per-task", o.sbatch.cpus_per_task,
                    "with --slurm: CPUs per task (a run with threads 0 then uses that many)")
          ->option_text("N"),
      c->add_option("--gpus-per-task", o.sbatch.gpus_per_task, "with --slurm: GPUs per task")->option_text("N"),
      c->add_option("--max-running", o.sbatch.max_running, "with --slurm: at most N tasks at once (the array's %N)")
          ->option_text("N")};
}

const char* slurm_help() { return slurm_help_text; }

void check_slurm_request(const std::string& program, const SlurmCliOptions& o) {
  // Given is given: an option given '' (or a count given 0) is refused, never taken as left out.
  const auto check_given = [&](const CLI::Option* option, bool count) {
    if (option->count() == 0) return;
    const std::string name = option->get_name();
    if (!o.slurm) fail(program, name + ": needs --slurm", exit_bad_input);
    for (const auto& v : option->results()) {
      if (v.empty()) fail(program, name + ": is empty (leave the option out for its default)", exit_bad_input);
      if (count && v.find_first_not_of("+-0") == std::string::npos)
        fail(program, name + ": must be at least 1 (leave the option out for its default), got " + common::quoted(v),
             exit_bad_input);
    }
  };
  for (const auto* option : o.text_options) check_given(option, false);
  for (const auto* option : o.count_options) check_given(option, true);
  if (!o.slurm) {
    if (o.print) fail(program, "--print: needs --slurm", exit_bad_input);
    return;
  }
  if (!o.print && !cluster::slurm_available())
    fail(program, "--slurm: no Slurm on this machine (sbatch is not on PATH); nothing was written (--slurm --print "
                  "writes the job's scripts without submitting)",
         exit_bad_input);
  try {
    cluster::check_slurm_options(o.sbatch);
  } catch (const InputError& e) {
    fail(program, e.what(), exit_bad_input);
  }
}

int submit_to_slurm(const std::string& program, const std::vector<config::RunConfig>& runs,
                    const config::Experiment& experiment, const SlurmCliOptions& o) {
  cluster::JobPlan plan;
  try {
    plan = cluster::plan_job(runs, experiment, o.job_name, o.sbatch, own_binary(), fs::current_path(), command_line());
    cluster::write_job_folder(plan);
  } catch (const InputError& e) {
    fail(program, e.what(), exit_bad_input);
  } catch (const std::exception& e) {
    fail(program, std::string("cannot write the job folder: ") + e.what(), exit_failure);
  }
  const fs::path dir = plan.job_dir();
  std::cout << dir.string() << ": " << plan.runs.size() << " runs, " << cluster::kArrayScript << ", "
            << cluster::kMergeScript << "\n";
  if (o.print) {
    // Quoted for the shell: what a user pastes runs sbatch and nothing else, whatever the folder's name.
    std::cout << "submit with:\n  array=$(sbatch --parsable " << cluster::shell_quoted((dir / cluster::kArrayScript).string())
              << ")\n"
              << "  sbatch --dependency=afterany:\"$array\" " << cluster::shell_quoted((dir / cluster::kMergeScript).string())
              << "\n";
    return exit_ok;
  }
  cluster::Submission s;
  try {
    s = cluster::submit_job(dir);
  } catch (const std::exception& e) {
    fail(program, std::string("cannot record the submission: ") + e.what(), exit_failure);
  }
  if (!s.array_job.empty()) std::cout << "array job " << s.array_job << " (" << plan.runs.size() << " tasks)\n";
  if (!s.merge_job.empty()) std::cout << "merge job " << s.merge_job << " (after the array)\n";
  if (!s.error.empty())
    fail(program, s.error + " (recorded in " + (dir / cluster::kSubmissionsFile).string() + ")", exit_failure);
  std::cout << "watch with: proteus jobs " << cluster::shell_quoted(plan.runs_dir.string()) << "\n";
  return exit_ok;
}

void add_jobs_command(CLI::App& app) {
  auto runs_dir = std::make_shared<std::string>();
  auto* c = app.add_subcommand("jobs", "Show each Slurm job's runs under RUNS_DIR/jobs/: queued, running, finished, "
                                       "failed or interrupted");
  c->add_option("runs_dir", *runs_dir, "the runs folder the jobs were submitted for")->required()->option_text("RUNS_DIR");
  c->footer("States come from the run folders (status.json and their locks), each task's record in\n"
            "RUNS_DIR/jobs/NAME/tasks/ and, where squeue is on PATH, Slurm's own state of each array task.\n"
            "An interrupted run resumes from its checkpoint when the same --slurm command is run again.");
  c->callback([runs_dir] {
    const std::string program = "proteus jobs";
    std::error_code ec;
    if (!fs::is_directory(*runs_dir, ec)) fail(program, *runs_dir + ": not a folder", exit_bad_input);
    std::vector<std::string> unreadable;
    const auto jobs = cluster::list_jobs(*runs_dir, &unreadable);
    // A path the walk could not read is named, and the jobs it could read are still shown.
    for (const auto& u : unreadable) print_error(program, u);
    int status = unreadable.empty() ? exit_ok : exit_failure;
    if (jobs.empty()) {
      std::cout << "no jobs under " << (fs::path(*runs_dir) / "jobs").string() << "\n";
      if (status != exit_ok) throw CLI::RuntimeError(status);
      return;
    }
    for (const auto& dir : jobs) {
      cluster::JobRecord job;
      try {
        job = cluster::read_job(dir);
      } catch (const std::exception& e) {
        print_error(program, e.what());
        status = exit_failure;
        continue;
      }
      const auto queue = cluster::query_job_queue(job);
      const auto states = cluster::job_states(job, &queue);
      std::map<cluster::JobRunState, int> counts;
      for (const auto& r : states) ++counts[r.state];
      std::cout << "job " << job.name << " (" << dir.string() << "): " << states.size() << " runs:";
      bool first = true;
      for (cluster::JobRunState s : cluster::kJobRunStates)
        if (counts[s] > 0) std::cout << (first ? " " : ", ") << counts[s] << " " << cluster::job_run_state_name(s), first = false;
      std::cout << "\n";
      if (job.submissions.empty()) {
        std::cout << "  not submitted (submit with the same command without --print)\n";
      } else {
        const auto& s = job.submissions.back();
        std::cout << "  last submitted " << s.submitted << ": array " << (s.array_job.empty() ? "-" : s.array_job)
                  << ", merge " << (s.merge_job.empty() ? "-" : s.merge_job);
        if (auto it = queue.jobs.find(s.merge_job); it != queue.jobs.end()) std::cout << " (" << it->second << ")";
        if (!s.error.empty()) std::cout << "; " << s.error;
        std::cout << (queue.available ? "" : " (squeue not available: states from the run folders)") << "\n";
      }
      size_t width = 4;
      for (const auto& r : states) width = std::max(width, r.name.size() + 2);
      for (const auto& r : states) {
        std::cout << "  " << std::setw(3) << r.index << "  " << pad(r.name, width) << pad(cluster::job_run_state_name(r.state), 12) << r.reason;
        if (!r.queue_state.empty()) std::cout << " [slurm " << r.queue_state << "]";
        std::cout << "\n";
      }
    }
    if (status != exit_ok) throw CLI::RuntimeError(status);
  });
}

void add_job_task_command(CLI::App& app) {
  auto job_dir = std::make_shared<std::string>();
  auto index = std::make_shared<std::string>();
  auto* c = app.add_subcommand("job-task", "One task of a Slurm job array: train and evaluate run INDEX of JOB_DIR "
                                           "(what array.sbatch runs)");
  c->add_option("job_dir", *job_dir, "the job folder (RUNS_DIR/jobs/NAME)")->required()->option_text("JOB_DIR");
  c->add_option("--index", *index, "the run's index in runs.json ($SLURM_ARRAY_TASK_ID)")->required()->option_text("I");
  c->footer("A finished run is skipped, an interrupted one resumes from its checkpoint, one another task or\n"
            "writer holds is left alone. The task's record goes to JOB_DIR/tasks/I/task.json.\n"
            "Exit status: 0 finished, skipped or left alone; 1 failed; 2 bad input; 130 cancelled.");
  c->callback([job_dir, index] {
    const std::string program = "proteus job-task";
    count_interrupts_until_exit();  // a Slurm time limit (SIGTERM) checkpoints the run and says "cancelled"
    cluster::TaskOutcome outcome;
    try {
      outcome = cluster::run_task(*job_dir, cluster::parse_task_index(*index), [](engine::ExperimentHandle& h) { return watch_job(h); }, std::cout);
    } catch (const InputError& e) {
      fail(program, e.what(), exit_bad_input);
    } catch (const std::exception& e) {
      fail(program, e.what(), exit_failure);
    }
    if (outcome.exit_status != exit_ok) throw CLI::RuntimeError(outcome.exit_status);
  });
}

void add_job_merge_command(CLI::App& app) {
  auto job_dir = std::make_shared<std::string>();
  auto* c = app.add_subcommand("job-merge", "After a Slurm job array: seed-group summaries, figures and summary.json "
                                            "(what merge.sbatch runs)");
  c->add_option("job_dir", *job_dir, "the job folder (RUNS_DIR/jobs/NAME)")->required()->option_text("JOB_DIR");
  c->footer("Writes RUNS_DIR/groups/GROUP/ for the finished runs (as `proteus groups`), their figures to\n"
            "JOB_DIR/figures/ (as `proteus export`) and JOB_DIR/summary.json, naming every run that did not\n"
            "finish with its reason. Exit status: 0 every run finished; 1 some did not (the summary says which).");
  c->callback([job_dir] {
    const std::string program = "proteus job-merge";
    cluster::MergeResult m;
    try {
#if PROTEUS_HAVE_FIGURES
      m = cluster::merge_job(*job_dir, draw_figures);
#else
      m = cluster::merge_job(*job_dir, {});
#endif
    } catch (const InputError& e) {
      fail(program, e.what(), exit_bad_input);
    } catch (const std::exception& e) {
      fail(program, e.what(), exit_failure);
    }
    for (const auto& r : m.runs)
      if (r.state != cluster::JobRunState::finished)
        std::cout << "run " << r.name << " (task " << r.index << ") " << cluster::job_run_state_name(r.state) << ": "
                  << r.reason << "\n";
    for (const auto& n : m.notes) std::cout << "note: " << n << "\n";
    for (const auto& g : m.groups) std::cout << "seed group summary: " << g.string() << "\n";
    std::cout << program << ": " << m.finished << " of " << m.runs.size() << " runs finished, " << m.groups.size()
              << " seed groups, " << m.figures.size() << " figure files; "
              << (fs::path(*job_dir) / "summary.json").string() << "\n";
    if (m.finished != m.runs.size()) throw CLI::RuntimeError(exit_failure);
  });
}

}  // namespace proteus::cli
