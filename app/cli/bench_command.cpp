#include "app/cli/bench_command.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "app/cli/command_support.hpp"
#include "core/backend/bench/kernel_benchmark.hpp"
#include "core/backend/bench/op_benchmark.hpp"
#include "core/config/experiment.hpp"
#include "core/engine/schedule_explore.hpp"
#include "core/memory/chunk_size.hpp"
#include "core/common/input_error.hpp"
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
  // --op memory-rule: one op at one shape instead of a config's training step; --op kernels:
  // every op at the sizes one layer of that shape gives it.
  std::string op;
  std::string rule{memory::rule_name(memory::kDefaultRule)};
  std::vector<int> shape = {8, 1024, 8, 64};  // B T H d_head (fla's benchmark shape)
  std::vector<int> E = {1, 16};
  bool no_decay = false;
  std::vector<std::string> forms = {"auto"};  // --form recurrent chunked: both, side by side
  std::string block_axis = "key_rows";        // --block-axis value_rows: what the model runs for it
  int chunk = 0;
  // --op explore: edit -> result latency of Explore on a trained run.
  std::string run;
  int sequences = 64;
  int positions = 1024;
  int burst = 1;  // edits per timed step, 100 ms apart (a drag); timed from the last
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

// An option's value by its choice's name table, or the program's refusal naming the names it takes.
template <class E>
E option_choice(const std::string& program, const char* option, const std::string& name) {
  const auto value = common::choice_from_name<E>(name);
  if (!value)
    fail(program, std::string(option) + ": unknown value '" + name.substr(0, 32) + "' (" +
                      common::choice_alternatives<E>(", ") + ")", exit_bad_input);
  return *value;
}

void bench_memory_rule(const BenchOptions& o, const std::string& machine, const std::string& day) {
  const std::string program = "proteus bench --op memory-rule";
  backend::MemoryRuleBenchSpec spec;
  spec.rule = option_choice<memory::Rule>(program, "--rule", o.rule);
  if (o.shape.size() != 4) fail(program, "--shape: give four numbers, B T H d_head", exit_bad_input);
  if (o.chunk < 0) fail(program, "--chunk: must be >= 1 (or 0 for the default), got " + std::to_string(o.chunk), exit_bad_input);
  std::vector<memory::RuleForm> forms;
  for (const auto& name : o.forms) forms.push_back(option_choice<memory::RuleForm>(program, "--form", name));
  spec.block_axis = option_choice<memory::BlockAxis>(program, "--block-axis", o.block_axis);
  spec.B = o.shape[0], spec.T = o.shape[1], spec.H = o.shape[2], spec.d_k = spec.d_v = o.shape[3];
  spec.decay = !o.no_decay;
  spec.chunk = o.chunk;
  spec.warmup = o.warmup;
  spec.reps = o.steps;
  const std::string device = o.device.empty() ? "cpu" : o.device;
  const int threads = o.threads.empty() ? 0 : o.threads.front();
  std::printf("%s, %s, block_axis %s\n", day.c_str(), machine.c_str(), o.block_axis.c_str());
  std::printf("GFLOP/s counts the recurrent rule's work for both forms: 6 d_k d_v per token and head forward, 3x that with the backward\n");
  std::printf("%-7s %-9s %5s %-6s %-18s %4s %5s %10s %10s %8s %8s %9s\n", "rule", "form", "chunk", "device",
              "B,T,H,d", "E", "decay", "fwd_ms", "fwd+bwd_ms", "GF/s_f", "GF/s_fb", "kept_MB");
  std::string rows;
  for (int E : o.E)
    for (memory::RuleForm form : forms) {
      spec.E = E;
      spec.form = form;
      backend::MemoryRuleBenchResult r;
      try {
        r = backend::benchmark_memory_rule(spec, device, threads);
      } catch (const std::exception& e) {
        fail(program, e.what(), exit_bad_input);
      }
      if (!r.message.empty()) std::fprintf(stderr, "%s: %s\n", program.c_str(), r.message.c_str());
      char shape[64];
      std::snprintf(shape, sizeof shape, "%d,%d,%d,%d", spec.B, spec.T, spec.H, spec.d_k);
      std::printf("%-7s %-9s %5d %-6s %-18s %4d %5s %10.3f %10.3f %8.2f %8.2f %9.1f\n", o.rule.c_str(),
                  r.form.c_str(), r.chunk, r.device.c_str(), shape, E, spec.decay ? "yes" : "no", r.forward_ms,
                  r.forward_backward_ms, r.forward_gflops, r.forward_backward_gflops, r.kept_mb);
      std::fflush(stdout);
      const std::string label = o.rule + (spec.block_axis == memory::BlockAxis::key_rows ? "" : " " + o.block_axis);
      char row[640];
      std::snprintf(row, sizeof row,
                    "| %s | %s | memory_rule %s | %s | %d | %s | %d | %s | %s | %.3f | %.3f | %.2f | %.2f | %.1f |\n",
                    day.c_str(), machine.c_str(), label.c_str(), shape, E, r.form.c_str(), r.chunk,
                    spec.decay ? "yes" : "no", r.device.c_str(), r.forward_ms, r.forward_backward_ms, r.forward_gflops,
                    r.forward_backward_gflops, r.kept_mb);
      rows += row;
    }
  if (!o.out.empty()) {
    std::ofstream f(o.out, std::ios::app);
    if (!f) fail(program, o.out + ": cannot open for appending", exit_failure);
    f << rows;
  }
}

// Explore's latency: after the trained schedule is evaluated under the settings (untimed, as when a
// user opens the run), each timed step sends `burst` horizon edits 100 ms apart and times from the
// last one until its result is published (a reader polling every millisecond, as a frame would).
void bench_explore(const BenchOptions& o, const std::string& machine, const std::string& day) {
  const std::string program = "proteus bench --op explore";
  if (o.run.empty()) fail(program, "--run: required (a trained run directory)", exit_bad_input);
  if (o.burst < 1) fail(program, "--burst: must be >= 1", exit_bad_input);
  using Clock = std::chrono::steady_clock;
  std::unique_ptr<engine::ScheduleExplorer> x;
  engine::ConfigDelta settings = engine::explore_eval_settings(o.sequences, o.positions);
  if (!o.threads.empty()) settings.push_back({"threads", o.threads.front()});
  try {
    x = std::make_unique<engine::ScheduleExplorer>(o.run);
    x->request({settings, {}, false});
  } catch (const std::exception& e) {
    fail(program, e.what(), exit_bad_input);
  }
  // Until generation g is answered; `first` (when given) gets the moment its first curve (partial
  // or whole) was seen.
  const auto wait_for = [&](uint64_t g, Clock::time_point* first = nullptr) {
    bool seen = false;
    for (;;) {
      const auto s = x->latest();
      if (first && !seen && s->edited_generation == g && s->edited) *first = Clock::now(), seen = true;
      if (s->generation >= g && !s->busy) {
        if (!s->error.empty()) fail(program, s->error, exit_failure);
        if (first && !seen) *first = Clock::now();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  const auto t_ref = Clock::now();
  wait_for(2);  // the constructor's request is 1, the settings' 2
  const double reference_s = std::chrono::duration<double>(Clock::now() - t_ref).count();
  const int L = x->run().config.data.seq_len;
  const int horizons[] = {4 * L, 2 * L, 3 * L, L / 2, 8 * L, 5 * L, 6 * L, 7 * L};
  std::vector<double> ms, first_ms;
  int k = 0;
  for (int step = 0; step < o.warmup + o.steps; ++step) {
    uint64_t g = 0;
    Clock::time_point last, first;
    for (int b = 0; b < o.burst; ++b) {
      if (b > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      last = Clock::now();
      g = x->request({settings, {{"model.mixer.N", horizons[k++ % 8]}}, false});
    }
    wait_for(g, &first);
    if (step >= o.warmup) {
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - last).count());
      first_ms.push_back(std::chrono::duration<double, std::milli>(first - last).count());
    }
  }
  std::sort(ms.begin(), ms.end());
  std::sort(first_ms.begin(), first_ms.end());
  const auto q = [](const std::vector<double>& v, double p) {
    return v[std::min(v.size() - 1, static_cast<size_t>(std::ceil(p * v.size())) - 1)];
  };
  const auto& cfg = x->run().config;
  std::printf("%s, %s\n", day.c_str(), machine.c_str());
  std::printf("run %s: %d sequences x %d positions, threads %d, burst %d; trained schedule evaluated in %.2f s\n",
              x->run().name.c_str(), o.sequences, o.positions, o.threads.empty() ? cfg.threads : o.threads.front(),
              o.burst, reference_s);
  std::printf("edit -> first curve (ms) over %zu edits: p50 %.0f  p99 %.0f  min %.0f  max %.0f\n", first_ms.size(),
              q(first_ms, 0.5), q(first_ms, 0.99), first_ms.front(), first_ms.back());
  std::printf("edit -> whole result (ms) over %zu edits: p50 %.0f  p99 %.0f  min %.0f  max %.0f\n", ms.size(),
              q(ms, 0.5), q(ms, 0.99), ms.front(), ms.back());
  if (!o.out.empty()) {
    std::ofstream f(o.out, std::ios::app);
    if (!f) fail(program, o.out + ": cannot open for appending", exit_failure);
    char row[512];
    std::snprintf(row, sizeof row, "| %s | %s | %s | %d x %d | %d | %zu | %.0f | %.0f | %.0f | %.0f | %.0f |\n",
                  day.c_str(), machine.c_str(), x->run().name.c_str(), o.sequences, o.positions, o.burst, ms.size(),
                  q(first_ms, 0.5), q(first_ms, 0.99), q(ms, 0.5), q(ms, 0.99), ms.back());
    f << row;
  }
}

void bench_kernels(const BenchOptions& o, const std::string& machine, const std::string& day) {
  const std::string program = "proteus bench --op kernels";
  backend::KernelBenchSpec spec;
  spec.rule = option_choice<memory::Rule>(program, "--rule", o.rule);
  if (o.shape.size() != 4) fail(program, "--shape: give four numbers, B T H d_head", exit_bad_input);
  spec.B = o.shape[0], spec.T = o.shape[1], spec.H = o.shape[2], spec.D = o.shape[3];
  spec.E = o.E;
  spec.warmup = o.warmup;
  spec.reps = o.steps;
  const std::string device = o.device.empty() ? "cpu" : o.device;
  const int threads = o.threads.empty() ? 0 : o.threads.front();
  backend::KernelBenchResult r;
  try {
    r = backend::benchmark_kernels(spec, device, threads);
  } catch (const std::exception& e) {
    fail(program, e.what(), exit_bad_input);
  }
  if (!r.message.empty()) std::fprintf(stderr, "%s: %s\n", program.c_str(), r.message.c_str());
  std::printf("%s, %s, device %s\n", day.c_str(), machine.c_str(), r.device.c_str());
  std::printf("%-26s %-4s %-30s %-5s %10s %9s %9s\n", "op", "pass", "shape", "dtype", "ms", "GB/s", "GFLOP/s");
  std::string rows;
  auto number = [](double x, const char* fmt) {
    char buf[32];
    if (x <= 0) return std::string("-");
    std::snprintf(buf, sizeof buf, fmt, x);
    return std::string(buf);
  };
  for (const auto& row : r.rows) {
    const std::string gb = number(row.gb_per_s, "%.1f"), gf = number(row.gflop_per_s, "%.1f");
    std::printf("%-26s %-4s %-30s %-5s %10.3f %9s %9s\n", row.label.c_str(), row.pass.c_str(), row.shape.c_str(),
                row.dtype.c_str(), row.ms, gb.c_str(), gf.c_str());
    char line[512];
    std::snprintf(line, sizeof line, "| %s | %s | %s | %s | %s | %s | %s | %.3f | %s | %s |\n", day.c_str(),
                  machine.c_str(), r.device.c_str(), row.label.c_str(), row.pass.c_str(), row.shape.c_str(),
                  row.dtype.c_str(), row.ms, gb.c_str(), gf.c_str());
    rows += line;
  }
  if (!o.out.empty()) {
    std::ofstream f(o.out, std::ios::app);
    if (!f) fail(program, o.out + ": cannot open for appending", exit_failure);
    f << rows;
  }
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
  c->add_option("--op", o->op,
                "time ops instead of a training step: memory-rule (one rule), kernels (every op at one layer's sizes)")
      ->option_text("OP");
  c->add_option("--rule", o->rule, "with --op: " + common::choice_alternatives<memory::Rule>(", ") + " (default " + std::string(memory::rule_name(memory::kDefaultRule)) + ")")
      ->option_text("RULE");
  c->add_option("--shape", o->shape, "with --op: B T H d_head (default 8 1024 8 64)")
      ->expected(4)
      ->option_text("B T H D");
  c->add_option("--E", o->E, "with --op: blocks to try (default 1 16)")->option_text("E...");
  c->add_flag("--no-decay", o->no_decay, "with --op memory-rule: the ungated-decay form (a = 1)");
  c->add_option("--form", o->forms,
                "with --op memory-rule: forms to time side by side: " + common::choice_alternatives<memory::RuleForm>(", "))
      ->option_text("FORM...");
  c->add_option("--block-axis", o->block_axis,
                "with --op memory-rule: " + common::choice_alternatives<memory::BlockAxis>(", ") +
                    " (default key_rows), timed as the model runs it")
      ->option_text("AXIS");
  using memory::ChunkBackend, memory::default_chunk_size;  // the one table of chunk sizes
  c->add_option("--chunk", o->chunk,
                "with --op memory-rule: chunk size (default: the backend's; " +
                    std::to_string(default_chunk_size(ChunkBackend::cpu, 64)) + "/" +
                    std::to_string(default_chunk_size(ChunkBackend::cpu, 128)) + " by d_head on the CPU, " +
                    std::to_string(default_chunk_size(ChunkBackend::cuda, 64)) + " on cuda)")
      ->option_text("C");
  c->add_option("--run", o->run, "with --op explore: the trained run to edit")->option_text("RUN");
  c->add_option("--sequences", o->sequences, "with --op explore: held-out sequences (default 64)")->option_text("N");
  c->add_option("--positions", o->positions, "with --op explore: positions per sequence (default 1024)")
      ->option_text("N");
  c->add_option("--burst", o->burst, "with --op explore: edits 100 ms apart per timed step (default 1)")
      ->option_text("N");
  c->callback([o] {
    if (!o->op.empty()) {
      if (o->op != "memory-rule" && o->op != "kernels" && o->op != "explore")
        fail("proteus bench", "--op: unknown op '" + o->op.substr(0, 32) + "' (memory-rule, kernels, explore)",
             exit_bad_input);
      if (o->steps < 1) fail("proteus bench", "--steps: must be >= 1", exit_bad_input);
      const std::string machine = cpu_model() + ", " + std::to_string(std::thread::hardware_concurrency()) + " cores";
      if (o->op == "explore")
        bench_explore(*o, machine, today_utc());
      else if (o->op == "kernels")
        bench_kernels(*o, machine, today_utc());
      else
        bench_memory_rule(*o, machine, today_utc());
      return;
    }
    const std::string program = "proteus bench";
    std::vector<config::RunConfig> runs;
    try {
      auto e = config::Experiment::load(shipped_or_given(program, o->config));
      if (!o->device.empty()) e.set("device", o->device);
      runs = e.runs();
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
