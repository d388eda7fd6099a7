// Issue 34: a --sbatch-arg value read as sbatch reads an #SBATCH line (core/cluster/sbatch_args.hpp):
// the job's own options are refused in every spelling, other options pass, and a refusal names
// the option and cuts a long value.
#include <gtest/gtest.h>

#include <string>

#include "core/cluster/sbatch_args.hpp"
#include "core/common/input_error.hpp"

namespace {

using proteus::cluster::check_sbatch_arg;

// The refusal's text, or "" when the value is accepted.
std::string refusal(const std::string& value) {
  try {
    check_sbatch_arg(value, "--sbatch-arg[2]");
  } catch (const proteus::InputError& e) {
    EXPECT_EQ(e.field(), "--sbatch-arg[2]") << value;
    return e.reason();
  }
  return "";
}

TEST(SbatchArgs, TheJobsOwnOptionsAreRefusedInEverySpelling) {
  const std::pair<const char*, const char*> cases[] = {
      {"--output=x", "--output"},   {"--output x", "--output"},     {"--outp=x", "--output"},    {"--o=x", "--output"},
      {"-o x", "--output"},         {"-ox", "--output"},            {"-vQox", "--output"},       {"-Hvo x", "--output"},
      {"--error=e", "--error"},     {"-ee", "--error"},             {"--array=0-9", "--array"},  {"-a 1", "--array"},
      {"--arr=1", "--array"},       {"--dependency=x", "--dependency"}, {"-dafterok:1", "--dependency"},
      {"--chdir=/", "--chdir"},     {"-D /", "--chdir"},            {"--workdir=/", "--workdir"},
      {"--job-name=x", "--job-name"}, {"--job x", "--job-name"},    {"-Jx", "--job-name"},
      {"--qos=short -o x", "--output"}, {"--mem 8G --chdir=/", "--chdir"}, {"--exclusive -J x", "--job-name"}};
  for (const auto& [value, owned] : cases) {
    const std::string why = refusal(value);
    EXPECT_NE(why.find(std::string(" is ") + owned + ", which the job sets itself"), std::string::npos)
        << value << " -> " << why;
  }
}

TEST(SbatchArgs, OtherOptionsPassInTheirSpellings) {
  for (const char* value : {"--qos=short", "--qos short", "-q short", "-qshort", "-p debug", "-pdebug", "-p -o",
                            "--mem=8G", "--mem 8G", "--exclusive", "-v", "-vv", "--comment=x --mem=1G",
                            "--export=ALL", "--exclude=node1", "-x node1", "--account-like=1"})
    EXPECT_EQ(refusal(value), "") << value;
}

TEST(SbatchArgs, WhatSbatchWouldReadItsOwnWayIsRefused) {
  EXPECT_NE(refusal("").find("expected an sbatch option"), std::string::npos);
  EXPECT_NE(refusal("   ").find("expected an sbatch option"), std::string::npos);
  EXPECT_NE(refusal("qos=short").find("expected an sbatch option"), std::string::npos);
  EXPECT_NE(refusal("--qos=short stray").find("expected an sbatch option"), std::string::npos)
      << "a word after an option with its value is no option";
  EXPECT_NE(refusal("--").find("expected an sbatch option"), std::string::npos);
  EXPECT_NE(refusal("--comment=\"a b\"").find("quotes and backslashes"), std::string::npos);
  EXPECT_NE(refusal("--comment=a\\ b").find("quotes and backslashes"), std::string::npos);
  EXPECT_NE(refusal("--qos=a\nb").find("control characters"), std::string::npos);
  const std::string long_value = "--output=" + std::string(5000, 'x');
  EXPECT_LT(refusal(long_value).size(), 200u) << "a long value is cut";
}

}  // namespace
