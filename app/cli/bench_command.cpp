#include "app/cli/bench_command.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "app/cli/command_support.hpp"
#include "core/config/experiment.hpp"
#include "core/memory/input_error.hpp"
#include "core/train/benchmark.hpp"

namespace proteus::cli {
namespace {

struct BenchOptions {
  std::string config = "experiments/quickstart-cpu.json";
  int warmup = 3;
  int steps = 20;
  std::vector<int> threads;
  std::string device;
  std::string out;
};

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto* c = app.add_subcommand("bench", "Measure training throughput (tokens/s) of a config's runs on this machine");
  c->add_option("config", o->config, "run config (default: experiments/quickstart-cpu.json)")->option_text("CONFIG");
  c->add_option("--steps", o->steps, "timed steps (after the warm-up)")->option_text("N");
  c->add_option("--warmup", o->warmup, "untimed steps first")->option_text("N");
  c->add_option("--threads", o->threads, "CPU threads to try, e.g. --threads 1 2 (default: the config's)")
      ->option_text("N...");
  c->add_option("--device", o->device, "cpu or cuda")->option_text("DEVICE");
  c->add_option("--out", o->out, "append the results as Markdown rows to this file")->option_text("FILE");
  c->callback([o] {
    const std::string program = "proteus bench";
    std::vector<config::RunConfig> runs;
    try {
      auto j = config::load_experiment_json(o->config);
      if (!o->device.empty()) j["device"] = o->device;
      runs = config::expand_variants(j);
    } catch (const std::exception& e) {
      fail(program, e.what(), exit_bad_input);
    }
    if (o->steps < 1) fail(program, "--steps: must be >= 1", exit_bad_input);
    auto threads = o->threads;
    if (threads.empty()) threads.push_back(runs.front().threads);
    utsname u{};
    uname(&u);
    const std::string machine = cpu_model() + ", " + std::to_string(std::thread::hardware_concurrency()) + " cores";
    std::printf("%s, %s\n", today_utc().c_str(), machine.c_str());
    std::printf("%-28s %-6s %7s %9s %8s %8s %8s %8s %10s\n", "run", "device", "threads", "params", "step_ms",
                "fwd_ms", "bwd_ms", "opt_ms", "tokens/s");
    std::string rows;
    for (const auto& base : runs)
      for (int t : threads) {
        auto cfg = base;
        cfg.threads = t;
        const auto r = train::benchmark_training(cfg, o->warmup, o->steps);
        std::printf("%-28s %-6s %7d %9zu %8.1f %8.1f %8.1f %8.1f %10.0f\n", r.name.c_str(), r.device.c_str(), t,
                    r.params, r.step_ms_median, r.forward_ms, r.backward_ms, r.optimizer_ms, r.tokens_per_s);
        char row[512];
        std::snprintf(row, sizeof row, "| %s | %s | %s | %d | %s | %d | %zu | %.1f | %.1f | %.1f | %.1f | %.0f |\n",
                      today_utc().c_str(), machine.c_str(), r.name.c_str(), r.tokens_per_step, r.device.c_str(), t,
                      r.params, r.step_ms_median, r.forward_ms, r.backward_ms, r.optimizer_ms, r.tokens_per_s);
        rows += row;
      }
    if (!o->out.empty()) {
      std::ofstream f(o->out, std::ios::app);
      if (!f) fail(program, o->out + ": cannot open for appending", exit_failure);
      f << rows;
    }
  });
}

}  // namespace proteus::cli
