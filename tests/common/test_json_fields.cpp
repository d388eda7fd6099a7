// The field helpers every reader shares: values in messages are short whatever was read, integers
// and numbers are read one way, and "did you mean" suggests only real near-misses.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"

namespace {

using nlohmann::json;
using namespace proteus::common;

TEST(JsonFields, DescribeShowsShortValues) {
  EXPECT_EQ(describe_json(json(3)), "3");
  EXPECT_EQ(describe_json(json(0.1)), "0.1");
  EXPECT_EQ(describe_json(json("fast")), "\"fast\"");
  EXPECT_EQ(describe_json(json("x"), Shown::typed), "string \"x\"");
  EXPECT_EQ(describe_json(json::array()), "[]");
  EXPECT_EQ(describe_json(json::array({1})), "an array");
  EXPECT_EQ(describe_json(json::object()), "an object");
  // A 50 MB value is shown as a prefix (issue 10: it was echoed whole into the message).
  const std::string shown = describe_json(json(std::string(50 << 20, 'v')));
  EXPECT_LE(shown.size(), 40u);
  EXPECT_EQ(shown.substr(shown.size() - 4), "...\"");
}

TEST(JsonFields, CutsFallOnCharacterBoundaries) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "\xc3\xa9";  // e-acute, two bytes each
  const std::string q = proteus::common::quoted(text);
  ASSERT_GE(q.size(), 5u);
  const std::string body = q.substr(1, q.size() - 5);  // between the opening quote and ..."
  EXPECT_EQ(body.size() % 2, 0u) << q;
  EXPECT_TRUE(json::accept(q.substr(0, q.size() - 4) + "\"")) << q;
  const std::string c = clipped(text);
  EXPECT_EQ((c.size() - 3) % 2, 0u) << c;
  EXPECT_EQ(proteus::common::quoted("short"), "\"short\"");
  EXPECT_EQ(clipped("short"), "short");
}

TEST(JsonFields, IntegersAndNumbers) {
  EXPECT_EQ(read_int64(json(7), "f"), 7);
  EXPECT_EQ(read_int64(json(4.0), "f"), 4);
  EXPECT_EQ(read_int64(json(-3), "f"), -3);
  EXPECT_THROW(read_int64(json(2.5), "f"), proteus::InputError);
  EXPECT_THROW(read_int64(json(18446744073709551615ull), "f"), proteus::InputError);
  EXPECT_THROW(read_int64(json(1e300), "f"), proteus::InputError);
  try {
    read_int64(json("4"), "E", Shown::typed);
    FAIL();
  } catch (const proteus::InputError& e) {
    EXPECT_STREQ(e.what(), "E: expected an integer, got string \"4\"");
  }
  EXPECT_EQ(read_number(json(0.5), "f"), 0.5);
  EXPECT_THROW(read_number(json("x"), "f"), proteus::InputError);
}

TEST(JsonFields, SuggestionsAreNearMissesOnly) {
  EXPECT_EQ(closest_name("bta", {"beta", "eta"}), "beta");
  EXPECT_EQ(closest_name("x", {"E", "N"}), "");
  EXPECT_EQ(closest_name(std::string(1 << 20, 'k'), {"beta", "eta"}), "");  // and at once: no 1M x 4 table
  EXPECT_EQ(unknown_key_reason("mixr", {"vocab", "mixer"}), "unknown key (did you mean mixer?)");
  EXPECT_EQ(unknown_key_reason("q", {"ab", "cd"}), "unknown key (expected one of ab, cd)");
}

TEST(JsonFields, CommentsAreText) {
  EXPECT_TRUE(is_text(json("a")));
  EXPECT_TRUE(is_text(json::array({"a", "b"})));
  EXPECT_FALSE(is_text(json::array({"a", 1})));
  EXPECT_FALSE(is_text(json(1)));
}

}  // namespace
