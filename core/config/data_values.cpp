#include "core/config/data_values.hpp"

namespace proteus::config {

const std::vector<std::string>& mix_task_names() {
  static const std::vector<std::string> names = {"text", "niah", "mqar", "needle"};
  return names;
}

const std::vector<std::string>& niah_task_names() {
  static const std::vector<std::string> names = {"s-niah-1",  "s-niah-2",  "s-niah-3", "mk-niah-1",
                                                 "mk-niah-2", "mk-niah-3", "mv-niah",  "mq-niah"};
  return names;
}

const std::vector<std::string>& niah_question_styles() {
  static const std::vector<std::string> names = {"short", "ruler"};
  return names;
}

const std::vector<std::string>& mqar_layout_names() {
  static const std::vector<std::string> names = {"pairs-first", "spread"};
  return names;
}

const std::vector<std::string>& needle_form_names() {
  static const std::vector<std::string> names = {"single", "multikey"};
  return names;
}

}  // namespace proteus::config
