// For tests of input validation: the field an InputError names, or "(no error)".
#pragma once
#include <functional>
#include <string>

#include "core/common/input_error.hpp"

namespace proteus::test_support {

inline std::string field_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.field();
  }
  return "(no error)";
}

}  // namespace proteus::test_support
