// A damaged result file is refused with an error that names the file and the field, whatever the
// damage: a field missing, of the wrong type, an interval cut short, an element of a list.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/common/input_error.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace proteus;

class EvalFilesTest : public ::testing::Test {
 protected:
  // A run whose per_position.json, niah.json and block_use.json are written from a small report.
  void SetUp() override {
    auto writer = runs::RunWriter::create(dir_.path(), "r", nlohmann::json{{"name", "r"}});
    run_ = writer.dir();
    runs::EvalReport report;
    runs::PerPositionResult p;
    p.seq_len = 2;
    p.sequences = 1;
    p.nll = {1.0, 2.0};
    p.bucket_lo = {1};
    p.bucket_hi = {2};
    p.bucket_nll = {1.5};
    p.bucket_interval = {{1.5, 1.0, 2.0, 1}};
    report.per_position = p;
    runs::NiahTaskGrid grid{"s-niah-1", {128}, {0, 100}, {100, 0}, 50};
    report.niah = runs::NiahResult{{grid}, {}};
    runs::BlockUseResult use;
    use.reason = "E = 1";
    report.block_use = use;
    runs::write_eval_report(writer, report);
  }

  // Replaces the file's JSON with what `damage` makes of it.
  template <class F>
  void damage(const std::string& file, F&& edit) {
    auto j = runs::RunReader::open(run_).read_json(file);
    edit(j);
    std::ofstream(run_ / file, std::ios::binary | std::ios::trunc) << j.dump();
  }

  // The field of the InputError read_eval_report throws ("" when it reads the run).
  std::string refused_field() const {
    try {
      runs::read_eval_report(runs::RunReader::open(run_));
    } catch (const InputError& e) {
      return e.field();
    }
    return "";
  }

  std::string file_field(const std::string& file, const std::string& field) const {
    return (run_ / file).generic_string() + ": " + field;
  }

  test_support::TempDir dir_;
  std::filesystem::path run_;
};

TEST_F(EvalFilesTest, AnUndamagedRunReadsBack) {
  EXPECT_EQ(refused_field(), "");
  const auto back = runs::read_eval_report(runs::RunReader::open(run_));
  ASSERT_TRUE(back.per_position && back.niah && back.block_use);
  EXPECT_EQ(back.per_position->bucket_interval[0].hi, 2.0);
  EXPECT_EQ(back.niah->tasks[0].at(1, 0), 0);
  EXPECT_EQ(back.block_use->reason, "E = 1");
}

TEST_F(EvalFilesTest, AMissingFieldIsNamedWithItsFile) {
  damage("per_position.json", [](nlohmann::json& j) { j.erase("bucket_nll"); });
  EXPECT_EQ(refused_field(), file_field("per_position.json", "bucket_nll"));
}

TEST_F(EvalFilesTest, AFieldOfTheWrongTypeIsNamedWithItsFile) {
  damage("per_position.json", [](nlohmann::json& j) { j["seq_len"] = "two"; });
  EXPECT_EQ(refused_field(), file_field("per_position.json", "seq_len"));
  damage("per_position.json", [](nlohmann::json& j) {
    j["seq_len"] = 2;
    j["nll"][1] = "x";
  });
  EXPECT_EQ(refused_field(), file_field("per_position.json", "nll[1]"));
}

TEST_F(EvalFilesTest, AnIntervalCutShortNamesItsPart) {
  damage("per_position.json", [](nlohmann::json& j) { j["bucket_interval"][0].erase("n"); });
  EXPECT_EQ(refused_field(), file_field("per_position.json", "bucket_interval[0].n"));
}

TEST_F(EvalFilesTest, AnElementOfAListIsNamedByItsIndex) {
  damage("niah.json", [](nlohmann::json& j) { j["tasks"][0]["mean"] = nullptr; j["tasks"][0]["depths"] = 3; });
  EXPECT_EQ(refused_field(), file_field("niah.json", "tasks[0].depths"));
  damage("niah.json", [](nlohmann::json& j) { j["tasks"][0] = 7; });
  EXPECT_EQ(refused_field(), file_field("niah.json", "tasks[0]"));
}

TEST_F(EvalFilesTest, AFileThatIsNotAnObjectIsNamed) {
  damage("block_use.json", [](nlohmann::json& j) { j = nlohmann::json::array(); });
  EXPECT_EQ(refused_field(), (run_ / "block_use.json").generic_string());
}

TEST_F(EvalFilesTest, FieldsOlderFilesLackKeepTheirDefaults) {
  damage("per_position.json", [](nlohmann::json& j) {
    for (const char* key : {"bucket_interval", "mean_nll_interval", "sequences_fingerprint", "train_len"}) j.erase(key);
  });
  const auto back = runs::read_eval_report(runs::RunReader::open(run_));
  ASSERT_TRUE(back.per_position);
  EXPECT_TRUE(back.per_position->bucket_interval.empty());
  EXPECT_EQ(back.per_position->train_len, 0);
}

}  // namespace
