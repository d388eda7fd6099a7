// For tests that run a program (the `proteus` command, python3, a script): run it as an argument
// vector, with no shell between, so a path holding a space, a quote or a non-ASCII letter (a
// checkout in "~/mes projets/proteus lab") reaches the program as one argument, and collect its
// exit status and its output, stdout and stderr together unless asked apart.
#pragma once
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

extern char** environ;

namespace proteus::test_support {

struct CommandResult {
  int status = -1;  // the exit status; -1 when a signal ended the command
  int signal = 0;   // the signal that ended the command (run_shell: however the shell passes it on)
  std::string out;  // stdout, and stderr unless RunOptions::stderr_apart
  std::string err;  // stderr, with RunOptions::stderr_apart
};

struct RunOptions {
  std::string dir = {};                                       // the folder it runs in; "" for the test's own
  std::vector<std::pair<std::string, std::string>> env = {};  // variables set, e.g. {"PATH", "/nonexistent"}
  std::vector<std::string> unset = {};                        // variables removed from its environment
  std::string append_to = {};  // when set, stdout and stderr are appended to this file, not collected
  bool stderr_apart = false;   // stderr into CommandResult::err instead of out
};

// Starts argv (argv[0] looked up on the test's own PATH when it holds no '/') with stdout on
// out_fd and stderr on err_fd, stdin from /dev/null; its pid. Everything the child needs is made
// before the fork, so the child only moves descriptors, changes folder and execs. A program that
// cannot be started exits 127 with a line on its stderr, as a shell's would.
inline pid_t start_program(const std::vector<std::string>& argv, const RunOptions& options, int out_fd, int err_fd) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [n, value] : options.env) replaced = replaced || n == name;
    for (const auto& n : options.unset) replaced = replaced || n == name;
    if (!replaced) env.emplace_back(entry);
  }
  for (const auto& [name, value] : options.env) env.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (auto& a : args) argp.push_back(a.data());
  argp.push_back(nullptr);
  const std::string failed = "cannot run " + argv.at(0) + (options.dir.empty() ? "" : " in " + options.dir) + "\n";
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid == 0) {
    if (null_fd >= 0) ::dup2(null_fd, 0);
    if (out_fd >= 0) ::dup2(out_fd, 1);
    if (err_fd >= 0) ::dup2(err_fd, 2);
    if (options.dir.empty() || ::chdir(options.dir.c_str()) == 0) ::execvpe(argp[0], argp.data(), envp.data());
    [[maybe_unused]] const auto written = ::write(2, failed.data(), failed.size());
    ::_exit(127);
  }
  if (null_fd >= 0) ::close(null_fd);
  return pid;
}

// Reads each descriptor to its end into its string, both at once (a full stderr pipe never
// stalls a program while stdout is read), and closes them.
inline void read_to_end(std::vector<std::pair<int, std::string*>> sources) {
  char buf[4096];
  while (!sources.empty()) {
    std::vector<pollfd> fds;
    for (const auto& s : sources) fds.push_back({s.first, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR)
      throw std::system_error(errno, std::generic_category(), "poll");
    for (size_t i = fds.size(); i-- > 0;) {
      if (fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sources[i].second->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        sources.erase(sources.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
  }
}

// Waits for pid; its raw wait status.
inline int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Runs argv to its end: the one way a test runs a program.
inline CommandResult run_program(const std::vector<std::string>& argv, const RunOptions& options = {}) {
  CommandResult r;
  std::vector<std::pair<int, std::string*>> sources;
  std::vector<int> child_ends;  // closed here once the child has its copies
  auto make_pipe = [&](std::string* into) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
    sources.emplace_back(fds[0], into);
    child_ends.push_back(fds[1]);
    return fds[1];
  };
  int out_fd = -1;
  int err_fd = -1;
  if (!options.append_to.empty()) {
    out_fd = err_fd = ::open(options.append_to.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out_fd < 0) throw std::system_error(errno, std::generic_category(), "open " + options.append_to);
    child_ends.push_back(out_fd);
  } else {
    out_fd = make_pipe(&r.out);
    err_fd = options.stderr_apart ? make_pipe(&r.err) : out_fd;
  }
  const pid_t pid = start_program(argv, options, out_fd, err_fd);
  for (const int fd : child_ends) ::close(fd);
  read_to_end(sources);
  const int s = wait_for(pid);
  r.status = WIFEXITED(s) ? WEXITSTATUS(s) : -1;
  r.signal = WIFSIGNALED(s) ? WTERMSIG(s) : 0;
  return r;
}

// A shell command line, for the tests of shell behaviour itself: no path is ever put in one
// (run_program takes paths as arguments).
inline CommandResult run_shell(const std::string& command) {
  CommandResult r = run_program({"/bin/sh", "-c", command});
  // bash and dash exec the last command of a list or report its signal n as status 128 + n.
  if (r.signal == 0 && r.status > 128 && r.status <= 128 + 64) r.signal = r.status - 128;
  return r;
}

// The arguments one line, spaces between: for a failure's message, never to run.
inline std::string joined(const std::vector<std::string>& args) {
  std::string line;
  for (const auto& a : args) line += (line.empty() ? "" : " ") + a;
  return line;
}

#ifdef PROTEUS_BIN  // the tests of the command, given its path by tests/CMakeLists.txt

// The `proteus` command under test (PROTEUS_BIN) with `args`, as an argument vector.
inline std::vector<std::string> proteus_argv(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {PROTEUS_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

inline CommandResult run_proteus(const std::vector<std::string>& args, const RunOptions& options = {}) {
  return run_program(proteus_argv(args), options);
}

// The command run in folder `dir` with no PATH: the machine's own sbatch or squeue is never reached.
inline CommandResult run_proteus_in(const std::string& dir, const std::vector<std::string>& args) {
  return run_proteus(args, {.dir = dir, .env = {{"PATH", "/nonexistent"}}});
}

#endif  // PROTEUS_BIN

}  // namespace proteus::test_support
