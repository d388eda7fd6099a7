// The run directory (ARCHITECTURE seam 4), the durable record of one run:
//   runs/<name>/config.json     the run's config, written once (atomically)
//   runs/<name>/metrics.jsonl   one JSON object per line, appended and flushed as the run streams
//   runs/<name>/status.json     {"state": "running"|"finished"|"cancelled"|"failed", "message",
//                               "step", "updated"}, replaced atomically at each change
//   runs/<name>/*.json, *.csv   results (per-position loss, NIAH grid, ...), each written atomically
//   runs/<name>/*.safetensors   checkpoints (safetensors.hpp), at paths from RunWriter::path
// Written as it streams and readable at any moment: the runs browser, `proteus eval`, `export` and
// the compare view all read through RunReader, so a live run and a finished one look the same.
// A crash leaves at worst a torn last metrics line, which readers skip.
// One writer at a time: a writer holds the directory's lock (run_lock.hpp) from create, resume or
// reopen to its destruction; a second one is refused. A reader tells a live run from one whose
// writer died (status "running", lock free) with observed_state().
// Every file is read within a size limit and every JSON value through common::parse_json.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/common/json_read.hpp"
#include "core/config/config.hpp"
#include "core/runs/metrics_record.hpp"
#include "core/runs/run_lock.hpp"

namespace proteus::runs {

// UTC now, ISO 8601 ("2026-03-01T12:00:00Z"): the time stamp of every status and record.
std::string utc_now();

enum class RunState { running, finished, cancelled, failed };

const char* state_name(RunState s);                 // "running", ...
RunState parse_state(const std::string& name);      // throws InputError("state", ...)

struct RunStatus {
  RunState state = RunState::running;
  std::string message;
  int64_t step = 0;
  std::string updated;  // UTC, ISO 8601 ("2026-03-01T12:00:00Z"); "" before the first status write
};

// The state a reader shows: the status's, except interrupted for a run whose status says running
// while no writer holds its lock (its process was killed or crashed; it resumes from its checkpoint).
enum class ObservedState { running, interrupted, finished, cancelled, failed };
const char* observed_state_name(ObservedState s);  // "running", "interrupted", ...
ObservedState observed_state(const RunStatus& status, bool writer_active);
// Stopped one way or another and not finished: what a resume continues.
bool resumable_state(ObservedState s);

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// The fixed files of a run directory.
inline constexpr const char* kConfigFile = "config.json";
inline constexpr const char* kMetricsFile = "metrics.jsonl";
inline constexpr const char* kStatusFile = "status.json";

// What a reader accepts: config.json and status.json; a result (.json); metrics.jsonl as a whole,
// and each of its lines; a CSV result.
inline constexpr common::JsonLimits kRunFileLimits{size_t{4} << 20, 64, "a run's config or status"};
// config.json's text as a run writes it. RunWriter refuses one over kRunFileLimits: what it
// writes, its readers can read.
std::string config_file_text(const nlohmann::json& config);
inline constexpr common::JsonLimits kResultFileLimits{size_t{256} << 20, 64, "a run's result file"};
inline constexpr size_t kMetricsFileLimit = size_t{256} << 20;
inline constexpr common::JsonLimits kMetricsLineLimits{size_t{64} << 10, 16, "a metrics line"};
inline constexpr size_t kCsvFileLimit = size_t{256} << 20;

// A status message is cut to this many bytes: it must fit the status file's block on a full disk.
inline constexpr size_t kStatusMessageLimit = 1500;

// Writes one run's directory. One writer per run; the methods are safe to call from several
// threads (metrics lines are single appends, whole files are atomic renames).
class RunWriter {
 public:
  // Makes runs_dir/name, or name-2, name-3, ... when taken (a rename that never replaces is the
  // arbiter, so two runs started at once never share a directory), with config.json and status
  // "running", step 0, already in it when it appears (staged_folder.hpp).
  static RunWriter create(const std::filesystem::path& runs_dir, const std::string& name,
                          const nlohmann::json& config);
  // Makes parent/name exactly, for a folder that reads as a run without training (an evaluation):
  // config.json, status "running" with `message` at `step`, and what `fill` writes, are all in it
  // when it appears. nullopt (and nothing written) when the name is taken. No metrics are appended.
  static std::optional<RunWriter> create_exactly(const std::filesystem::path& parent, const std::string& name,
                                                 const nlohmann::json& config, const std::string& message,
                                                 int64_t step,
                                                 const std::function<void(const std::filesystem::path&)>& fill = {});
  // Reopens an existing run directory to continue it (resuming from a checkpoint): a torn last
  // metrics line from a crash is cut off first, so new lines start clean, and with keep_through_step
  // >= 0 the lines of later steps (to be trained again) are dropped; status becomes "running".
  // Throws InputError when another writer holds the run (nothing is touched then).
  static RunWriter resume(const std::filesystem::path& dir, int64_t keep_through_step = -1);
  // Reopens a run to add results (an evaluation of a saved run): the lock only; status and
  // metrics are left as they are, and no metrics can be appended until continue_training.
  static RunWriter reopen(const std::filesystem::path& dir);
  // What resume does after the lock: trims metrics.jsonl (a torn line; with keep_through_step >= 0
  // the lines of later steps), sets status "running" and opens metrics for appending.
  void continue_training(int64_t keep_through_step = -1);

  RunWriter(RunWriter&& other) noexcept;
  RunWriter& operator=(RunWriter&& other) noexcept;
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;
  ~RunWriter();

  const std::filesystem::path& dir() const { return dir_; }
  std::string name() const { return dir_.filename().string(); }

  // One JSON object as one line, written with a single append and no user-space buffer, so it is
  // on its way to disk when this returns. Throws std::invalid_argument if `record` is not an object.
  void append_metrics(const nlohmann::json& record);
  void append_metrics(const MetricsRecord& record);

  // Results: `file` is a plain name ending in .json or .csv, not one of the fixed files.
  void write_json(const std::string& file, const nlohmann::json& value);
  void write_csv(const std::string& file, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows);
  // Numbers in their shortest exact form (reads back as the same double).
  void write_csv(const std::string& file, const std::vector<std::string>& header,
                 const std::vector<std::vector<double>>& rows);

  // Replaces status.json (atomically; on a full disk, in place as a last resort, so that a run
  // that fails for want of space still says so). The message is cut to kStatusMessageLimit bytes.
  void set_status(RunState state, const std::string& message, int64_t step);
  // The step of the latest status or metrics record: where a failure is reported.
  int64_t last_step() const { return last_step_; }

  // Where a file of this run goes (a checkpoint, say); `file` must be a plain name.
  std::filesystem::path path(const std::string& file) const;

 private:
  RunWriter(std::filesystem::path dir, RunLock lock) : dir_(std::move(dir)), lock_(std::move(lock)) {}
  static int open_metrics(const std::filesystem::path& dir);
  void append_line(const std::string& line);

  std::filesystem::path dir_;
  RunLock lock_;  // released last: after the metrics descriptor closes
  int metrics_fd_ = -1;
  int64_t last_step_ = 0;
};

// Follows metrics.jsonl: each poll returns the complete lines added since the last one. A line
// still being written (no newline yet) waits for the next poll; a missing file reads as empty.
class MetricsTail {
 public:
  explicit MetricsTail(std::filesystem::path metrics_file) : path_(std::move(metrics_file)) {}
  // Throws InputError("<file>:<line>", ...) for a complete line that is not a JSON object.
  std::vector<nlohmann::json> poll();
  size_t lines_read() const { return lines_; }

 private:
  std::filesystem::path path_;
  uint64_t offset_ = 0;  // bytes consumed: always just past a newline
  size_t lines_ = 0;
};

// Reads a run directory, live or finished. Every call reads the files afresh.
class RunReader {
 public:
  // Throws InputError(dir, "not a run directory (no config.json)") for anything else.
  static RunReader open(const std::filesystem::path& dir);

  const std::filesystem::path& dir() const { return dir_; }
  std::string name() const { return dir_.filename().string(); }

  nlohmann::json config() const;
  config::RunConfig run_config() const;     // config() through parse_run_config
  std::vector<nlohmann::json> metrics() const;  // every complete line; a torn last line is skipped
  std::vector<MetricsRecord> metric_records() const;  // the lines that hold a record, typed
  RunStatus status() const;                 // "running" at step 0 until the first status is written
  // True while a writer (training, resuming, evaluating) holds the run's lock.
  bool writer_active() const;
  // The state to show: status.json's, except that a running run whose writer is gone (killed,
  // crashed, the machine restarted) is interrupted (resumable from its checkpoint).
  ObservedState observed_state() const;
  std::vector<std::string> results() const;  // result files (*.json, *.csv but the fixed ones), sorted
  nlohmann::json read_json(const std::string& file) const;
  CsvTable read_csv(const std::string& file) const;

 private:
  explicit RunReader(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::filesystem::path dir_;
};

// The run directories under runs_dir (those holding a config.json), sorted by name; none when
// runs_dir does not exist. A path it cannot read (a symlink loop, no permission) is named in
// `unreadable` when given ("PATH: cannot read it (...); skipped") and the walk goes on.
std::vector<std::string> list_runs(const std::filesystem::path& runs_dir, std::vector<std::string>* unreadable = nullptr);

// A number in its shortest exact form (reads back as the same double), as the result CSVs hold it.
std::string shortest_number(double x);

// RFC 4180 text: fields with a comma, quote or newline are quoted, quotes doubled.
std::string format_csv(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
// Its inverse; the first record is the header. Throws InputError(source:line, ...) on a bad quote
// or a row whose width differs from the header's.
CsvTable parse_csv(const std::string& text, const std::string& source);

}  // namespace proteus::runs
