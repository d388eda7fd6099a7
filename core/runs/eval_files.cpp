#include "core/runs/eval_files.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"
#include "core/runs/record_walk.hpp"
#include "core/runs/run_dir.hpp"

namespace proteus::runs {

using nlohmann::json;

// ---- The walker's values -----------------------------------------------------------------------

RecordReader::RecordReader(const json& root, std::string file) : cur_(&root), file_(std::move(file)) {
  if (!root.is_object()) throw InputError(file_, "expected a JSON object, got " + shown(root));
}

void RecordReader::fail(const std::string& field, const std::string& reason) const {
  throw InputError(file_ + ": " + field, reason);
}

std::string RecordReader::shown(const json& j) { return common::describe_json(j); }

void RecordReader::read(const json& j, const std::string& field, int& out) const {
  int64_t x = 0;
  try {
    x = common::read_int64(j, field);
  } catch (const InputError& e) {
    fail(field, e.reason());
  }
  if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max()) fail(field, "is out of range, got " + shown(j));
  out = static_cast<int>(x);
}

void RecordReader::read(const json& j, const std::string& field, uint64_t& out) const {
  if (!j.is_number_unsigned()) fail(field, "expected a non-negative integer, got " + shown(j));
  out = j.get<uint64_t>();
}

void RecordReader::read(const json& j, const std::string& field, double& out) const {
  if (j.is_null()) {  // JSON has no NaN: the writer stores it as null
    out = std::nan("");
    return;
  }
  if (!j.is_number()) fail(field, "expected a number, got " + shown(j));
  out = j.get<double>();
}

void RecordReader::read(const json& j, const std::string& field, float& out) const {
  double x = 0;
  read(j, field, x);
  out = static_cast<float>(x);
}

void RecordReader::read(const json& j, const std::string& field, bool& out) const {
  if (!j.is_boolean()) fail(field, "expected true or false, got " + shown(j));
  out = j.get<bool>();
}

void RecordReader::read(const json& j, const std::string& field, std::string& out) const {
  if (!j.is_string()) fail(field, "expected a string, got " + shown(j));
  out = j.get<std::string>();
}

void RecordReader::read(const json& j, const std::string& field, Interval& out) const {
  if (!j.is_object()) fail(field, "expected an interval {\"mean\", \"lo\", \"hi\", \"n\"}, got " + shown(j));
  const auto part = [&](const char* key, auto& value) {
    const auto it = j.find(key);
    if (it == j.end()) fail(field + "." + key, "missing");
    read(*it, field + "." + key, value);
  };
  part("mean", out.mean);
  part("lo", out.lo);
  part("hi", out.hi);
  part("n", out.n);
}

json interval_json(const Interval& i) { return {{"mean", i.mean}, {"lo", i.lo}, {"hi", i.hi}, {"n", i.n}}; }

void to_json(json& j, const Interval& i) { j = interval_json(i); }

json intervals_json(const std::vector<Interval>& intervals) {
  json out = json::array();
  for (const auto& i : intervals) out.push_back(interval_json(i));
  return out;
}

namespace {

// ---- The records: one line per field -----------------------------------------------------------

template <class V>
void visit(V& v, PerPositionResult& p) {
  const double ln2 = std::numbers::ln2;
  const Interval& m = p.mean_interval;
  v.field("seq_len", p.seq_len);
  v.field("sequences", p.sequences);
  v.field("mean_nll", p.mean_nll);
  v.derived("bits_per_byte", p.bits_per_byte());
  v.optional("bytes_per_word", p.bytes_per_word);
  v.derived("nll_per_word", p.nll_per_word());
  // Runs evaluated before intervals existed have none: they read back with empty statistics.
  v.optional("mean_nll_interval", p.mean_interval);
  v.derived("bits_per_byte_interval", Interval{m.mean / ln2, m.lo / ln2, m.hi / ln2, m.n});
  v.field("nll", p.nll);
  v.field("bucket_lo", p.bucket_lo);
  v.field("bucket_hi", p.bucket_hi);
  v.field("bucket_nll", p.bucket_nll);
  v.optional("bucket_interval", p.bucket_interval);
  v.optional("sequences_fingerprint", p.sequences_fingerprint);
  v.optional("sequence_nll", p.sequence_nll);
  v.optional("sequence_bucket_nll", p.sequence_bucket_nll);
  v.optional("train_len", p.train_len);
  v.optional("heldout_nll_interval", p.train_interval);
  v.derived("heldout_bits_per_byte_interval", p.heldout_bits_per_byte());
  v.optional("sequence_train_nll", p.sequence_train_nll);
}

// A NIAH task's or a needle form's grid; `name` is the key its name is stored under.
template <class V>
void visit_grid(V& v, NiahTaskGrid& g, const char* name) {
  v.field(name, g.task);
  v.field("lengths", g.lengths);
  v.field("depths", g.depths);
  v.field("score", g.score);
  v.field("mean", g.mean);
}

template <class V>
void visit(V& v, NiahResult& n) {
  v.list("tasks", n.tasks, [&](NiahTaskGrid& g) { visit_grid(v, g, "task"); });
}

template <class V>
void visit(V& v, NeedleResult& n) {
  v.derived("unit", std::string("tokens"));
  v.derived("score", std::string("greedy answer token correct, % of samples per cell"));
  v.field("vocab", n.vocab);
  v.field("distractors", n.distractors);
  v.field("samples", n.samples);
  v.list("forms", n.forms, [&](NiahTaskGrid& g) { visit_grid(v, g, "form"); });
}

template <class V>
void visit(V& v, MqarResult& m) {
  v.field("samples", m.samples);
  v.field("answers", m.answers);
  v.field("accuracy", m.accuracy);
  // Runs written before the layout switch used Zoology's layout and carry no note.
  v.optional("layout", m.layout);
  v.optional("note", m.note);
}

template <class V>
void visit(V& v, BlockUseResult& u) {
  v.field("applicable", u.applicable);
  if (!u.applicable) {
    v.optional("reason", u.reason);
    return;
  }
  v.field("layers", u.layers);
  v.field("heads", u.heads);
  v.field("blocks", u.blocks);
  v.field("sequences", u.sequences);
  v.field("positions", u.positions);
  v.field("open_blocks", u.open_blocks);
  v.derived("layout", std::string("share (layers, heads, positions, blocks); entropy (layers, heads, positions)"));
  v.field("share", u.share);
  v.field("entropy", u.entropy);
  v.field("entropy_open", u.entropy_open);
  v.field("mean_entropy", u.mean_entropy);
}

template <class V>
void visit(V& v, OccupancyResult& o) {
  v.field("layers", o.layers);
  v.field("heads", o.heads);
  v.field("seq_len", o.seq_len);
  v.field("blocks", o.blocks);
  v.derived("layout", std::string("(layers, heads, seq_len, blocks)"));
  v.field("norms", o.norms);
}

// ---- Files -------------------------------------------------------------------------------------

template <class Record>
void write_record(RunWriter& w, const std::string& file, const Record& record) {
  Record copy = record;  // visit() takes a mutable record; the walk only reads it
  json j = json::object();
  RecordWriter walker(j);
  visit(walker, copy);
  w.write_json(file, j);
}

template <class Record>
std::optional<Record> read_record(const RunReader& reader, const std::vector<std::string>& files,
                                  const std::string& file) {
  if (std::find(files.begin(), files.end(), file) == files.end()) return std::nullopt;
  const json j = reader.read_json(file);
  RecordReader walker(j, (reader.dir() / file).generic_string());
  Record record;
  visit(walker, record);
  return record;
}

// per_position.csv (every position) and per_position_buckets.csv (mean, lo, hi, n: mean NLL in
// nats over the bucket with its bootstrap interval over sequences).
void write_per_position_csv(RunWriter& w, const PerPositionResult& p) {
  std::vector<std::vector<double>> rows;
  for (size_t t = 0; t < p.nll.size(); ++t) rows.push_back({double(t + 1), p.nll[t], std::exp(p.nll[t])});
  w.write_csv("per_position.csv", {"position", "nll", "ppl"}, rows);
  rows.clear();
  for (size_t b = 0; b < p.bucket_nll.size(); ++b) {
    const Interval i = b < p.bucket_interval.size() ? p.bucket_interval[b] : Interval{p.bucket_nll[b], p.bucket_nll[b], p.bucket_nll[b], 0};
    rows.push_back({double(p.bucket_lo[b]), double(p.bucket_hi[b]), i.mean, i.lo, i.hi, double(i.n), std::exp(i.mean)});
  }
  w.write_csv("per_position_buckets.csv", {"position_lo", "position_hi", "mean", "lo", "hi", "n", "ppl"}, rows);
}

// "51 3 77": every asked needle's depth, percent, the requested one first.
std::string needle_depths_text(const std::vector<int>& depths) {
  std::string out;
  for (int d : depths) {
    if (!out.empty()) out += ' ';
    out += std::to_string(d);
  }
  return out;
}

// niah.csv (each grid's cells) and niah_samples.csv (every sample's prediction).
void write_niah_csv(RunWriter& w, const NiahResult& n) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : n.tasks)
    for (size_t d = 0; d < g.depths.size(); ++d)
      for (size_t l = 0; l < g.lengths.size(); ++l)
        rows.push_back({g.task, std::to_string(g.depths[d]), std::to_string(g.lengths[l]), std::to_string(g.at(d, l))});
  w.write_csv("niah.csv", {"task", "depth", "length", "score"}, rows);
  rows.clear();
  for (const auto& s : n.samples)
    rows.push_back({s.task, std::to_string(s.length), std::to_string(s.depth), needle_depths_text(s.needle_depths),
                    s.expected, s.prediction, std::to_string(s.score)});
  w.write_csv("niah_samples.csv", {"task", "length", "depth", "needle_depths", "expected", "prediction", "score"}, rows);
}

// block_use.csv: the entropy per layer, head and position; layer = head = -1: the mean over them.
void write_block_use_csv(RunWriter& w, const BlockUseResult& u) {
  std::vector<std::vector<double>> rows;
  for (size_t p = 0; p < u.positions.size(); ++p) {
    const auto& i = u.mean_entropy[p];
    rows.push_back({-1, -1, double(u.positions[p]), double(u.open_blocks[p]), i.mean, i.lo, i.hi, double(i.n)});
  }
  for (int l = 0; l < u.layers; ++l)
    for (int h = 0; h < u.heads; ++h)
      for (size_t p = 0; p < u.positions.size(); ++p) {
        const auto& i = u.entropy_at(l, h, static_cast<int>(p));
        rows.push_back({double(l), double(h), double(u.positions[p]), double(u.open_blocks[p]), i.mean, i.lo, i.hi, double(i.n)});
      }
  w.write_csv("block_use.csv", {"layer", "head", "position", "open_blocks", "mean", "lo", "hi", "n"}, rows);
}

void write_needle_csv(RunWriter& w, const NeedleResult& n) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : n.forms)
    for (size_t d = 0; d < g.depths.size(); ++d)
      for (size_t l = 0; l < g.lengths.size(); ++l)
        rows.push_back({g.task, std::to_string(g.depths[d]), std::to_string(g.lengths[l]), std::to_string(g.at(d, l)),
                        std::to_string(n.samples)});
  w.write_csv("needle.csv", {"form", "depth", "length_tokens", "accuracy", "samples"}, rows);
}

}  // namespace

void write_eval_report(RunWriter& w, const EvalReport& r) {
  if (r.per_position) {
    write_per_position_csv(w, *r.per_position);
    write_record(w, "per_position.json", *r.per_position);
  }
  if (r.niah) {
    write_niah_csv(w, *r.niah);
    write_record(w, "niah.json", *r.niah);
  }
  if (r.block_use) {
    if (r.block_use->applicable) write_block_use_csv(w, *r.block_use);
    write_record(w, "block_use.json", *r.block_use);
  }
  if (r.needle) {
    write_needle_csv(w, *r.needle);
    write_record(w, "needle.json", *r.needle);
  }
  if (r.mqar) write_record(w, "mqar.json", *r.mqar);
  if (r.occupancy) write_record(w, "occupancy.json", *r.occupancy);
}

EvalReport read_eval_report(const RunReader& reader) {
  const auto files = reader.results();
  EvalReport r;
  r.per_position = read_record<PerPositionResult>(reader, files, "per_position.json");
  r.niah = read_record<NiahResult>(reader, files, "niah.json");
  r.needle = read_record<NeedleResult>(reader, files, "needle.json");
  r.mqar = read_record<MqarResult>(reader, files, "mqar.json");
  r.block_use = read_record<BlockUseResult>(reader, files, "block_use.json");
  r.occupancy = read_record<OccupancyResult>(reader, files, "occupancy.json");
  return r;
}

}  // namespace proteus::runs
