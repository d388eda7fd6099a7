#include "app/gui/state/experiment_editor.hpp"

#include <algorithm>
#include <cmath>

#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"
#include "core/engine/experiment_job.hpp"
#include "core/figures/run_figures.hpp"
#include "core/common/input_error.hpp"
#include "core/common/atomic_file.hpp"

namespace proteus::gui {

std::vector<PresetFile> find_presets(const std::filesystem::path& experiments_dir) {
  std::vector<PresetFile> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(experiments_dir, ec)) return out;
  for (auto it = std::filesystem::recursive_directory_iterator(experiments_dir, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const auto rel = std::filesystem::relative(it->path(), experiments_dir, ec).generic_string();
    if (it->is_directory() && (rel == "results" || rel == "reference")) {
      it.disable_recursion_pending();  // measured results and reference code, not presets
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == ".json") out.push_back({rel, it->path()});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.label < b.label; });
  return out;
}

void ExperimentEditor::load(const std::filesystem::path& file) {
  const auto exp = config::load_experiment_json(file);
  std::vector<std::string> new_notes;
  RunMode new_mode = RunMode::single;
  std::vector<int> new_sweep = sweep_E;
  config::RunConfig new_config;
  if (exp.contains("sweep") && exp["sweep"].is_object()) {
    const auto& grid = exp["sweep"];
    auto base = exp;
    base.erase("sweep");
    base.erase("variants");
    new_config = config::expand_variants(base).front();
    if (grid.contains("model.mixer.E")) {
      new_mode = RunMode::sweep_e;
      new_sweep.clear();
      for (const auto& e : grid["model.mixer.E"]) {
        if (!e.is_number_integer()) throw InputError("sweep.model.mixer.E", "must be a list of integers");
        new_sweep.push_back(e.get<int>());
      }
    }
    for (const auto& [path, values] : grid.items())
      if (path != "model.mixer.E")
        new_notes.push_back("the window sweeps E only: sweep over " + path + " left out (run it with 'proteus sweep')");
  } else {
    const auto runs = config::expand_variants(exp);
    const bool has_baseline =
        runs.size() > 1 && std::any_of(runs.begin(), runs.end(), [](const auto& r) { return r.model.mixer.E == 1; });
    if (has_baseline) {
      new_mode = RunMode::compare;
      new_config = *std::max_element(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
        return a.model.mixer.E < b.model.mixer.E;
      });
      // The variant's name suffix is added again by runs(): keep the experiment's own name.
      new_config.name = exp.value("name", new_config.name);
      if (runs.size() > 2)
        new_notes.push_back("the window compares two runs: the baseline and the variant with the largest E");
    } else {
      new_config = runs.front();
      if (runs.size() > 1) new_notes.push_back("only the first of " + std::to_string(runs.size()) + " variants loaded");
    }
  }
  config = std::move(new_config);
  mode = new_mode;
  sweep_E = std::move(new_sweep);
  source = file.string();
  notes = std::move(new_notes);
}

nlohmann::json ExperimentEditor::to_experiment_json() const {
  auto j = config::to_json(config, config::JsonForm::as_given);
  const bool custom = config.model.mixer.schedule.type == "custom";
  if (mode == RunMode::compare) {
    // A custom unlock list fits one E only: the baseline's (E = 1) schedule goes back to the default.
    nlohmann::json base_set = {{"model.mixer.E", 1}};
    if (custom) base_set["model.mixer.schedule"] = nullptr;
    j["variants"] = nlohmann::json::array(
        {{{"name", "baseline"}, {"set", base_set}},
         {{"name", "proteus-e" + std::to_string(config.model.mixer.E)}, {"set", {{"model.mixer.E", config.model.mixer.E}}}}});
  } else if (mode == RunMode::sweep_e) {
    j["sweep"] = {{"model.mixer.E", sweep_E}};
    if (custom) j["model"]["mixer"]["schedule"] = {{"type", "uniform"}};  // as runs() does
  }
  return j;
}

void ExperimentEditor::save(const std::filesystem::path& file) {
  common::write_file_atomically(file, to_experiment_json().dump(2) + "\n");
  source = file.string();
}

std::vector<config::RunConfig> ExperimentEditor::runs() const {
  std::vector<config::RunConfig> out;
  switch (mode) {
    case RunMode::single:
      out.push_back(config);
      break;
    case RunMode::compare: {
      if (config.model.mixer.type != "memory")
        throw InputError("model.mixer.type", "compare trains a baseline and a Proteus memory model; got '" +
                                                 config.model.mixer.type + "' (use one run)");
      if (config.model.mixer.E <= 1)
        throw InputError("model.mixer.E", "compare needs E > 1 for the Proteus run (the baseline is E = 1)");
      auto base = config;
      base.model.mixer.E = 1;
      if (base.model.mixer.schedule.type == "custom") base.model.mixer.schedule = {};  // its list fits one E only
      base.name = config.name + "-baseline";
      auto proteus = config;
      proteus.name = config.name + "-proteus-e" + std::to_string(config.model.mixer.E);
      out = {base, proteus};
      break;
    }
    case RunMode::sweep_e: {
      if (sweep_E.empty()) throw InputError("sweep.model.mixer.E", "needs at least one E");
      for (int e : sweep_E) {
        auto c = config;
        c.model.mixer.E = e;
        if (c.model.mixer.schedule.type == "custom") c.model.mixer.schedule = {};  // a custom list fits one E only
        c.name = config.name + "-E" + std::to_string(e);
        out.push_back(c);
      }
      break;
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    try {
      engine::validate_run(out[i]);
    } catch (const InputError& e) {
      if (mode == RunMode::sweep_e) throw InputError(e.field(), e.reason() + " (sweep run " + out[i].name + ")");
      throw;
    }
  }
  return out;
}

std::string ExperimentEditor::problem() const {
  try {
    runs();
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

memory::Schedule ExperimentEditor::schedule() const {
  const auto& m = config.model.mixer;
  const int64_t D = int64_t(m.d_head) * m.d_head;
  return memory::Schedule::make(m.schedule, D, m.E, config::resolved_mixer_horizon(config));
}

figures::Figure ExperimentEditor::activation_figure() const {
  const auto s = schedule();
  const int64_t eval_len = config.eval.per_position.seq_len > 0 ? config.eval.per_position.seq_len : 2 * config.data.seq_len;
  return figures::activation_map_figure(s, std::max<int64_t>(2 * s.N(), eval_len), config.name);
}

namespace {
// The unlock points of `s` re-spread over E_new blocks: the same curve of k(t)/E over t.
std::vector<int64_t> respread(const std::vector<int64_t>& u, int E_new, int64_t N) {
  std::vector<int64_t> out(E_new);
  const int E_old = static_cast<int>(u.size());
  for (int j = 0; j < E_new; ++j) {
    const double x = E_new > 1 ? double(j) / E_new * E_old : 0.0;  // fractional index into the old list
    const int i = std::min(E_old - 1, static_cast<int>(std::floor(x)));
    const double f = x - i;
    const double next = i + 1 < E_old ? double(u[i + 1]) : double(N);
    out[j] = static_cast<int64_t>(std::llround(u[i] + f * (next - u[i])));
  }
  out[0] = 1;
  for (int j = 1; j < E_new; ++j) out[j] = std::clamp<int64_t>(out[j], out[j - 1], std::max<int64_t>(N, 1));
  return out;
}
}  // namespace

void ExperimentEditor::set_E(int E) {
  auto& m = config.model.mixer;
  const int D = m.d_head * m.d_head;
  E = std::clamp(E, 1, std::max(1, D));
  if (m.schedule.type == "custom" && !m.schedule.unlock.empty() && E != m.E)
    m.schedule.unlock = respread(m.schedule.unlock, E, config::resolved_mixer_horizon(config));
  m.E = E;
}

void ExperimentEditor::set_schedule_type(const std::string& type) {
  auto& spec = config.model.mixer.schedule;
  if (type == spec.type) return;
  if (type == "custom") {
    std::vector<int64_t> u;
    try {
      u = schedule().unlock();
    } catch (const std::exception&) {
      u = memory::Schedule::uniform(int64_t(config.model.mixer.d_head) * config.model.mixer.d_head,
                                    config.model.mixer.E, config::resolved_mixer_horizon(config))
              .unlock();
    }
    spec.unlock = std::move(u);
  }
  spec.type = type;
}

int64_t ExperimentEditor::drag_unlock(int j, int64_t position) {
  auto& spec = config.model.mixer.schedule;
  if (spec.type != "custom" || j <= 0 || j >= static_cast<int>(spec.unlock.size())) return j == 0 ? 1 : -1;
  const int64_t N = config::resolved_mixer_horizon(config);
  const int64_t lo = spec.unlock[j - 1];
  const int64_t hi = j + 1 < static_cast<int>(spec.unlock.size()) ? spec.unlock[j + 1] : N;
  spec.unlock[j] = std::clamp(position, lo, std::max(lo, hi));
  return spec.unlock[j];
}

void ExperimentEditor::set_N(int N) {
  config.model.mixer.N = std::max(0, N);
  auto& spec = config.model.mixer.schedule;
  const int64_t horizon = config::resolved_mixer_horizon(config);
  for (auto& u : spec.unlock) u = std::min<int64_t>(u, horizon);
}

}  // namespace proteus::gui
