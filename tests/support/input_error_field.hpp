// For tests of input validation: the field an InputError names (or the whole error), or "(no error)".
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

// The InputError f throws whole (field and reason), or one with field "(no error)".
inline InputError refusal_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  return InputError("(no error)", "");
}

}  // namespace proteus::test_support
