// The window's controls without a window: presets load into the right mode, save round-trips
// through the files the command line reads, bad input is refused by field, and the schedule
// edits (E, N, dragging custom unlock points) keep the config valid and move the activation map.
#include <gtest/gtest.h>

#include <fstream>

#include "app/gui/state/experiment_editor.hpp"
#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"
#include "core/common/input_error.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/train/tiny_run.hpp"

namespace {

using namespace proteus;
const std::filesystem::path kExperiments = std::filesystem::path(PROTEUS_SOURCE_DIR) / "experiments";

// The activation map's cell for block b at 1-based position t (rows are blocks, columns positions).
double activation_at(const figures::Figure& f, int block, int t) {
  const auto& h = *f.heatmap;
  return h.values[size_t(block) * h.cols + (t - 1)];
}

TEST(ExperimentEditor, FindsThePresetsButNotTheResults) {
  const auto presets = gui::find_presets(kExperiments);
  std::vector<std::string> labels;
  for (const auto& p : presets) labels.push_back(p.label);
  EXPECT_NE(std::find(labels.begin(), labels.end(), "quickstart-cpu.json"), labels.end());
  EXPECT_NE(std::find(labels.begin(), labels.end(), "rules/delta-cpu.json"), labels.end());
  for (const auto& l : labels) EXPECT_NE(l.rfind("results/", 0), 0u) << l;
  EXPECT_TRUE(std::is_sorted(labels.begin(), labels.end()));
}

// Issue 34: a symlink loop among the presets is skipped; the window's start never throws on it.
TEST(ExperimentEditor, ASymlinkLoopAmongThePresetsIsSkipped) {
  test_support::TempDir tmp;
  tmp.write("experiments/a.json", "{}");
  std::filesystem::create_symlink("loop", tmp / "experiments/loop");
  std::filesystem::create_symlink("loop.json", tmp / "experiments/loop.json");
  std::vector<gui::PresetFile> presets;
  ASSERT_NO_THROW(presets = gui::find_presets(tmp / "experiments"));
  ASSERT_EQ(presets.size(), 1u);
  EXPECT_EQ(presets[0].label, "a.json");
}

// Every experiment in experiments/ runs from the window as from the command line.
TEST(ExperimentEditor, EveryPresetLoadsAndValidates) {
  const auto presets = gui::find_presets(kExperiments);
  ASSERT_GE(presets.size(), 10u);
  for (const auto& p : presets) {
    gui::ExperimentEditor ed;
    ASSERT_NO_THROW(ed.load(p.path)) << p.label;
    EXPECT_EQ(ed.problem(), "") << p.label;
    EXPECT_NO_THROW(ed.activation_figure()) << p.label;
  }
}

TEST(ExperimentEditor, AVariantsPresetBecomesCompareMode) {
  gui::ExperimentEditor ed;
  ed.load(kExperiments / "quickstart-cpu.json");
  EXPECT_EQ(ed.mode(), gui::RunMode::compare);
  EXPECT_EQ(ed.config().model.mixer.E, 16);
  EXPECT_EQ(ed.config().name, "quickstart");
  const auto runs = ed.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].name, "quickstart-baseline");
  EXPECT_EQ(runs[0].model.mixer.E, 1);
  EXPECT_EQ(runs[1].name, "quickstart-proteus-e16");
  EXPECT_EQ(runs[1].model.mixer.E, 16);
  EXPECT_EQ(runs[0].seed, runs[1].seed) << "same data and seed for both";
  EXPECT_EQ(ed.problem(), "");
  // What the controls say is the file's experiment as a typed value: the pair, read back the same.
  const auto exp = ed.experiment();
  EXPECT_EQ(exp.variants, config::Experiment::load(kExperiments / "quickstart-cpu.json").variants);
  const auto proteus = exp.compare_proteus();
  ASSERT_TRUE(proteus);
  EXPECT_EQ(config::to_json(*proteus), config::to_json(ed.config()));
}

TEST(ExperimentEditor, ASweepPresetBecomesAnESweep) {
  gui::ExperimentEditor ed;
  ed.load(kExperiments / "e-ablation-cpu.json");
  EXPECT_EQ(ed.mode(), gui::RunMode::sweep_e);
  EXPECT_EQ(ed.sweep_E(), (std::vector<int>{1, 2, 4, 8, 16, 32}));
  const auto runs = ed.runs();
  ASSERT_EQ(runs.size(), 6u);
  EXPECT_EQ(runs[3].name, "e-ablation-E8");
  EXPECT_EQ(runs[3].model.mixer.E, 8);
  EXPECT_FALSE(runs[0].eval.niah.enabled) << "the preset's own fields survive";
}

// A sweep over a field other than E (a field picker and its values in the window): every value
// trained with E = 1 and the gated E, so the gating-effect map has a baseline at each point; the
// saved file runs the same runs from the command line and loads back into the same sweep.
TEST(ExperimentEditor, ASweepOverAnotherFieldTrainsABaselineAtEveryPointAndRoundTrips) {
  const auto dir = test_support::fresh_dir("editor-field-sweep");
  gui::ExperimentEditor ed;
  ed.set_config(test_support::tiny_run(dir / "runs"));
  ed.edit_config([&](config::RunConfig& c) { c.model.mixer.E = 4; return true; });
  ed.set_mode(gui::RunMode::sweep_e);
  ed.pick_sweep_field("train.steps");
  ed.set_sweep_values({2, 3});
  ed.set_seeds(2);
  ASSERT_EQ(ed.problem(), "");
  const auto runs = ed.runs();
  ASSERT_EQ(runs.size(), 2u * 2u * 2u) << "values x {E = 1, E = 4} x seeds";
  int baselines = 0;
  for (const auto& r : runs) {
    baselines += r.model.mixer.E == 1;
    EXPECT_TRUE(r.train.steps == 2 || r.train.steps == 3) << r.name;
  }
  EXPECT_EQ(baselines, 4);
  const auto file = dir / "field-sweep.json";
  ed.save(file);
  EXPECT_EQ(config::Experiment::load(file).sweep_runs().size(), runs.size());
  gui::ExperimentEditor back;
  back.load(file);
  EXPECT_EQ(back.mode(), gui::RunMode::sweep_e);
  EXPECT_EQ(back.sweep_field(), "train.steps");
  EXPECT_EQ(back.sweep_values(), (std::vector<nlohmann::json>{2, 3}));
  EXPECT_EQ(back.config().model.mixer.E, 4);
  EXPECT_EQ(back.config().name, ed.config().name) << "no seed suffix carried into the name";
  EXPECT_TRUE(back.notes.empty()) << back.notes.front();

  ed.set_sweep_values({});
  EXPECT_EQ(ed.problem().rfind("sweep.train.steps", 0), 0u) << ed.problem();
  ed.pick_sweep_field("train.stepz");
  ed.set_sweep_values({2});
  EXPECT_NE(ed.problem().find("not a config field"), std::string::npos) << ed.problem();
}

// A grid over two fields and E (the memory-load map): the controls edit one field, the other axis
// is kept as the file gives it, and trading which one is edited keeps the runs.
TEST(ExperimentEditor, ASweepOverTwoFieldsKeepsTheAxisTheControlsCannotEdit) {
  gui::ExperimentEditor ed;
  ed.load(kExperiments / "maps" / "memory-load-cpu.json");
  EXPECT_EQ(ed.mode(), gui::RunMode::sweep_e);
  EXPECT_EQ(ed.sweep_field(), "data.mqar.pairs");
  EXPECT_EQ(ed.config().model.mixer.E, 16);
  ASSERT_TRUE(ed.kept_sweep().contains("data.mqar.layout"));
  EXPECT_EQ(ed.kept_describe(), (std::vector<std::string>{"sweep data.mqar.layout: pairs-first, spread"}));
  EXPECT_EQ(ed.cli_command(), "sweep");
  EXPECT_EQ(ed.kept_left_out(), "");
  const auto runs = ed.runs();
  EXPECT_EQ(runs.size(), 5u * 2u * 2u * 4u) << "pairs x layouts x E x seeds";
  EXPECT_EQ(ed.run_count(), runs.size());

  const auto note = ed.pick_sweep_field("data.mqar.layout");
  EXPECT_NE(note.find("data.mqar.pairs"), std::string::npos) << note;
  EXPECT_EQ(ed.sweep_field(), "data.mqar.layout");
  EXPECT_TRUE(ed.kept_sweep().contains("data.mqar.pairs"));
  const auto traded = ed.runs();
  ASSERT_EQ(traded.size(), runs.size());
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(traded[i].name, runs[i].name);

  ed.set_mode(gui::RunMode::single);
  EXPECT_NE(ed.kept_left_out().find("data.mqar.pairs"), std::string::npos) << ed.kept_left_out();
  EXPECT_EQ(ed.runs().size(), 4u) << "one run, once per seed";
  EXPECT_EQ(ed.cli_command(), "train");
}

// Variants other than the compare pair (four normalisations) are trained as the file gives them.
TEST(ExperimentEditor, OtherVariantsAreTrainedAsTheFileGivesThem) {
  gui::ExperimentEditor ed;
  ed.load(kExperiments / "paper" / "normalize-variants-cpu.json");
  EXPECT_EQ(ed.mode(), gui::RunMode::variants);
  EXPECT_EQ(ed.kept_variants().size(), 4u);
  EXPECT_EQ(ed.kept_fields(), (std::vector<std::string>{"model.mixer.E", "model.mixer.normalize"}));
  EXPECT_EQ(ed.cli_command(), "train");
  EXPECT_EQ(ed.runs().size(), 4u * 3u) << "variants x seeds";
  EXPECT_EQ(ed.run_count(), 12u);
  ed.set_mode(gui::RunMode::compare);
  EXPECT_NE(ed.kept_left_out().find("4 variants"), std::string::npos) << ed.kept_left_out();
  EXPECT_EQ(ed.runs().size(), 2u * 3u);
}

TEST(ExperimentEditor, SavedFilesRunTheSameRunsFromTheCommandLine) {
  const auto dir = test_support::fresh_dir("editor-save");
  for (auto mode : {gui::RunMode::single, gui::RunMode::compare, gui::RunMode::sweep_e}) {
    gui::ExperimentEditor ed;
    ed.set_config(test_support::tiny_run(dir / "runs"));
    ed.edit_config([&](config::RunConfig& c) { c.model.mixer.schedule.type = memory::ScheduleType::power; return true; });
    ed.edit_config([&](config::RunConfig& c) { c.model.mixer.schedule.power = 3; return true; });
    ed.set_mode(mode);
    ed.set_sweep_E({1, 4});
    const auto file = dir / ("saved-" + std::to_string(int(mode)) + ".json");
    ed.save(file);
    const auto exp = config::Experiment::load(file);
    const auto cli_runs = mode == gui::RunMode::sweep_e ? exp.sweep_runs() : exp.runs();
    const auto window_runs = ed.runs();
    ASSERT_EQ(cli_runs.size(), window_runs.size());
    for (size_t i = 0; i < cli_runs.size(); ++i) {
      EXPECT_EQ(cli_runs[i].model.mixer.E, window_runs[i].model.mixer.E);
      EXPECT_EQ(cli_runs[i].model.mixer.schedule.power, window_runs[i].model.mixer.schedule.power);
      EXPECT_EQ(cli_runs[i].train.steps, window_runs[i].train.steps);
    }
    gui::ExperimentEditor back;
    back.load(file);
    EXPECT_EQ(back.mode(), mode);
    EXPECT_EQ(config::to_json(back.config()), config::to_json(ed.config()));
  }
}

TEST(ExperimentEditor, ASeedCountTrainsEachRunOncePerSeedAndRoundTrips) {
  const auto dir = test_support::fresh_dir("editor-seeds");
  for (auto mode : {gui::RunMode::compare, gui::RunMode::sweep_e}) {
    gui::ExperimentEditor ed;
    ed.set_config(test_support::tiny_run(dir / "runs"));
    ed.edit_config([&](config::RunConfig& c) { c.seed = 4; return true; });
    ed.set_mode(mode);
    ed.set_sweep_E({1, 4});
    ed.set_seeds(3);
    const auto runs = ed.runs();
    ASSERT_EQ(runs.size(), 6u);
    EXPECT_EQ(runs[0].seed, 4u);
    EXPECT_EQ(runs[2].seed, 6u);
    EXPECT_EQ(runs[0].group, runs[2].group);
    EXPECT_NE(runs[0].group, runs[3].group);
    EXPECT_EQ(runs[1].name, runs[1].group + "-s5");
    const auto file = dir / ("seeds-" + std::to_string(int(mode)) + ".json");
    ed.save(file);
    gui::ExperimentEditor back;
    back.load(file);
    EXPECT_EQ(back.seeds(), 3);
    EXPECT_EQ(back.mode(), mode);
    EXPECT_EQ(back.config().seed, 4u);
    EXPECT_TRUE(back.notes.empty()) << back.notes.front();
    EXPECT_EQ(back.runs().size(), 6u);
  }
  gui::ExperimentEditor bad;
  bad.set_config(test_support::tiny_run(dir / "runs"));
  bad.set_seeds(0);
  EXPECT_EQ(bad.problem().rfind("seeds", 0), 0u) << bad.problem();
}

TEST(ExperimentEditor, ABadFileIsRefusedAndTheEditorKeepsItsConfig) {
  const auto dir = test_support::fresh_dir("editor-bad");
  gui::ExperimentEditor ed;
  ed.load(kExperiments / "quickstart-cpu.json");
  std::ofstream(dir / "bad.json") << R"({"model": {"mixer": {"E": 0}}})";
  try {
    ed.load(dir / "bad.json");
    FAIL() << "E = 0 was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model.mixer.E");
  }
  EXPECT_THROW(ed.load(dir / "missing.json"), InputError);
  EXPECT_EQ(ed.config().model.mixer.E, 16);
  EXPECT_EQ(ed.mode(), gui::RunMode::compare);
}

TEST(ExperimentEditor, ProblemsNameTheField) {
  const auto dir = test_support::fresh_dir("editor-problem");
  gui::ExperimentEditor ed;
  ed.set_config(test_support::tiny_run(dir));
  ed.set_mode(gui::RunMode::compare);
  ed.edit_config([&](config::RunConfig& c) { c.model.mixer.E = 1; return true; });
  EXPECT_NE(ed.problem().find("model.mixer.E"), std::string::npos) << ed.problem();
  ed.edit_config([&](config::RunConfig& c) { c.model.mixer.E = 4; return true; });
  EXPECT_EQ(ed.problem(), "");
  ed.edit_config([&](config::RunConfig& c) { c.data.text.path = (dir / "no-such-corpus").string(); return true; });
  EXPECT_NE(ed.problem().find("data.text.path"), std::string::npos) << ed.problem();
}

TEST(ExperimentEditor, DraggingACustomUnlockPointMovesTheActivationMap) {
  gui::ExperimentEditor ed;
  ed.edit_config([&](config::RunConfig& c) { c.data.seq_len = 64; return true; });
  ed.edit_config([&](config::RunConfig& c) { c.model.mixer.d_head = 8; return true; });  // D = 64
  ed.set_E(4);
  ed.set_schedule_type(memory::ScheduleType::custom);
  // Switching to custom starts from the schedule it replaces: uniform over N = 64, Delta = 16.
  EXPECT_EQ(ed.config().model.mixer.schedule.unlock, (std::vector<int64_t>{1, 17, 33, 49}));
  auto before = ed.activation_figure();
  EXPECT_EQ(activation_at(before, 1, 16), 0.0);
  EXPECT_EQ(activation_at(before, 1, 17), 1.0);

  EXPECT_EQ(ed.drag_unlock(1, 5), 5);
  auto after = ed.activation_figure();
  EXPECT_EQ(activation_at(after, 1, 4), 0.0);
  EXPECT_EQ(activation_at(after, 1, 5), 1.0);
  // Clamped between its neighbours: past u_3 = 33 it stops there; before u_1 = 1 it stops at 1.
  EXPECT_EQ(ed.drag_unlock(1, 40), 33);
  EXPECT_EQ(ed.drag_unlock(1, -3), 1);
  EXPECT_EQ(ed.drag_unlock(3, 1000), 64) << "the last point stops at the horizon";
  EXPECT_EQ(ed.drag_unlock(0, 20), 1) << "u_1 = 1 is fixed";
  EXPECT_NO_THROW(ed.schedule());
  EXPECT_EQ(ed.problem(), "");
}

TEST(ExperimentEditor, ChangingEOrNKeepsACustomScheduleValid) {
  gui::ExperimentEditor ed;
  ed.edit_config([&](config::RunConfig& c) { c.data.seq_len = 64; return true; });
  ed.edit_config([&](config::RunConfig& c) { c.model.mixer.d_head = 8; return true; });
  ed.set_E(4);
  ed.set_schedule_type(memory::ScheduleType::custom);
  ed.drag_unlock(1, 9);
  for (int E : {8, 3, 1, 64, 100}) {
    ed.set_E(E);
    const auto& u = ed.config().model.mixer.schedule.unlock;
    ASSERT_EQ(u.size(), size_t(std::min(E, 64)));
    EXPECT_EQ(u.front(), 1);
    EXPECT_TRUE(std::is_sorted(u.begin(), u.end()));
    EXPECT_NO_THROW(ed.schedule()) << "E = " << E;
  }
  ed.set_E(4);
  ed.set_N(20);
  for (auto x : ed.config().model.mixer.schedule.unlock) EXPECT_LE(x, 20);
  EXPECT_NO_THROW(ed.schedule());
  EXPECT_EQ(ed.schedule().N(), 20);
}

TEST(ExperimentEditor, TheActivationMapFollowsE) {
  gui::ExperimentEditor ed;
  ed.edit_config([&](config::RunConfig& c) { c.data.seq_len = 128; return true; });
  ed.set_E(8);
  auto f = ed.activation_figure();
  EXPECT_EQ(f.heatmap->rows, 8);
  EXPECT_GE(f.heatmap->cols, 256) << "drawn past the horizon";
  ed.set_E(2);
  f = ed.activation_figure();
  EXPECT_EQ(f.heatmap->rows, 2);
  EXPECT_EQ(activation_at(f, 1, 64), 0.0);
  EXPECT_EQ(activation_at(f, 1, 65), 1.0);
}

// Readings: the editor's state picture follows the block axis, and is absent with one block.
TEST(ExperimentEditor, TheStatePictureFollowsTheBlockAxis) {
  gui::ExperimentEditor ed;
  ed.load(kExperiments / "paper/regime-comba-cpu.json");
  ed.edit_config([&](config::RunConfig& c) { c.model.mixer.heads = 2; return true; });
  ed.edit_config([&](config::RunConfig& c) { c.model.d_model = 128; return true; });
  ed.set_E(2);
  ed.edit_config([&](config::RunConfig& c) { c.model.mixer.block_axis = memory::BlockAxis::layer; return true; });
  auto f = ed.state_opening_figure();
  ASSERT_TRUE(f && f->heatmap);
  const auto& h = *f->heatmap;
  const int d = ed.config().model.mixer.d_head;
  EXPECT_EQ(h.cols, 2 * d);
  EXPECT_EQ(h.values[0], 1.0) << "head 0 opens first";
  EXPECT_EQ(h.values[d], double(ed.schedule().unlock()[1])) << "head 1 opens with the second block";
  ed.edit_config([&](config::RunConfig& c) { c.model.mixer.block_axis = memory::BlockAxis::key_rows; return true; });
  EXPECT_EQ(ed.state_opening_figure()->heatmap->values[d], 1.0) << "key_rows opens row 0 of every head";
  ed.set_E(1);
  EXPECT_FALSE(ed.state_opening_figure()) << "one block: nothing to show";
}

// The tokenizer switch keeps the config valid: model.vocab follows the BPE's pieces and back.
TEST(ExperimentEditor, SwitchingTheTokenizerKeepsTheVocabulariesEqual) {
  gui::ExperimentEditor ed;
  ed.load(kExperiments / "paper/regime-comba-cpu.json");
  ASSERT_EQ(ed.problem(), "");
  ed.set_tokenizer(config::Tokenizer::bpe);
  EXPECT_EQ(ed.config().data.vocab, 4096);
  EXPECT_EQ(ed.config().model.vocab, 4096);
  EXPECT_EQ(ed.problem(), "");
  ed.set_bpe_vocab(1024);
  EXPECT_EQ(ed.config().model.vocab, 1024);
  EXPECT_EQ(ed.problem(), "");
  ed.edit_config([&](config::RunConfig& c) { c.data.tokenizer_hash = "0123456789abcdef"; return true; });
  ed.set_tokenizer(config::Tokenizer::bytes);
  EXPECT_EQ(ed.config().data.vocab, 0);
  EXPECT_EQ(ed.config().model.vocab, 256);
  EXPECT_EQ(ed.config().data.tokenizer_hash, "") << "a bytes config carries no tokenizer hash";
  EXPECT_EQ(ed.problem(), "");
}

}  // namespace

namespace {

// The MLP chain edits (the window's "MLP chain" rows): blocks added at 4x the last period up to the
// longest chain, block 1 kept at every step, periods clamped, and what they make validates.
TEST(ExperimentEditor, TheMlpChainEditsKeepTheConfigValid) {
  gui::ExperimentEditor ed;
  ASSERT_EQ(ed.config().model.mlp.chain.size(), 1u);
  ed.remove_mlp_block();
  EXPECT_EQ(ed.config().model.mlp.chain.size(), 1u) << "the chain keeps one block";
  ed.add_mlp_block();
  ed.add_mlp_block();
  ASSERT_EQ(ed.config().model.mlp.chain.size(), 3u);
  EXPECT_EQ(ed.config().model.mlp.chain[1].every, 4);
  EXPECT_EQ(ed.config().model.mlp.chain[2].every, 16);
  ed.set_mlp_every(0, 8);
  EXPECT_EQ(ed.config().model.mlp.chain[0].every, 1) << "block 1 updates every step (C_1 = 1)";
  ed.set_mlp_every(2, 0);
  EXPECT_EQ(ed.config().model.mlp.chain[2].every, 1);
  ed.set_mlp_every(1, config::kMaxMlpEvery + 5);
  EXPECT_EQ(ed.config().model.mlp.chain[1].every, config::kMaxMlpEvery);
  EXPECT_NO_THROW(config::parse_run_config(config::to_json(ed.config(), config::JsonForm::as_given)));
  for (int i = 0; i < 2 * config::kMaxMlpChain; ++i) ed.add_mlp_block();
  EXPECT_EQ(static_cast<int>(ed.config().model.mlp.chain.size()), config::kMaxMlpChain);
  for (const auto& b : ed.config().model.mlp.chain) EXPECT_LE(b.every, config::kMaxMlpEvery);
  EXPECT_NO_THROW(config::parse_run_config(config::to_json(ed.config(), config::JsonForm::as_given)));
  ed.remove_mlp_block();
  EXPECT_EQ(static_cast<int>(ed.config().model.mlp.chain.size()), config::kMaxMlpChain - 1);
}

}  // namespace

namespace {

// Issue 46: the editor holds one config::Experiment and an edit goes into it at once: what it
// holds is what Save writes (no conversion on the way), and the file loads back into the same.
TEST(ExperimentEditor, EditsGoIntoTheExperimentInPlaceAndSaveAsHeld) {
  const auto dir = test_support::fresh_dir("editor-in-place");
  gui::ExperimentEditor ed;
  ed.load(kExperiments / "quickstart-cpu.json");
  ed.set_E(8);
  EXPECT_EQ(ed.experiment().base_config().model.mixer.E, 8);
  ASSERT_EQ(ed.experiment().variants.size(), 2u);
  EXPECT_EQ(ed.experiment().variants.back().name, "proteus-e8") << "the compare pair follows E";
  ed.set_seeds(2);
  EXPECT_EQ(ed.experiment().seeds, (std::vector<uint64_t>{ed.config().seed, ed.config().seed + 1}));
  ed.edit_config([](config::RunConfig& c) {
    c.train.steps = 7;
    return true;
  });
  EXPECT_FALSE(ed.edit_config([](config::RunConfig&) { return false; })) << "no change, nothing written";
  for (const auto& run : ed.experiment().runs()) EXPECT_EQ(run.train.steps, 7) << run.name;
  const auto file = dir / "edited.json";
  ed.save(file);
  EXPECT_EQ(config::Experiment::load(file).to_json(), ed.experiment().to_json());
  gui::ExperimentEditor back;
  back.load(file);
  EXPECT_EQ(back.experiment().to_json(), ed.experiment().to_json());
  EXPECT_EQ(back.mode(), gui::RunMode::compare);
  EXPECT_EQ(config::to_json(back.config()), config::to_json(ed.config()));
}

// Every preset: loaded into the editor, saved, loaded again: the same experiment, the same runs.
TEST(ExperimentEditor, EveryPresetSavesAndLoadsBackTheSame) {
  const auto dir = test_support::fresh_dir("editor-presets");
  for (const auto& p : gui::find_presets(kExperiments)) {
    gui::ExperimentEditor ed;
    ed.load(p.path);
    const auto file = dir / "saved.json";
    ed.save(file);
    gui::ExperimentEditor back;
    back.load(file);
    EXPECT_EQ(back.experiment().to_json(), ed.experiment().to_json()) << p.label;
    EXPECT_EQ(back.mode(), ed.mode()) << p.label;
    const auto a = ed.runs(), b = back.runs();
    ASSERT_EQ(a.size(), b.size()) << p.label;
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(config::to_json(a[i]), config::to_json(b[i])) << p.label << " " << i;
  }
}

// A sweep turns a custom schedule back to uniform in the experiment it holds: the window shows
// what the sweep trains (the unlocks of a custom schedule fit one E).
TEST(ExperimentEditor, ASweepHoldsNoCustomSchedule) {
  gui::ExperimentEditor ed;
  ed.set_config(test_support::tiny_run(test_support::fresh_dir("editor-sweep-custom") / "runs"));
  ed.set_schedule_type(memory::ScheduleType::custom);
  ed.set_mode(gui::RunMode::sweep_e);
  ed.set_sweep_E({1, 4});
  EXPECT_EQ(ed.config().model.mixer.schedule.type, memory::ScheduleType::uniform);
  EXPECT_EQ(ed.experiment().base_config().model.mixer.schedule.type, memory::ScheduleType::uniform);
  EXPECT_EQ(ed.problem(), "");
}

}  // namespace
