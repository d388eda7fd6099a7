// The values the data fields take, one table each: the config's validator (config_json.cpp), the
// data room's generators and the window's controls all read these. They sit beside the schema
// rather than in core/data because the validator must read them and config is below data (data
// reads config::DataConfig); the data room keeps what each value means (a NIAH task's haystack,
// a layout's order).
#pragma once
#include <string>
#include <vector>

namespace proteus::config {

const std::vector<std::string>& mix_task_names();        // data.mix[i].task: text, niah, mqar, needle
const std::vector<std::string>& niah_task_names();       // data.niah.tasks, eval.niah.tasks: RULER's 8
const std::vector<std::string>& niah_question_styles();  // data.niah.question: short, ruler
const std::vector<std::string>& mqar_layout_names();     // data.mqar.layout: pairs-first, spread
const std::vector<std::string>& needle_form_names();     // data.needle.forms, eval.needle.forms: single, multikey

}  // namespace proteus::config
