#include "app/cli/progress_line.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <sstream>
#include <thread>

namespace proteus::cli {
namespace {

std::atomic<int> interrupts{0};
constexpr int kCancelSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void on_interrupt(int) {
  if (interrupts.fetch_add(1) >= 1) _exit(130);  // the second interrupt does not wait for the job
}

std::string duration(double s) {
  if (s < 0) return "?";
  const int total = static_cast<int>(s + 0.5);
  char buf[32];
  if (total >= 3600) std::snprintf(buf, sizeof buf, "%dh%02dm", total / 3600, total / 60 % 60);
  else if (total >= 60) std::snprintf(buf, sizeof buf, "%dm%02ds", total / 60, total % 60);
  else std::snprintf(buf, sizeof buf, "%ds", total);
  return buf;
}

std::string line_for(const engine::Snapshot& s, const engine::Progress& p) {
  if (s.current < 0 || s.current >= static_cast<int>(s.runs.size())) return "starting";
  const auto& r = s.runs[s.current];
  std::ostringstream out;
  out.precision(4);
  out << "[" << s.current + 1 << "/" << s.runs.size() << "] " << r.name << "  " << engine::run_phase_name(r.state);
  if (r.state == engine::RunPhase::training) {
    out << " step " << r.step << "/" << r.total_steps;
    if (!r.history.empty()) out << "  loss " << r.history.back().loss;
    if (r.val_bpb >= 0) out << "  val_bpb " << r.val_bpb;
    out << "  " << static_cast<long>(r.tokens_per_s) << " tok/s  ETA " << duration(p.eta_s);
  } else if (!r.message.empty()) {
    out << " " << r.message;
  }
  return out.str();
}

}  // namespace

void count_interrupts_until_exit() {
  interrupts = 0;
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int signal : kCancelSignals) sigaction(signal, &action, nullptr);
}

std::shared_ptr<const engine::Snapshot> watch_job(engine::ExperimentHandle& job) {
  const bool tty = isatty(STDERR_FILENO);
  size_t messages_shown = 0;
  std::string last_line;
  auto last_print = std::chrono::steady_clock::now() - std::chrono::hours(1);
  bool cancel_sent = false;
  std::shared_ptr<const engine::Snapshot> s;
  while (true) {
    s = job.latest();
    const bool done = !job.running();
    if (interrupts > 0 && !cancel_sent) {
      job.cancel();
      cancel_sent = true;
      std::cerr << (tty ? "\n" : "") << "cancelling: the run keeps a checkpoint (interrupt again to quit now)\n";
    }
    if (s) {
      for (; messages_shown < s->messages.size(); ++messages_shown)
        std::cerr << (tty && !last_line.empty() ? "\n" : "") << "proteus: " << s->messages[messages_shown] << "\n";
      const auto line = line_for(*s, job.progress());
      const auto now = std::chrono::steady_clock::now();
      if (tty) {
        if (line != last_line) std::cerr << "\r\033[K" << line << std::flush;
      } else if (line != last_line && now - last_print > std::chrono::seconds(5)) {
        std::cerr << line << "\n";
        last_print = now;
      }
      last_line = line;
    }
    if (done) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (tty) std::cerr << "\n";
  job.wait();  // rethrows a failure of the job itself
  s = job.latest();
  if (!s) return s;
  std::printf("%-32s %-10s %8s %10s %9s  %s\n", "run", "state", "val_bpb", "tok/s", "time", "directory");
  for (const auto& r : s->runs) {
    char bpb[16] = "-";
    if (r.val_bpb >= 0) std::snprintf(bpb, sizeof bpb, "%.4f", r.val_bpb);
    std::printf("%-32s %-10s %8s %10.0f %9s  %s\n", r.name.c_str(), engine::run_phase_name(r.state), bpb, r.tokens_per_s,
                duration(r.elapsed_s).c_str(), r.run_dir.c_str());
  }
  return s;
}

int job_status(const engine::Snapshot& s) {
  int status = 0;
  for (const auto& r : s.runs) {
    if (r.state == engine::RunPhase::failed) return 1;
    if (r.state == engine::RunPhase::cancelled || r.state == engine::RunPhase::queued) status = 130;
  }
  return status;
}

}  // namespace proteus::cli
