// parse_json / read_json_file: every JSON the program reads goes through them, so these are the
// guarantees of issue 10's first class: size and depth checked before the parser runs (a
// 100,000-deep input is refused by a scan, not a stack overflow), a key given twice refused at any
// depth and named by its path, numbers beyond float64 named by their path, and messages that never
// echo more than a short prefix of what was read.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <thread>

#include "core/common/input_error.hpp"
#include "core/common/json_read.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using proteus::InputError;
using proteus::common::JsonLimits;
using proteus::common::parse_json;
using proteus::common::read_json_file;
using proteus::test_support::TempDir;

const JsonLimits kSmall{1024, 8, "a test file"};

InputError refusal(const std::string& text, const JsonLimits& limits = kSmall) {
  try {
    parse_json(text, "t.json", limits);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << text.substr(0, 80);
  return InputError("", "");
}

std::string nested(int depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

TEST(JsonRead, DepthIsCheckedBeforeParsing) {
  EXPECT_NO_THROW(parse_json(nested(8), "t.json", kSmall));
  const InputError e = refusal(nested(9));
  EXPECT_EQ(e.field(), "t.json:1:9") << e.what();  // the bracket that goes one level too deep
  EXPECT_NE(e.reason().find("nesting deeper than 8 levels (the limit for a test file)"), std::string::npos) << e.what();

  // Issue 10's crash: 100,000 nested objects. Refused at the 65th level, whatever follows.
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"a\":";
  deep += "1" + std::string(100000, '}');
  const InputError deep_error = refusal(deep, {size_t{1} << 22, 64, "a config file"});
  EXPECT_EQ(deep_error.field(), "t.json:1:321") << deep_error.what();
}

TEST(JsonRead, BracketsInsideStringsDoNotCount) {
  const std::string text = "{\"a\": \"" + nested(50) + "\\\"[[[[\", \"b\": [[1]]}";
  const auto j = parse_json(text, "t.json", kSmall);
  EXPECT_EQ(j["b"][0][0], 1);
  EXPECT_EQ(j["a"].get<std::string>().size(), 105u);
}

TEST(JsonRead, SizeIsCheckedBeforeParsing) {
  const InputError e = refusal(std::string(1025, ' '));
  EXPECT_EQ(e.field(), "t.json");
  EXPECT_EQ(e.reason(), "is larger than the limit of 1 KiB for a test file");
}

TEST(JsonRead, DuplicateKeysAreRefusedAtAnyDepthByPath) {
  EXPECT_EQ(refusal(R"({"a": 1, "a": 2})").field(), "a");
  EXPECT_EQ(refusal(R"({"model": {"mixer": {"E": 1, "E": 2}}})").field(), "model.mixer.E");
  EXPECT_EQ(refusal(R"({"mix": [{"task": "text"}, {"task": "niah", "task": "mqar"}]})").field(), "mix[1].task");
  EXPECT_EQ(refusal(R"([[1], {"x": 1, "x": 1}])").field(), "[1].x");
  const InputError e = refusal(R"({"a": 1, "a": 2})");
  EXPECT_NE(e.reason().find("appears twice in one object of t.json"), std::string::npos) << e.what();
  // The same key in two objects is no duplicate.
  EXPECT_NO_THROW(parse_json(R"({"a": {"k": 1}, "b": {"k": 2}})", "t.json", kSmall));
}

TEST(JsonRead, NumbersBeyondFloat64AreNamedByPath) {
  const InputError e = refusal(R"({"S0": [[0, 0], [0, -1e999]]})");
  EXPECT_EQ(e.field(), "S0[1][1]");
  EXPECT_EQ(e.reason(), "must be a finite number, got -1e999 (beyond float64)");
  EXPECT_EQ(refusal("1e999").field(), "t.json");
}

TEST(JsonRead, SyntaxErrorsGiveLineAndColumnAndACutMessage) {
  const InputError e = refusal("{\n  \"a\": 1,\n  x\n}");
  EXPECT_EQ(e.field(), "t.json:3:3");
  EXPECT_EQ(e.reason().rfind("parse error: ", 0), 0u) << e.what();
  EXPECT_EQ(e.reason().find("[json.exception"), std::string::npos) << e.what();
  // An unterminated 1 MB string: the parser's message quotes what it read; ours does not.
  const std::string open = "{\"a\": \"" + std::string(1 << 20, 'x');
  const InputError cut = refusal(open, {size_t{1} << 21, 8, "a test file"});
  EXPECT_LT(std::string(cut.what()).size(), 300u) << cut.what();
}

TEST(JsonRead, LongKeysAreCutInPaths) {
  const std::string key(1 << 20, 'k');
  const InputError e = refusal("{\"" + key + "\": 1, \"" + key + "\": 2}", {size_t{1} << 22, 8, "a test file"});
  EXPECT_LT(e.field().size(), 50u);
  EXPECT_EQ(e.field().substr(e.field().size() - 3), "...");
}

TEST(JsonRead, FilesAreReadWithinTheLimit) {
  TempDir dir;
  EXPECT_EQ(read_json_file(dir.write("ok.json", R"({"a": [1, 2]})"), kSmall)["a"][1], 2);
  try {
    read_json_file(dir.write("big.json", std::string(2048, ' ')), kSmall);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.reason(), "is larger than the limit of 1 KiB for a test file");
  }
  try {
    read_json_file(dir / "missing.json", kSmall);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.what(), (dir / "missing.json").generic_string() + ": cannot open");
  }
  try {
    read_json_file(dir.path(), kSmall);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(e.reason().find("is a directory"), std::string::npos) << e.what();
  }
}

TEST(JsonRead, AnEndlessDeviceIsRefusedAtTheLimit) {
  // /dev/zero never ends: it must be refused once the limit is passed, not read forever.
  try {
    read_json_file("/dev/zero", kSmall);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "/dev/zero");
    EXPECT_NE(e.reason().find("larger than the limit of 1 KiB"), std::string::npos) << e.what();
  }
}

TEST(JsonRead, APipeIsReadToItsEnd) {
  TempDir dir;
  const auto fifo = dir / "pipe.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(fifo) << R"({"from": "a pipe"})"; });
  EXPECT_EQ(read_json_file(fifo, kSmall)["from"], "a pipe");
  writer.join();
}

}  // namespace
