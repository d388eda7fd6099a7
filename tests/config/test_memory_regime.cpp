// The two regime ratios (key rows per block, tokens per key dimension): computed from a config,
// written into a run's config.json (and ignored when it is read back), and named truthfully by
// the comment of every preset in experiments/paper/ and experiments/maps/ that has a memory mixer.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"
#include "core/config/memory_regime.hpp"

namespace {

using namespace proteus;
using namespace proteus::config;

TEST(MemoryRegime, RatiosFromTheConfig) {
  RunConfig c;
  c.model.mixer.d_head = 128;
  c.model.mixer.E = 16;
  c.data.seq_len = 4096;
  const MemoryRegime r = memory_regime(c);
  EXPECT_EQ(r.key_rows_per_block, 8.0);
  EXPECT_EQ(r.tokens_per_key_dimension, 32.0);
  EXPECT_TRUE(r.row_aligned);
  EXPECT_EQ(describe_regime(r), "8 key rows per block, 32 tokens per key dimension");
  c.model.mixer.d_head = 16;
  c.model.mixer.E = 32;  // a block is half a row
  c.data.seq_len = 1024;
  const MemoryRegime half = memory_regime(c);
  EXPECT_EQ(half.key_rows_per_block, 0.5);
  EXPECT_FALSE(half.row_aligned);
  EXPECT_EQ(describe_regime(half), "0.50 key rows per block, 64 tokens per key dimension");
  c.model.mixer.E = 16;
  EXPECT_EQ(describe_regime(memory_regime(c)), "1 key row per block, 64 tokens per key dimension");
}

// The block axis says what a block is made of: value dimensions, or key rows across the layer's heads.
TEST(MemoryRegime, NamesTheBlockAxisUnit) {
  RunConfig c;
  c.model.mixer.heads = 4;
  c.model.mixer.d_head = 64;
  c.model.mixer.E = 8;
  c.data.seq_len = 2048;
  c.model.mixer.block_axis = memory::BlockAxis::value_rows;
  EXPECT_EQ(describe_regime(memory_regime(c)), "8 value dimensions per block, 32 tokens per key dimension");
  c.model.mixer.block_axis = memory::BlockAxis::layer;
  const MemoryRegime layer = memory_regime(c);
  EXPECT_EQ(layer.key_rows_per_block, 32.0);
  EXPECT_EQ(describe_regime(layer), "32 key rows of the layer per block, 32 tokens per key dimension");
}

TEST(MemoryRegime, WrittenIntoTheResolvedConfigAndIgnoredOnRead) {
  RunConfig c;
  c.model.mixer.d_head = 32;
  c.model.mixer.E = 4;
  c.data.seq_len = 512;
  const auto j = to_json(c);
  ASSERT_TRUE(j.contains("regime"));
  EXPECT_EQ(j["regime"]["key_rows_per_block"].get<double>(), 8.0);
  EXPECT_EQ(j["regime"]["tokens_per_key_dimension"].get<double>(), 16.0);
  EXPECT_EQ(to_json(parse_run_config(j)), j);  // reads back to the same config
  EXPECT_FALSE(to_json(c, JsonForm::as_given).contains("regime"));  // a saved preset stays as given
  auto bad = j;
  bad["regime"] = 3;  // only the derived object is let through
  EXPECT_THROW(parse_run_config(bad), InputError);
}

std::string comment_text(const nlohmann::json& j) {
  if (!j.contains("comment")) return "";
  if (j["comment"].is_string()) return j["comment"].get<std::string>();
  std::string text;
  for (const auto& line : j["comment"]) text += line.get<std::string>() + " ";
  return text;
}

// Every number the comment puts before `what`, lists included ("4, 2, 1 and 0.50 key rows per block").
std::set<std::string> named(const std::string& text, const std::string& what) {
  std::set<std::string> out;
  const std::string number = "[0-9]+(?:\\.[0-9]+)?";
  const std::regex re("((?:" + number + "(?:, | and ))*" + number + ") " + what), one(number);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
    const std::string list = (*it)[1].str();
    for (auto n = std::sregex_iterator(list.begin(), list.end(), one); n != std::sregex_iterator(); ++n)
      out.insert(n->str());
  }
  return out;
}

// "8 key rows per block" -> "8"; the number exactly as describe_regime writes it.
std::string rows_text(const RunConfig& c) {
  const std::string d = describe_regime(memory_regime(c));
  return d.substr(0, d.find(' '));
}
std::string tokens_text(const RunConfig& c) {
  const std::string d = describe_regime(memory_regime(c));
  const auto end = d.rfind(" tokens per key dimension");
  return d.substr(d.rfind(' ', end - 1) + 1, end - d.rfind(' ', end - 1) - 1);
}

// How many presets of `folder` (under experiments/) name their ratios; fails on one that names them wrongly.
int check_presets_name_their_ratios(const std::string& folder) {
  int presets = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(PROTEUS_SOURCE_DIR) / "experiments" / folder)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const auto raw = read_json_file(entry.path());
    const std::string text = comment_text(raw);
    const auto runs = Experiment::load(entry.path()).all_runs();
    // A preset without a memory mixer (Hope-Attention's softmax attention) has no ratios to name.
    if (std::none_of(runs.begin(), runs.end(), [](const RunConfig& c) { return c.model.mixer.type == MixerType::memory; })) continue;
    std::set<std::string> rows, tokens;  // what the gated runs of this preset really have
    for (const auto& c : runs) {
      if (c.model.mixer.type != MixerType::memory || c.model.mixer.E == 1) continue;
      rows.insert(rows_text(c));
      tokens.insert(tokens_text(c));
      // The run's config.json says the same as the window's line (both from memory_regime).
      const auto written = to_json(c)["regime"];
      EXPECT_EQ(written["key_rows_per_block"].get<double>(), memory_regime(c).key_rows_per_block);
    }
    EXPECT_FALSE(rows.empty()) << "no gated memory run";
    if (rows.empty()) continue;
    const auto said_rows = named(text, "key rows? per block"), said_tokens = named(text, "tokens per key dimension");
    for (const auto& r : rows) EXPECT_TRUE(said_rows.count(r)) << "the comment does not name " << r << " key rows per block";
    for (const auto& t : tokens) EXPECT_TRUE(said_tokens.count(t)) << "the comment does not name " << t << " tokens per key dimension";
    for (const auto& r : said_rows) EXPECT_TRUE(rows.count(r)) << "the comment names " << r << " key rows per block, which no run has";
    for (const auto& t : said_tokens) EXPECT_TRUE(tokens.count(t)) << "the comment names " << t << " tokens per key dimension, which no run has";
    ++presets;
  }
  return presets;
}

TEST(MemoryRegime, EveryPaperPresetNamesItsRatiosTruthfully) { EXPECT_GE(check_presets_name_their_ratios("paper"), 22); }

TEST(MemoryRegime, EveryMapPresetNamesItsRatiosTruthfully) { EXPECT_GE(check_presets_name_their_ratios("maps"), 3); }

}  // namespace
