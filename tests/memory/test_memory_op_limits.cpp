// memory-op's request bounds (issue 10): the memory size and the states kept over the sequence
// are bounded before the op allocates them, the horizon is bounded, and a huge value or key in
// IN.json is never echoed whole into the message.
#include <gtest/gtest.h>

#include <string>

#include "core/memory/memory_op.hpp"

namespace {

using nlohmann::json;
using proteus::InputError;
using namespace proteus::memory;

json rows(int64_t n, int64_t width, double x = 0.5) { return json(std::vector<std::vector<double>>(n, std::vector<double>(width, x))); }

json input(int64_t T, int64_t d_k, int64_t d_v) {
  return {{"rule", "linear"}, {"q", rows(T, d_k)}, {"k", rows(T, d_k)}, {"v", rows(T, d_v)}, {"beta", std::vector<double>(T, 1.0)}};
}

InputError refusal(const json& in) {
  try {
    parse_memory_op(in);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted";
  return InputError("", "");
}

TEST(MemoryOpLimits, TheMemorySizeIsBounded) {
  // d_k = d_v = 2048: D = 4M elements, past the limit; only the rows' lengths are needed to know.
  const InputError e = refusal(input(1, 2048, 2048));
  EXPECT_EQ(e.field(), "v[0]");
  EXPECT_NE(e.reason().find("d_k x d_v = 2048 x 2048"), std::string::npos) << e.what();
  EXPECT_NE(e.reason().find(std::to_string(kMaxStateElements)), std::string::npos) << e.what();
  EXPECT_NO_THROW(parse_memory_op(input(1, 1024, 1024)));  // D = 2^20: at the limit
}

TEST(MemoryOpLimits, TheStatesOverTheSequenceAreBounded) {
  // (T + 1) D = 5 x 2^20 doubles would be kept for the backward: refused.
  const InputError e = refusal(input(4, 1024, 1024));
  EXPECT_EQ(e.field(), "q");
  EXPECT_NE(e.reason().find(std::to_string(kMaxTapeElements)), std::string::npos) << e.what();
  EXPECT_NO_THROW(run_memory_op(parse_memory_op(input(2, 1024, 1024))));  // 3 x 2^20: runs
}

TEST(MemoryOpLimits, TheHorizonIsBounded) {
  json in = input(2, 2, 2);
  in["N"] = kMaxHorizon + 1;
  EXPECT_EQ(refusal(in).field(), "N");
  in["N"] = json(9.2e18);
  EXPECT_EQ(refusal(in).field(), "N");
  in["N"] = kMaxHorizon;
  in["schedule"] = {{"type", "power"}, {"p", 3}};
  EXPECT_NO_THROW(run_memory_op(parse_memory_op(in)));
}

TEST(MemoryOpLimits, HugeValuesAreNotEchoed) {
  const std::string huge(1 << 20, 'z');
  for (const char* key : {"rule", "comment"}) {
    json in = input(1, 1, 1);
    in[key] = key == std::string("comment") ? json(1) : json(huge);
    EXPECT_LT(std::string(refusal(in).what()).size(), 300u) << key;
  }
  json in = input(1, 1, 1);
  in[huge] = 1;
  const InputError e = refusal(in);
  EXPECT_LT(std::string(e.what()).size(), 400u);
  in = input(1, 1, 1);
  in["schedule"] = {{"type", huge}};
  EXPECT_LT(std::string(refusal(in).what()).size(), 400u);
}

TEST(MemoryOpLimits, TheReadersLimitsAreThoseOfAnInput) {
  EXPECT_EQ(kInputLimits.max_bytes, size_t{32} << 20);
  EXPECT_EQ(kInputLimits.max_depth, 64);
  std::string deep = "{\"rule\": \"linear\", \"q\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  try {
    proteus::common::parse_json(deep, "in.json", kInputLimits);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(e.reason().find("nesting deeper than 64"), std::string::npos) << e.what();
  }
}

}  // namespace
