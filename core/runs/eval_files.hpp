// The evaluation results' files in a run directory: per_position.json (with per_position.csv and
// per_position_buckets.csv), niah.json (niah.csv, niah_samples.csv), needle.json (needle.csv),
// mqar.json, occupancy.json, block_use.json (block_use.csv). Each JSON file is one record walked
// by its visit() (eval_files.cpp); the CSV files are written beside it for other tools and never
// read back. `proteus train` and `proteus eval` write them, the window, `proteus export` and the
// seed groups read them.
#pragma once
#include <nlohmann/json.hpp>

#include "core/runs/eval_records.hpp"

namespace proteus::runs {

class RunWriter;
class RunReader;

// Writes the file of every result the report holds.
void write_eval_report(RunWriter& writer, const EvalReport& report);
// Reads every result file the run has; a damaged one throws InputError naming the file and field.
EvalReport read_eval_report(const RunReader& reader);

// An interval as the result files store it: {"mean", "lo", "hi", "n"} (NaN as null).
nlohmann::json interval_json(const Interval& interval);
nlohmann::json intervals_json(const std::vector<Interval>& intervals);
// The same for nlohmann's conversions (`json j = interval`), which the record writer uses.
void to_json(nlohmann::json& j, const Interval& interval);

}  // namespace proteus::runs
