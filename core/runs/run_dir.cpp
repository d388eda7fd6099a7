// The run directory's writer and reader. Metrics go through one O_APPEND descriptor, one write()
// per line, so lines from a crashed or concurrent writer are never interleaved mid-line; every
// other file is replaced whole by write_file_atomically.
#include "core/runs/run_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "core/common/atomic_file.hpp"
#include "core/common/folder_walk.hpp"
#include "core/common/file_read.hpp"
#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"
#include "core/config/config_json.hpp"
#include "core/runs/staged_folder.hpp"

namespace proteus::runs {
namespace {

using nlohmann::json;

bool is_fixed_file(const std::string& file) {
  return file == kConfigFile || file == kMetricsFile || file == kStatusFile;
}

// A file name inside the run directory: one component, visible, no separators.
void check_plain_name(const std::string& file, const char* field = "file") {
  if (file.empty() || file.front() == '.' || file.find('/') != std::string::npos ||
      file.find('\\') != std::string::npos || file.find('\0') != std::string::npos)
    throw InputError(field, "must be a plain name inside its directory (no '/', not starting with '.'), got " +
                                common::quoted(file));
}

void check_result_name(const std::string& file, const std::string& extension) {
  check_plain_name(file);
  if (is_fixed_file(file)) throw InputError("file", common::quoted(file) + " is the run's own file, not a result");
  if (file.size() <= extension.size() || file.compare(file.size() - extension.size(), extension.size(), extension) != 0)
    throw InputError("file", "a result written this way must end in " + extension + ", got " + common::quoted(file));
}

// A run folder is one holding config.json; a path that cannot be told (a symlink loop, no
// permission) is refused with its reason, never thrown as a filesystem_error.
void check_run_folder(const std::filesystem::path& dir) {
  std::error_code ec;
  const auto st = std::filesystem::status(dir / kConfigFile, ec);
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
    throw InputError(dir.generic_string(), "cannot read it (" + ec.message() + ")");
  if (!std::filesystem::is_regular_file(st)) throw InputError(dir.generic_string(), "not a run directory (no config.json)");
}

// The temporaries a killed write left in a run folder (a checkpoint's, a status's). Called with
// the run's lock held: no other writer of this folder is alive, so none of them is being written.
void remove_stale_temporaries(const std::filesystem::path& dir) {
  for (const auto& file : common::list_regular_files(dir, nullptr, true))
    if (common::is_temporary_name(file.filename().string())) {
      std::error_code ec;
      std::filesystem::remove(file, ec);  // one that cannot be removed stays hidden, as before
    }
}

std::string pretty(const json& value) {
  return value.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string shortest(double x) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(x);
}

// Cut to `limit` bytes on a UTF-8 character boundary.
std::string cut_message(const std::string& message, size_t limit) {
  if (message.size() <= limit) return message;
  size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(message[end]) & 0xC0) == 0x80) --end;
  return message.substr(0, end) + "...";
}

void write_status(const std::filesystem::path& dir, RunState state, const std::string& message, int64_t step) {
  const json status = {{"state", state_name(state)},
                       {"message", cut_message(message, kStatusMessageLimit)},
                       {"step", step},
                       {"updated", utc_now()}};
  const std::string text = pretty(status);
  try {
    common::write_file_atomically(dir / kStatusFile, text);
  } catch (const common::WriteError& e) {
    // A full disk has no block for the temporary; the old status file's own block still holds
    // the new text (it is under 4 KB). A run that fails for want of space must still say so.
    if (!e.disk_full() || !std::filesystem::is_regular_file(dir / kStatusFile)) throw;
    common::overwrite_in_place(dir / kStatusFile, text);
  }
}

json parse_file(const std::filesystem::path& path, const common::JsonLimits& limits = kRunFileLimits) {
  return common::read_json_file(path, limits);
}

// The metrics file from `offset` on, at most kMetricsFileLimit bytes in all; "" when it is missing.
std::string read_metrics_from(const std::filesystem::path& path, uint64_t offset) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return "";
  const std::string text = common::read_file(path, kMetricsFileLimit, "a metrics file");
  return offset >= text.size() ? "" : text.substr(offset);
}

}  // namespace

const char* state_name(RunState s) {
  switch (s) {
    case RunState::running: return "running";
    case RunState::finished: return "finished";
    case RunState::cancelled: return "cancelled";
    case RunState::failed: return "failed";
  }
  return "failed";
}

RunState parse_state(const std::string& name) {
  for (RunState s : {RunState::running, RunState::finished, RunState::cancelled, RunState::failed})
    if (name == state_name(s)) return s;
  throw InputError("state", "unknown run state " + common::quoted(name) + " (expected running, finished, cancelled or failed)");
}

const char* observed_state_name(ObservedState s) {
  switch (s) {
    case ObservedState::running: return "running";
    case ObservedState::interrupted: return "interrupted";
    case ObservedState::finished: return "finished";
    case ObservedState::cancelled: return "cancelled";
    case ObservedState::failed: return "failed";
  }
  return "failed";
}

ObservedState observed_state(const RunStatus& status, bool writer_active) {
  switch (status.state) {
    case RunState::running: return writer_active ? ObservedState::running : ObservedState::interrupted;
    case RunState::finished: return ObservedState::finished;
    case RunState::cancelled: return ObservedState::cancelled;
    case RunState::failed: return ObservedState::failed;
  }
  return ObservedState::failed;
}

bool resumable_state(ObservedState s) {
  return s == ObservedState::cancelled || s == ObservedState::failed || s == ObservedState::interrupted;
}

// ---- RunWriter ---------------------------------------------------------------------------------

int RunWriter::open_metrics(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kMetricsFile;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw common::WriteError(path.generic_string() + ": is not a regular file: refusing to append to it", 0);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    throw common::WriteError(path.generic_string() + ": cannot open for appending: " + std::strerror(errno), errno);
  return fd;
}

std::string config_file_text(const json& config) { return pretty(config); }

namespace {
// The same limit as every reader's: a config.json written is one that can be read back.
std::string checked_config_text(const json& config) {
  std::string text = config_file_text(config);
  if (text.size() > kRunFileLimits.max_bytes)
    throw InputError(kConfigFile, "would be " + common::format_bytes(text.size()) + ", over the limit of " +
                                      common::format_bytes(kRunFileLimits.max_bytes) + " its readers hold it to");
  return text;
}
}  // namespace

RunWriter RunWriter::create(const std::filesystem::path& runs_dir, const std::string& name, const json& config) {
  check_plain_name(name, "name");
  const std::string config_text = checked_config_text(config);  // before any folder is made
  // Config and status are written before the folder has its name: whatever stops this (a full disk,
  // a kill) leaves no run folder without a status, only a hidden partial that is cleaned up later.
  StagedFolder staged(runs_dir, name);
  common::write_file_atomically(staged.path() / kConfigFile, config_text);
  write_status(staged.path(), RunState::running, "", 0);
  for (int n = 1;; ++n)  // the rename never replaces: of two runs started at once, the second moves on
    if (staged.commit_as(n == 1 ? name : name + "-" + std::to_string(n))) break;
  // The lock came with the folder: a reader never sees this run "running" with its lock free.
  RunWriter writer(staged.path(), staged.take_lock());
  writer.metrics_fd_ = open_metrics(writer.dir_);
  return writer;
}

std::optional<RunWriter> RunWriter::create_exactly(const std::filesystem::path& parent, const std::string& name,
                                                   const json& config, const std::string& message, int64_t step,
                                                   const std::function<void(const std::filesystem::path&)>& fill) {
  check_plain_name(name, "name");
  const std::string config_text = checked_config_text(config);  // before any folder is made
  StagedFolder staged(parent, name);
  common::write_file_atomically(staged.path() / kConfigFile, config_text);
  write_status(staged.path(), RunState::running, message, step);
  if (fill) fill(staged.path());
  if (!staged.commit_as(name)) return std::nullopt;
  RunWriter writer(staged.path(), staged.take_lock());
  writer.last_step_ = step;
  return writer;
}

RunWriter RunWriter::reopen(const std::filesystem::path& dir) {
  check_run_folder(dir);
  RunWriter writer(dir, RunLock::acquire(dir));
  remove_stale_temporaries(dir);
  try {
    writer.last_step_ = RunReader::open(dir).status().step;
  } catch (const InputError&) {
    // an unreadable status is the caller's to replace
  }
  return writer;
}

RunWriter RunWriter::resume(const std::filesystem::path& dir, int64_t keep_through_step) {
  RunWriter writer = reopen(dir);  // the lock first: nothing is touched while another writer runs
  writer.continue_training(keep_through_step);
  return writer;
}

void RunWriter::continue_training(int64_t keep_through_step) {
  // metrics.jsonl may be replaced below: no descriptor may point at the old one.
  if (metrics_fd_ >= 0) throw std::logic_error("continue_training: this RunWriter is already writing metrics");
  const std::filesystem::path& dir = dir_;
  const std::filesystem::path metrics = dir / kMetricsFile;
  std::error_code ec;
  if (std::filesystem::exists(metrics, ec)) {
    const std::string text = common::read_file(metrics, kMetricsFileLimit, "a metrics file");
    const size_t last_newline = text.rfind('\n');
    const size_t whole = last_newline == std::string::npos ? 0 : last_newline + 1;  // past a torn line
    if (keep_through_step >= 0) {
      // Steps logged after the checkpoint will be trained again: their lines go.
      std::string kept;
      size_t begin = 0;
      while (begin < whole) {
        const size_t nl = text.find('\n', begin);
        const std::string_view line(text.data() + begin, nl - begin);
        bool keep = true;
        try {
          const auto record = metrics_record_from_json(common::parse_json(line, "metrics line", kMetricsLineLimits));
          keep = !record || record->step <= keep_through_step;
        } catch (const InputError&) {
          // an unreadable line is kept as it was: the readers report it where it stands
        }
        if (keep) kept.append(line).push_back('\n');
        begin = nl + 1;
      }
      if (kept.size() != text.size()) common::write_file_atomically(metrics, kept);
    } else if (whole != text.size()) {
      std::filesystem::resize_file(metrics, whole);  // the torn line of a crash
    }
  }
  if (keep_through_step >= 0) last_step_ = keep_through_step;
  write_status(dir, RunState::running, "resumed", last_step_);
  metrics_fd_ = open_metrics(dir);
}

RunWriter::RunWriter(RunWriter&& other) noexcept
    : dir_(std::move(other.dir_)), lock_(std::move(other.lock_)), metrics_fd_(other.metrics_fd_),
      last_step_(other.last_step_) {
  other.metrics_fd_ = -1;
}

RunWriter& RunWriter::operator=(RunWriter&& other) noexcept {
  if (this != &other) {
    if (metrics_fd_ >= 0) ::close(metrics_fd_);
    dir_ = std::move(other.dir_);
    lock_ = std::move(other.lock_);
    metrics_fd_ = other.metrics_fd_;
    last_step_ = other.last_step_;
    other.metrics_fd_ = -1;
  }
  return *this;
}

RunWriter::~RunWriter() {
  if (metrics_fd_ >= 0) ::close(metrics_fd_);
}

void RunWriter::append_line(const std::string& line) {
  if (metrics_fd_ < 0) throw std::logic_error("metrics: this RunWriter has no metrics file (moved from, or reopened for results)");
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(metrics_fd_, line.data() + done, line.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw common::WriteError((dir_ / kMetricsFile).generic_string() + ": cannot append: " + std::strerror(errno), errno);
    }
    done += static_cast<size_t>(n);
  }
}

void RunWriter::append_metrics(const json& record) {
  if (!record.is_object()) throw std::invalid_argument("metrics: a record is a JSON object, got " + common::describe_json(record));
  append_line(record.dump(-1, ' ', false, json::error_handler_t::replace) + "\n");
}

void RunWriter::append_metrics(const MetricsRecord& record) {
  append_line(to_json(record).dump() + "\n");
  last_step_ = record.step;
}

void RunWriter::write_json(const std::string& file, const json& value) {
  check_result_name(file, ".json");
  common::write_file_atomically(dir_ / file, pretty(value));
}

void RunWriter::write_csv(const std::string& file, const std::vector<std::string>& header,
                          const std::vector<std::vector<std::string>>& rows) {
  check_result_name(file, ".csv");
  common::write_file_atomically(dir_ / file, format_csv(header, rows));
}

void RunWriter::write_csv(const std::string& file, const std::vector<std::string>& header,
                          const std::vector<std::vector<double>>& rows) {
  std::vector<std::vector<std::string>> text(rows.size());
  for (size_t r = 0; r < rows.size(); ++r)
    for (double x : rows[r]) text[r].push_back(shortest(x));
  write_csv(file, header, text);
}

void RunWriter::set_status(RunState state, const std::string& message, int64_t step) {
  write_status(dir_, state, message, step);
  last_step_ = step;
}

std::filesystem::path RunWriter::path(const std::string& file) const {
  check_plain_name(file);
  return dir_ / file;
}

// ---- MetricsTail -------------------------------------------------------------------------------

std::vector<json> MetricsTail::poll() {
  std::vector<json> out;
  const std::string chunk = read_metrics_from(path_, offset_);
  // Only whole lines: text after the last newline is a line still being written, or torn by a crash.
  size_t begin = 0;
  for (size_t nl = chunk.find('\n'); nl != std::string::npos; nl = chunk.find('\n', begin)) {
    const std::string_view line(chunk.data() + begin, nl - begin);
    const std::string where = path_.generic_string() + ":" + std::to_string(lines_ + 1);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      json record;
      try {
        record = common::parse_json(line, where, kMetricsLineLimits);
      } catch (const InputError& e) {
        throw InputError(where, "not a JSON object: " + e.reason());
      }
      if (!record.is_object()) throw InputError(where, "not a JSON object: " + common::describe_json(record));
      out.push_back(std::move(record));
    }
    ++lines_;
    begin = nl + 1;
    offset_ += line.size() + 1;
  }
  return out;
}

// ---- RunReader ---------------------------------------------------------------------------------

RunReader RunReader::open(const std::filesystem::path& dir) {
  check_run_folder(dir);
  return RunReader(dir);
}

json RunReader::config() const { return parse_file(dir_ / kConfigFile); }

config::RunConfig RunReader::run_config() const {
  try {
    return config::parse_run_config(config());
  } catch (const InputError& e) {
    throw InputError((dir_ / kConfigFile).generic_string() + ": " + e.field(), e.reason());
  }
}

std::vector<json> RunReader::metrics() const { return MetricsTail(dir_ / kMetricsFile).poll(); }

std::vector<MetricsRecord> RunReader::metric_records() const {
  std::vector<MetricsRecord> out;
  for (const auto& line : metrics())
    if (auto record = metrics_record_from_json(line)) out.push_back(*record);
  return out;
}

bool RunReader::writer_active() const { return RunLock::held(dir_); }

ObservedState RunReader::observed_state() const { return runs::observed_state(status(), writer_active()); }

RunStatus RunReader::status() const {
  const std::filesystem::path path = dir_ / kStatusFile;
  RunStatus status;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) return status;  // between config.json and the first status
  const json j = parse_file(path);
  const std::string where = path.generic_string();
  if (!j.is_object()) throw InputError(where, "expected a JSON object");
  try {
    status.state = parse_state(j.at("state").get<std::string>());
    if (j.contains("message")) status.message = j["message"].get<std::string>();
    if (j.contains("step")) status.step = common::read_int64(j["step"], "step");
    if (j.contains("updated")) status.updated = j["updated"].get<std::string>();
  } catch (const json::exception& e) {
    throw InputError(where, std::string("malformed status: ") + e.what());
  } catch (const InputError& e) {
    throw InputError(where + ": " + e.field(), e.reason());
  }
  return status;
}

std::vector<std::string> RunReader::results() const {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    if (!entry.is_regular_file()) continue;
    const std::string file = entry.path().filename().string();
    const std::string ext = entry.path().extension().string();
    if (is_fixed_file(file) || common::is_temporary_name(file) || file.front() == '.') continue;
    if (ext == ".json" || ext == ".csv") files.push_back(file);
  }
  std::sort(files.begin(), files.end());
  return files;
}

json RunReader::read_json(const std::string& file) const {
  check_plain_name(file);
  return parse_file(dir_ / file, kResultFileLimits);
}

CsvTable RunReader::read_csv(const std::string& file) const {
  check_plain_name(file);
  const std::filesystem::path path = dir_ / file;
  return parse_csv(common::read_file(path, kCsvFileLimit, "a run's CSV file"), path.generic_string());
}

std::string shortest_number(double x) { return shortest(x); }

std::vector<std::string> list_runs(const std::filesystem::path& runs_dir, std::vector<std::string>* unreadable) {
  std::vector<std::string> names;
  for (const auto& dir : common::list_subfolders(runs_dir, unreadable))
    if (common::holds_regular_file(dir, kConfigFile, unreadable)) names.push_back(dir.filename().string());
  return names;
}

// ---- CSV ---------------------------------------------------------------------------------------

std::string format_csv(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string out;
  const auto record = [&](const std::vector<std::string>& fields) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) out += ',';
      const std::string& f = fields[i];
      // A lone empty field is quoted, or its record would read back as a blank line.
      const bool lone_empty = f.empty() && fields.size() == 1;
      if (!lone_empty && f.find_first_of(",\"\r\n") == std::string::npos) {
        out += f;
        continue;
      }
      out += '"';
      for (char ch : f) {
        if (ch == '"') out += '"';
        out += ch;
      }
      out += '"';
    }
    out += '\n';
  };
  record(header);
  for (const auto& row : rows) record(row);
  return out;
}

CsvTable parse_csv(const std::string& text, const std::string& source) {
  std::vector<std::vector<std::string>> records;
  std::vector<size_t> record_lines;  // the line each record starts on, for messages
  std::vector<std::string> fields;
  std::string field;
  size_t line = 1, record_line = 1;
  bool quoted = false, after_quote = false, any = false;  // any: this record has begun
  const auto at = [&](size_t l) { return source + ":" + std::to_string(l); };
  const auto end_field = [&] {
    fields.push_back(std::move(field));
    field.clear();
    after_quote = false;
  };
  const auto end_record = [&] {
    end_field();
    records.push_back(std::move(fields));
    record_lines.push_back(record_line);
    fields.clear();
    any = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
        after_quote = true;
      } else {
        if (ch == '\n') ++line;
        field += ch;
      }
      continue;
    }
    if (ch == '\n' || ch == '\r') {
      if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any) end_record();  // a blank line is no record
      ++line;
      record_line = line;
      continue;
    }
    if (!any) record_line = line;
    any = true;
    if (ch == ',') {
      end_field();
    } else if (ch == '"') {
      if (!field.empty() || after_quote) throw InputError(at(line), "a quote inside an unquoted field");
      quoted = true;
    } else {
      if (after_quote) throw InputError(at(line), "text after a closing quote");
      field += ch;
    }
  }
  if (quoted) throw InputError(at(record_line), "a quoted field is never closed");
  if (any) end_record();

  CsvTable table;
  if (records.empty()) return table;
  table.header = std::move(records.front());
  for (size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != table.header.size())
      throw InputError(at(record_lines[r]), "has " + std::to_string(records[r].size()) + " fields, the header has " +
                                                std::to_string(table.header.size()));
    table.rows.push_back(std::move(records[r]));
  }
  return table;
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace proteus::runs
