// `proteus stats`: summary (t over seeds, detectable effect, paired t test), trend (a line per
// seed, t over the slopes), ranges (the diagnosis's position ranges) and members (a seed group's
// runs by config::choose_seed_group_members), each printing one JSON document.
#include "app/cli/stats_command.hpp"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/cli/command_support.hpp"
#include "core/common/input_error.hpp"
#include "core/common/json_read.hpp"
#include "core/config/seed_group_members.hpp"
#include "core/eval/line_fit.hpp"
#include "core/eval/paired_effect.hpp"
#include "core/eval/statistics.hpp"
#include "core/runs/run_dir.hpp"

namespace proteus::cli {
namespace {

using nlohmann::json;
constexpr const char* program = "proteus stats";

constexpr const char* stats_help = R"(Subcommands (each prints one JSON document on stdout):
  summary    stdin: [[x, ...], ...], columns of per-seed values (paired differences). Per column:
             {"n", "mean", "lo", "hi" (95% t over the values; null below two), "t" (t(0.975, n - 1)),
             "detectable_effect" (80% power, two-sided 5%), "p" (the paired t test, two-sided)}
  trend      stdin: {"x": [budget, ...], "columns": [[value per seed, ...] per budget]}: per seed the
             least-squares line of the values against log2(x / x[0]); {"slopes", "intercepts",
             "slope" (t over the seeds' slopes: mean, lo, hi), "intercept" (their mean)}
  ranges N L the diagnosis's position ranges for training length N evaluated to L: [{"name", "lo", "hi"}]
  members RUNS_DIR GROUP [GROUP...]
             each seed group's finished runs under RUNS_DIR (config.json's "group"), one run per seed,
             as `proteus groups` chooses them: {"GROUP": {"members": {"SEED": "RUN_DIR"}, "left_out": [...]}}
Exit status: 0 done; 2 bad input (not JSON, not numbers, a missing folder).)";

json number_or_null(double x) { return std::isfinite(x) ? json(x) : json(); }

json read_stdin() {
  const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  return common::parse_json(text, "stdin", {});
}

std::vector<double> numbers(const json& j, const std::string& what) {
  if (!j.is_array()) throw InputError(what, "not a list of numbers");
  std::vector<double> out;
  for (const auto& v : j) {
    if (!v.is_number()) throw InputError(what, "holds " + v.dump() + ", not a number");
    out.push_back(v.get<double>());
  }
  return out;
}

json summary(const std::vector<double>& x) {
  const auto i = eval::t_interval(x);
  const bool interval = i.n >= 2;
  return {{"n", i.n},
          {"mean", number_or_null(i.mean)},
          {"lo", interval ? number_or_null(i.lo) : json()},
          {"hi", interval ? number_or_null(i.hi) : json()},
          {"t", interval ? json(eval::t_quantile(0.95, i.n - 1)) : json()},
          {"detectable_effect", number_or_null(eval::detectable_effect(x))},
          {"p", number_or_null(eval::t_test_p(x))}};
}

json summaries(const json& in) {
  if (!in.is_array()) throw InputError("stdin", "not a list of columns");
  json out = json::array();
  for (size_t c = 0; c < in.size(); ++c) out.push_back(summary(numbers(in[c], "column " + std::to_string(c + 1))));
  return out;
}

json trend(const json& in) {
  if (!in.is_object() || !in.contains("x") || !in.contains("columns")) throw InputError("stdin", "needs {\"x\": [...], \"columns\": [[...], ...]}");
  const auto x = numbers(in["x"], "x");
  std::vector<std::vector<double>> cols;
  for (const auto& c : in["columns"]) cols.push_back(numbers(c, "columns"));
  if (cols.size() != x.size() || x.empty()) throw InputError("columns", "give one column per x value");
  std::vector<double> rel;
  for (double v : x) rel.push_back(v / x.front());
  json slopes = json::array(), intercepts = json::array();
  std::vector<double> s, b;
  for (size_t seed = 0; seed < cols.front().size(); ++seed) {
    std::vector<double> y;
    for (const auto& c : cols) {
      if (c.size() != cols.front().size()) throw InputError("columns", "hold different numbers of seeds");
      y.push_back(c[seed]);
    }
    const auto f = eval::fit_line(rel, y, true);
    s.push_back(f.slope), b.push_back(f.intercept);
    slopes.push_back(f.slope), intercepts.push_back(f.intercept);
  }
  double mean_b = 0;
  for (double v : b) mean_b += v;
  json slope = summary(s);
  return {{"slopes", slopes}, {"intercepts", intercepts}, {"slope", slope},
          {"intercept", b.empty() ? json() : json(mean_b / static_cast<double>(b.size()))}};
}

json ranges(int train_len, int eval_len) {
  json out = json::array();
  for (const auto& r : eval::diagnosis_ranges(train_len, eval_len)) out.push_back({{"name", r.name}, {"lo", r.lo}, {"hi", r.hi}});
  return out;
}

json members(const std::string& runs_dir, const std::vector<std::string>& groups) {
  std::error_code ec;
  if (!std::filesystem::is_directory(runs_dir, ec)) throw InputError("RUNS_DIR " + runs_dir, "not a folder");
  std::vector<std::string> unreadable;
  std::vector<std::string> dirs;
  std::vector<config::RunConfig> configs;
  for (const auto& name : runs::list_runs(runs_dir, &unreadable)) {
    const auto dir = std::filesystem::path(runs_dir) / name;
    try {
      const auto reader = runs::RunReader::open(dir);
      if (reader.observed_state() != runs::ObservedState::finished) continue;
      configs.push_back(reader.run_config());
      dirs.push_back(dir.string());
    } catch (const std::exception&) {
      continue;  // not a run this rule can read: never a member
    }
  }
  json out = json::object();
  for (const auto& group : groups) {
    std::vector<config::SeedGroupCandidate> candidates;
    std::vector<size_t> of;
    for (size_t i = 0; i < configs.size(); ++i)
      if (configs[i].group == group) {
        candidates.push_back({std::filesystem::path(dirs[i]).filename().string(), &configs[i]});
        of.push_back(i);
      }
    const auto chosen = config::choose_seed_group_members(group, candidates);
    json m = json::object();
    for (size_t k : chosen.kept) m[std::to_string(configs[of[k]].seed)] = dirs[of[k]];
    out[group] = {{"members", m}, {"left_out", chosen.left_out}};
  }
  return out;
}

}  // namespace

void add_stats_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand("stats", "core/eval's statistics and the seed-group rule as JSON, for the table scripts");
  command->require_subcommand(1);
  command->footer(stats_help);
  const auto guarded = [](auto f) {
    return [f] {
      try {
        std::cout << f().dump() << '\n';
      } catch (const InputError& e) {
        fail(program, e.what(), exit_bad_input);
      } catch (const std::invalid_argument& e) {
        fail(program, e.what(), exit_bad_input);
      }
    };
  };
  command->add_subcommand("summary", "t over seeds, detectable effect and p of columns read as JSON from stdin")
      ->callback(guarded([] { return summaries(read_stdin()); }));
  command->add_subcommand("trend", "a least-squares line per seed against log2 of the budget, t over the slopes")
      ->callback(guarded([] { return trend(read_stdin()); }));
  auto lengths = std::make_shared<std::vector<int>>();
  auto* r = command->add_subcommand("ranges", "the diagnosis's position ranges for training length N, evaluated to L");
  r->add_option("lengths", *lengths, "N L")->required()->expected(2)->option_text("N L");
  r->callback(guarded([lengths] { return ranges(lengths->at(0), lengths->at(1)); }));
  auto args = std::make_shared<std::vector<std::string>>();
  auto* m = command->add_subcommand("members", "each seed group's runs under RUNS_DIR, one per seed, by the seed-group rule");
  m->add_option("args", *args, "RUNS_DIR GROUP [GROUP...]")->required()->expected(2, -1)->option_text("RUNS_DIR GROUP...");
  m->callback(guarded([args] { return members(args->front(), std::vector<std::string>(args->begin() + 1, args->end())); }));
}

}  // namespace proteus::cli
