// sbatch and squeue as child processes (posix_spawn, no shell), their output read through pipes.
#include "core/cluster/slurm_commands.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

extern char** environ;

namespace proteus::cluster {
namespace {

// Reads both pipes to their end together, so neither child stream can fill and block the other.
void drain(int out_fd, int err_fd, std::string& out, std::string& err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&out, &err};
  int open = 2;
  char buf[4096];
  while (open > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// One line of `squeue -o "%i|%F|..."`, split at its bars.
std::vector<std::string> squeue_fields(const std::string& line) {
  std::vector<std::string> f;
  std::stringstream fields(trimmed(line));
  std::string x;
  while (std::getline(fields, x, '|')) f.push_back(x);
  return f;
}

}  // namespace

ProgramOutput run_program(const std::vector<std::string>& argv) {
  ProgramOutput r;
  if (argv.empty()) return r;
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return r;
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  std::vector<std::string> copy = argv;
  for (auto& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (spawned != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    r.status = 127;
    r.err = argv[0] + ": cannot run it: " + std::strerror(spawned);
    return r;
  }
  drain(out_pipe[0], err_pipe[0], r.out, r.err);
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return r;
}

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path || program.empty() || program.find('/') != std::string::npos) return "";
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / program;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
  }
  return "";
}

bool slurm_available() { return !find_on_path("sbatch").empty(); }

std::string parse_job_id(const std::string& sbatch_output) {
  // --parsable prints "<id>" or "<id>;<cluster>" on its own line; anything else is not an id.
  std::stringstream lines(sbatch_output);
  std::string line;
  while (std::getline(lines, line)) {
    std::string id = trimmed(line.substr(0, line.find(';')));
    if (!id.empty() && id.find_first_not_of("0123456789") == std::string::npos) return id;
  }
  return "";
}

Submission submit_job(const std::filesystem::path& job_dir) {
  Submission s;
  s.submitted = utc_now();
  const auto sbatch = [&](std::vector<std::string> args, const char* what) {
    args.insert(args.begin(), {"sbatch", "--parsable"});
    const auto r = run_program(args);
    const std::string id = r.status == 0 ? parse_job_id(r.out) : "";
    if (id.empty())
      s.error = std::string("sbatch refused the ") + what + " (status " + std::to_string(r.status) +
                "): " + trimmed(r.err.empty() ? r.out : r.err);
    return id;
  };
  s.array_job = sbatch({(job_dir / kArrayScript).string()}, "array");
  if (!s.array_job.empty())
    s.merge_job = sbatch({"--dependency=afterany:" + s.array_job, (job_dir / kMergeScript).string()}, "merge job");
  record_submission(job_dir, s);
  return s;
}

std::map<int, QueuedTask> parse_squeue(const std::string& squeue_output, const std::vector<std::string>& array_jobs) {
  std::map<int, QueuedTask> tasks;
  std::map<int, size_t> rank;  // the position in array_jobs of the job each task came from
  std::stringstream lines(squeue_output);
  std::string line;
  while (std::getline(lines, line)) {
    const std::vector<std::string> f = squeue_fields(line);
    if (f.size() < 4) continue;
    size_t which = array_jobs.size();
    for (size_t j = 0; j < array_jobs.size(); ++j)
      if (array_jobs[j] == f[1]) which = j;
    if (which == array_jobs.size()) continue;
    int index = -1;
    try {
      size_t used = 0;
      index = std::stoi(f[2], &used);
      if (used != f[2].size()) index = -1;
    } catch (const std::exception&) {
      index = -1;
    }
    if (index < 0) continue;  // "N/A": not one task
    if (auto it = rank.find(index); it != rank.end() && it->second > which) continue;
    rank[index] = which;
    tasks[index] = {f[3], f.size() > 4 ? f[4] : ""};
  }
  return tasks;
}

QueueView query_queue(const std::vector<std::string>& job_ids, const std::vector<std::string>& array_jobs) {
  QueueView v;
  if (find_on_path("squeue").empty()) return v;
  if (job_ids.empty()) {
    v.available = true;
    return v;
  }
  std::string list;
  for (const auto& id : job_ids) list += (list.empty() ? "" : ",") + id;
  const auto r = run_program({"squeue", "-h", "-r", "-j", list, "-o", "%i|%F|%K|%T|%r"});
  // squeue fails on ids it no longer knows (jobs that ended): nothing of them is queued.
  if (r.status != 0 && r.err.find("Invalid job id") == std::string::npos) return v;
  v.available = true;
  v.tasks = parse_squeue(r.out, array_jobs);
  std::stringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    const std::vector<std::string> f = squeue_fields(line);
    if (f.size() >= 4 && f[0] == f[1]) v.jobs[f[0]] = f[3];
  }
  return v;
}

}  // namespace proteus::cluster
