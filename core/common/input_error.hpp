// An input error that names the field it is about ("E", "schedule.unlock[2]"), so every face
// (memory-op, the config reader, the window) can report one line that points at the problem.
#pragma once
#include <stdexcept>
#include <string>

namespace proteus {

class InputError : public std::invalid_argument {
 public:
  InputError(std::string field, std::string reason)
      : std::invalid_argument(field + ": " + reason), field_(std::move(field)), reason_(std::move(reason)) {}

  const std::string& field() const { return field_; }
  const std::string& reason() const { return reason_; }

  // The same error seen from one level up: prefix "schedule" turns "unlock" into "schedule.unlock".
  InputError under(const std::string& prefix) const {
    if (field_.empty()) return InputError(prefix, reason_);
    const bool index = field_.front() == '[';
    return InputError(prefix + (index ? "" : ".") + field_, reason_);
  }

 private:
  std::string field_;
  std::string reason_;
};

}  // namespace proteus
