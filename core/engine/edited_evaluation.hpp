// `proteus eval RUN --set PATH=VALUE --as NAME`: a trained run evaluated under a config delta, into
// RUN/evals/NAME/ (ARCHITECTURE seam 7). The folder reads as a run directory: config.json (the
// edited config), status.json, delta.json (the overrides and the run they apply to) and the result
// files in the run's own formats, so the runs browser and `proteus export` read it as they read a
// run. The run's own files are never written; an existing NAME is refused.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "core/engine/experiment_job.hpp"
#include "core/engine/trained_run.hpp"

namespace proteus::engine {

inline constexpr const char* kEvalsFolder = "evals";
inline constexpr const char* kDeltaFile = "delta.json";

// RUN/evals/NAME. Throws InputError("name", ...) unless NAME is a plain folder name
// (letters, digits, '.', '-', '_'; not starting with '.').
std::filesystem::path evaluation_folder(const std::string& run_dir, const std::string& name);

// Checks everything that can fail before any work: the run, the delta, the name, that the folder
// is free. Throws InputError naming the problem ("name: RUN/evals/x already exists ...").
void check_edited_evaluation(const std::string& run_dir, const std::string& name, const ConfigDelta& delta);

// Evaluates the run under the delta (every evaluation its edited eval section enables) into
// RUN/evals/NAME and returns the folder. A cancelled or failed evaluation leaves the folder with
// status "cancelled" / "failed" and what finished.
std::filesystem::path evaluate_into_folder(const std::string& run_dir, const std::string& name,
                                           const ConfigDelta& delta, const eval::EvalProgress& progress = {});

// The same for several runs on a worker thread, watched like any job (one RunView per run, its
// run_dir the new folder). Checks every run first, in the caller's thread.
ExperimentHandle start_edited_evaluation(std::vector<std::string> run_dirs, std::string name, ConfigDelta delta);

}  // namespace proteus::engine
