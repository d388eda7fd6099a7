// A check that needs something this machine may lack (python3 with torch): it skips where that is
// missing, except under scripts/test.sh, which sets PROTEUS_REQUIRE_REFERENCE=1 and installs what
// the check needs, so a missing interpreter there is a failure, never a silent skip.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/support/run_command.hpp"

namespace proteus::test_support {

// The first interpreter that imports `module` ($PROTEUS_PYTHON, python3, then /usr/bin/python3,
// which is where Debian's python3-torch is), or "" when none does.
inline std::string python_with(const std::string& module) {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("PROTEUS_PYTHON")) candidates.push_back(env);
  candidates.insert(candidates.end(), {"python3", "/usr/bin/python3"});
  for (const auto& py : candidates)
    if (run_program({py, "-c", "import " + module}).status == 0) return py;
  return "";
}

inline bool reference_checks_required() {
  const char* v = std::getenv("PROTEUS_REQUIRE_REFERENCE");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace proteus::test_support

// Skips the test with `why`, or fails it when PROTEUS_REQUIRE_REFERENCE=1. Returns from the caller.
#define PROTEUS_SKIP_UNLESS_REQUIRED(why)                                                                 \
  do {                                                                                                    \
    if (::proteus::test_support::reference_checks_required())                                             \
      GTEST_FAIL() << why << " (PROTEUS_REQUIRE_REFERENCE=1: this check must run; scripts/install-deps.sh " \
                              "--tests installs what it needs)";                                          \
    GTEST_SKIP() << why;                                                                                  \
  } while (0)
