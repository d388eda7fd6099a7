// For tests of the `proteus` command: run it (PROTEUS_BIN) with arguments and collect its exit
// status and its output, stdout and stderr together.
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace proteus::test_support {

struct CommandResult {
  int status = -1;  // the exit status; -1 when a signal ended the command
  int signal = 0;   // the signal that ended the command, however the shell passes it on
  std::string out;
};

// A shell command line, stderr folded into the output.
inline CommandResult run_shell(const std::string& command) {
  CommandResult r;
  const std::string cmd = command + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), p)) r.out += buf.data();
  const int s = pclose(p);
  r.status = WIFEXITED(s) ? WEXITSTATUS(s) : -1;
  // bash and dash exec the last command of a list or report its signal n as status 128 + n.
  r.signal = WIFSIGNALED(s) ? WTERMSIG(s) : (r.status > 128 && r.status <= 128 + 64 ? r.status - 128 : 0);
  return r;
}

inline CommandResult run_proteus(const std::string& args) { return run_shell(std::string(PROTEUS_BIN) + " " + args); }

// The command run in folder `dir` with no PATH: the machine's own sbatch or squeue is never reached.
inline CommandResult run_proteus_in(const std::string& dir, const std::string& args) {
  return run_shell("cd '" + dir + "' && PATH=/nonexistent '" + PROTEUS_BIN + "' " + args);
}

}  // namespace proteus::test_support
