// `proteus bench --op kernels` on a tiny shape: it runs every op of the op list (a row each, with
// both passes where the op has a backward, the memory rule and block norms per E), appends the
// same rows to --out, and refuses a bad shape or an unknown op with the bad-input status. Times
// are not checked: this is what the benchmark prints, not how fast.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "core/backend/ops/op.hpp"
#include "tests/support/run_command.hpp"

namespace {

using proteus::test_support::run_proteus;

int count_lines_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0;
  return n;
}

TEST(BenchKernelsCli, PrintsARowForEveryOpAndAppendsThem) {
  const auto out = std::filesystem::temp_directory_path() / ("proteus-kbench-" + std::to_string(std::random_device{}()) + ".md");
  const auto r = run_proteus({"bench", "--op", "kernels", "--shape", "1", "9", "2", "4", "--E", "1", "3", "--steps",
                              "1", "--warmup", "0", "--threads", "1", "--out", out.string()});
  ASSERT_EQ(r.status, 0) << r.out;
  for (auto op : proteus::backend::all_ops()) {
    const std::string name = proteus::backend::op_name(op);
    EXPECT_GE(count_lines_starting(r.out, name + " "), 1) << name << " has no row:\n" << r.out;
  }
  EXPECT_EQ(count_lines_starting(r.out, "matmul "), 2);  // forward and backward
  EXPECT_EQ(count_lines_starting(r.out, "memory_rule delta E="), 4);  // two passes, two E
  EXPECT_EQ(count_lines_starting(r.out, "memory_block_norms E="), 2);
  std::ifstream f(out);
  std::stringstream text;
  text << f.rdbuf();
  const int rows = count_lines_starting(text.str(), "| ");
  EXPECT_GT(rows, 30);
  EXPECT_NE(text.str().find("| cpu | matmul | fwd | (9,8)x(8,8) | f32 |"), std::string::npos) << text.str();
  std::filesystem::remove(out);
}

TEST(BenchKernelsCli, RefusesABadShapeAndAnUnknownOp) {
  const auto bad = run_proteus({"bench", "--op", "kernels", "--shape", "1", "0", "2", "4", "--steps", "1"});
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_NE(bad.out.find("T: must be in"), std::string::npos) << bad.out;
  const auto unknown = run_proteus({"bench", "--op", "nonsense", "--steps", "1"});
  EXPECT_EQ(unknown.status, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("memory-rule, kernels"), std::string::npos) << unknown.out;
}

}  // namespace
