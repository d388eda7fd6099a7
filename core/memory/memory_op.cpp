// memory-op's reader and runner: IN.json's value -> MemoryOpRequest -> gated rule in float64 ->
// OUT.json's value. Every refusal names the exact element path, so a user can find it in the file.
#include "core/memory/memory_op.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>

#include "core/common/json_fields.hpp"
#include "core/memory/active_prefix.hpp"
#include "core/memory/rule_coverage.hpp"
#include "core/memory/value_rows_rule.hpp"

namespace proteus::memory {
namespace {

using common::format_number;
using common::indexed;
using common::join;
using nlohmann::json;

const std::vector<std::string>& known_fields() {
  static const std::vector<std::string> fields = {"rule", "E",  "N",  "schedule", "normalize", "q",     "k",
                                                  "v",    "beta", "a",  "p",        "eta",       "gamma", "S0",
                                                  "dO",   "dS",   "recall", "block_axis", "comment"};
  return fields;
}

std::string rule_names() {
  std::vector<std::string> names;
  for (Rule r : all_rules()) names.emplace_back(rule_name(r));
  return join(names);
}

// memory-op's wording of an unknown key: "unknown field, did you mean 'beta'? (expected ...)".
std::string unknown_key_reason(const std::string& key, const std::vector<std::string>& allowed,
                               const std::string& where) {
  const std::string best = common::closest_name(key, allowed);
  std::string reason = "unknown field" + where;
  if (!best.empty()) reason += ", did you mean '" + best + "'?";
  return reason + " (expected " + join(allowed) + ")";
}

// What a value is, for "got ...": memory-op's messages say "string" before a quoted string.
std::string describe(const json& j) { return common::describe_json(j, common::Shown::typed); }

// An array length: known (size >= 0, with where it came from) or to be taken from the data.
struct Extent {
  int64_t size = -1;
  std::string from;  // "T from q" once known; the bare name ("T", "d_k") while unknown
};

double read_number(const json& j, const std::string& field) { return common::read_number(j, field, common::Shown::typed); }

// A row of numbers; an unknown length is taken from the data and must be >= 1.
void read_row(const json& j, const std::string& field, Extent& n, std::vector<double>& out) {
  if (!j.is_array()) {
    if (n.size < 0) throw InputError(field, "expected an array of numbers, got " + describe(j));
    throw InputError(field, "expected an array of " + std::to_string(n.size) + " numbers (" + n.from + "), got " +
                                describe(j));
  }
  const auto got = static_cast<int64_t>(j.size());
  if (n.size < 0) {
    if (got < 1) throw InputError(field, "must hold at least one number (" + n.from + " >= 1), got []");
    n = {got, n.from + " from " + field};
  } else if (got != n.size) {
    throw InputError(field, "expected " + std::to_string(n.size) + " numbers (" + n.from + "), got " +
                                std::to_string(got));
  }
  for (size_t i = 0; i < j.size(); ++i) out.push_back(read_number(j[i], indexed(field, i)));
}

// (rows, cols) numbers, row-major; unknown extents are taken from the data (rows from the array's
// length, cols from row 0) and written back so later fields can be checked against them.
void read_matrix(const json& j, const std::string& field, Extent& rows, Extent& cols, std::vector<double>& out) {
  if (!j.is_array()) {
    if (rows.size < 0) throw InputError(field, "expected an array of rows, got " + describe(j));
    throw InputError(field, "expected an array of " + std::to_string(rows.size) + " rows (" + rows.from + "), got " +
                                describe(j));
  }
  const auto got = static_cast<int64_t>(j.size());
  if (rows.size < 0) {
    if (got < 1) throw InputError(field, "must hold at least one row (" + rows.from + " >= 1), got []");
    rows = {got, rows.from + " from " + field};
  } else if (got != rows.size) {
    throw InputError(field, "expected " + std::to_string(rows.size) + " rows (" + rows.from + "), got " +
                                std::to_string(got));
  }
  out.reserve(out.size() + j.size() * std::max<int64_t>(cols.size, 1));
  for (size_t i = 0; i < j.size(); ++i) read_row(j[i], indexed(field, i), cols, out);
}

// An end of a range: in it (closed) or not (open).
enum class End { closed, open };

// Values must lie between lo and hi, each end closed or open; `range` is how the message writes it.
void check_range(const std::vector<double>& values, const std::string& field, double lo, End lo_end, double hi,
                 End hi_end, const std::string& range) {
  for (size_t i = 0; i < values.size(); ++i) {
    const double x = values[i];
    const bool below = lo_end == End::open ? !(x > lo) : !(x >= lo);
    const bool above = hi_end == End::open ? !(x < hi) : !(x <= hi);
    if (below || above) throw InputError(indexed(field, i), "must be in " + range + ", got " + format_number(x));
  }
}

int64_t read_integer(const json& j, const std::string& field) { return common::read_int64(j, field, common::Shown::typed); }

const json* find(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// The schedule object, with fields relative to it ("type", "unlock[2]"); the caller prefixes "schedule".
ScheduleSpec read_schedule(const json& j) {
  if (!j.is_object())
    throw InputError("", "expected an object like {\"type\": \"uniform\"}, got " + describe(j));
  ScheduleSpec spec;
  const json* type = find(j, "type");
  if (!type) throw InputError("type", "required (one of " + join(schedule_types()) + ")");
  if (!type->is_string()) throw InputError("type", "expected a string, got " + describe(*type));
  const std::string name = type->get<std::string>();
  const auto parsed = common::choice_from_name<ScheduleType>(name);
  if (!parsed)
    throw InputError("type", "unknown schedule '" + common::clipped(name) + "' (expected " + join(schedule_types()) + ")");
  spec.type = *parsed;

  std::vector<std::string> allowed = {"type"};
  if (spec.type == ScheduleType::power) allowed.push_back("p");
  if (spec.type == ScheduleType::custom) allowed.push_back("unlock");
  for (const auto& [key, value] : j.items())
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      throw InputError(common::clipped(key), unknown_key_reason(key, allowed, " for a " + name + " schedule"));

  if (spec.type == ScheduleType::power) {
    if (const json* p = find(j, "p")) {
      spec.power = read_number(*p, "p");
      if (!(spec.power > 0.0)) throw InputError("p", "must be > 0 (1 is uniform), got " + format_number(spec.power));
    }
  }
  if (spec.type == ScheduleType::custom) {
    const json* unlock = find(j, "unlock");
    if (!unlock) throw InputError("unlock", "required by a custom schedule: E positions, 1 = u_1 <= ... <= u_E");
    if (!unlock->is_array())
      throw InputError("unlock", "expected an array of E integer positions, got " + describe(*unlock));
    for (size_t i = 0; i < unlock->size(); ++i) spec.unlock.push_back(read_integer((*unlock)[i], indexed("unlock", i)));
  }
  return spec;
}

// The request's buffers must match its shapes before raw pointers go to the rule.
void check_buffer(const std::vector<double>& buffer, bool given, const char* name, int64_t rows, int64_t cols) {
  const auto want = static_cast<size_t>(given ? rows * cols : 0);
  if (buffer.size() != want)
    throw InputError(name, "holds " + std::to_string(buffer.size()) + " numbers, its shape needs " +
                               std::to_string(want));
}

void check_request(const MemoryOpRequest& r) {
  if (r.T < 1) throw InputError("q", "must hold at least one row (T >= 1)");
  if (r.d_k < 1) throw InputError("q[0]", "must hold at least one number (d_k >= 1)");
  if (r.d_v < 1) throw InputError("v[0]", "must hold at least one number (d_v >= 1)");
  constexpr bool required = true;  // q, k and v are always given
  check_buffer(r.q, required, "q", r.T, r.d_k);
  check_buffer(r.k, required, "k", r.T, r.d_k);
  check_buffer(r.v, required, "v", r.T, r.d_v);
  check_buffer(r.beta, r.has_beta, "beta", r.T, 1);
  check_buffer(r.a, r.has_a, "a", r.T, retention_width(r.rule, r.d_k));
  check_buffer(r.p, r.has_p, "p", r.T, r.d_k);
  check_buffer(r.eta, r.has_eta, "eta", r.T, 1);
  check_buffer(r.gamma, r.has_gamma, "gamma", r.T, r.window);
  check_buffer(r.S0, r.has_S0, "S0", r.d_k, r.d_v);
  check_buffer(r.dO, r.has_dO, "dO", r.T, r.d_v);
  check_buffer(r.dS, r.has_dS, "dS", r.d_k, r.d_v);
}

// (rows, cols) as nested arrays; cols = 0 gives a flat array. JSON has no inf, so overflow is refused.
json to_json(const std::string& name, const std::vector<double>& data, int64_t rows, int64_t cols) {
  for (size_t n = 0; n < data.size(); ++n)
    if (!std::isfinite(data[n])) {
      const std::string at = cols == 0 ? indexed(name, n) : indexed(indexed(name, n / cols), n % cols);
      throw InputError(at, "is " + format_number(data[n]) + " (float64 overflow; scale the inputs down)");
    }
  if (cols == 0) return json(data);
  json out = json::array();
  for (int64_t i = 0; i < rows; ++i)
    out.push_back(json(std::vector<double>(data.begin() + i * cols, data.begin() + (i + 1) * cols)));
  return out;
}

// S_t (d_k, d_v) of a value_rows forward, from its column tapes (each column's front row dropped).
std::vector<double> value_rows_state(const ValueRowsTape<double>& columns, int64_t t, int64_t d_k, int64_t d_v) {
  std::vector<double> S(d_k * d_v);
  for (int64_t j = 0; j < d_v; ++j)
    for (int64_t i = 0; i < d_k; ++i) S[i * d_v + j] = columns.columns[j].S[t * (d_k + 1) + i + 1];
  return S;
}

// o (d_v) = (G ⊙ S)^T q with G laid over M = S^T (value_rows), the first `end` elements of M open.
void value_rows_read(const std::vector<double>& S, const double* q, int64_t end, int64_t d_k, int64_t d_v, double* o) {
  for (int64_t j = 0; j < d_v; ++j) {
    o[j] = 0;
    for (int64_t i = 0; i < d_k; ++i)
      if (value_rows_open(end, i, j, d_k)) o[j] += S[i * d_v + j] * q[i];
  }
}

// recall_error (see the header): row t-1 holds e_i(t) for i = 1..t, read from the tape's S_t
// (value_rows: from its column tapes, read through its mask).
json recall_errors(const MemoryOpRequest& r, const Schedule& schedule, const RuleTape<double>& tape,
                   const ValueRowsTape<double>& columns) {
  const bool capped = r.normalize == KeyNormalize::capped_renormalize;
  const bool by_value = r.block_axis == BlockAxis::value_rows;
  const auto D = static_cast<size_t>(r.D());
  std::vector<double> key(r.d_k), read(r.d_v);
  json rows = json::array();
  for (int64_t t = 1; t <= r.T; ++t) {
    const std::vector<double> S_by_value = by_value ? value_rows_state(columns, t, r.d_k, r.d_v) : std::vector<double>();
    const double* S = by_value ? S_by_value.data() : tape.S.data() + t * D;
    const int64_t end = schedule.active_elements(t);
    const int64_t open = renormalizes(r.normalize) ? schedule.active_rows(t, r.d_v) : r.d_k;
    std::vector<double> errors(t);
    for (int64_t i = 0; i < t; ++i) {
      renormalize_open_rows(r.k.data() + i * r.d_k, key.data(), open, r.d_k, capped, kKeyNormEps);
      if (by_value)
        value_rows_read(S_by_value, key.data(), end, r.d_k, r.d_v, read.data());
      else
        detail::gated_read(S, key.data(), end, r.d_v, read.data());
      double miss = 0, size = 0;
      for (int64_t j = 0; j < r.d_v; ++j) {
        const double v = r.v[i * r.d_v + j];
        miss += (read[j] - v) * (read[j] - v);
        size += v * v;
      }
      errors[i] = size > 0 ? std::sqrt(miss / size) : std::sqrt(miss);
    }
    rows.push_back(to_json(indexed("recall_error", t - 1), errors, 0, 0));
  }
  return rows;
}

// Only known fields, and a comment that is text.
void check_fields(const json& in) {
  if (!in.is_object())
    throw InputError("(top level)", "expected an object like {\"rule\": \"delta\", \"q\": ...}, got " + describe(in));
  for (const auto& [key, value] : in.items())
    if (std::find(known_fields().begin(), known_fields().end(), key) == known_fields().end())
      throw InputError(common::clipped(key), unknown_key_reason(key, known_fields(), ""));
  if (const json* comment = find(in, "comment"))
    if (!common::is_text(*comment))
      throw InputError("comment", "expected a string or an array of strings, got " + describe(*comment));
}

Rule read_rule(const json& in) {
  const json* rule = find(in, "rule");
  if (!rule) throw InputError("rule", "required (one of " + rule_names() + ")");
  if (!rule->is_string()) throw InputError("rule", "expected a string, got " + describe(*rule));
  const auto parsed_rule = rule_from_name(rule->get<std::string>());
  if (!parsed_rule)
    throw InputError("rule", "unknown rule '" + common::clipped(rule->get<std::string>()) + "' (expected " + rule_names() + ")");
  require_rule_covered(*parsed_rule);  // a traits row no loop implements is refused here, by name
  return *parsed_rule;
}

// q, k, v, which fix T, d_k and d_v, bounded before the op's states exist.
void read_qkv(const json& in, MemoryOpRequest& r, Extent& T, Extent& d_k, Extent& d_v) {
  for (const char* name : {"q", "k", "v"})
    if (!find(in, name)) throw InputError(name, "required");
  read_matrix(in["q"], "q", T, d_k, r.q);
  read_matrix(in["k"], "k", T, d_k, r.k);
  read_matrix(in["v"], "v", T, d_v, r.v);
  r.T = T.size, r.d_k = d_k.size, r.d_v = d_v.size;
  // The op keeps every state S_0..S_T (twice with momentum): bounded before anything that size exists.
  // Each factor is below the input's byte count, so the products cannot overflow int64.
  if (r.d_k * r.d_v > kMaxStateElements)
    throw InputError("v[0]", "d_k x d_v = " + std::to_string(r.d_k) + " x " + std::to_string(r.d_v) +
                                 " memory elements (d_k from q[0], d_v from v[0]), more than the limit of " +
                                 std::to_string(kMaxStateElements));
  if ((r.T + 1) * r.d_k * r.d_v > kMaxTapeElements)
    throw InputError("q", "(T + 1) x d_k x d_v = " + std::to_string((r.T + 1) * r.d_k * r.d_v) +
                              " state elements over the sequence, more than the limit of " +
                              std::to_string(kMaxTapeElements) + "; use fewer tokens or narrower rows");
}

// The rule's own inputs (beta, a, p, eta, gamma: each refused where the rule takes none), the
// initial state and the gradients in.
void read_rule_inputs(const json& in, MemoryOpRequest& r, Extent& T, Extent& d_k, Extent& d_v) {
  const std::string rule_text(rule_name(r.rule));
  // Per-token scalars: T numbers, T taken from q.
  const auto read_scalars = [&](const char* name, std::vector<double>& out) {
    const json& j = in[name];
    if (!j.is_array())
      throw InputError(name, "expected an array of " + std::to_string(T.size) + " numbers (" + T.from + "), got " +
                                 describe(j));
    if (static_cast<int64_t>(j.size()) != T.size)
      throw InputError(name, "expected " + std::to_string(T.size) + " numbers (" + T.from + "), got " +
                                 std::to_string(j.size()));
    for (size_t i = 0; i < j.size(); ++i) out.push_back(read_number(j[i], indexed(name, i)));
  };
  const auto refuse_unless = [&](const char* name, bool (*takes)(Rule)) {
    if (find(in, name) && !takes(r.rule))
      throw InputError(name, "only rule " + rules_where(takes, "or") + " takes " + name + " (rule is " + rule_text + ")");
  };

  if ((r.has_beta = find(in, "beta") != nullptr)) {
    read_scalars("beta", r.beta);
    check_range(r.beta, "beta", 0.0, End::closed, 2.0, End::closed, "[0, 2]");
  } else if (rule_uses_beta(r.rule)) {
    throw InputError("beta", "required by rule " + rule_text + " (T numbers in [0, 2])");
  }
  if ((r.has_a = find(in, "a") != nullptr) && rule_traits(r.rule).per_key_retention) {
    read_matrix(in["a"], "a", T, d_k, r.a);  // a row of d_k retentions a step
    for (size_t n = 0; n < r.a.size(); ++n)
      if (!(r.a[n] > 0.0 && r.a[n] <= 1.0))
        throw InputError(indexed(indexed("a", n / r.d_k), n % r.d_k), "must be in (0, 1], got " + format_number(r.a[n]));
  } else if (r.has_a) {
    read_scalars("a", r.a);
    check_range(r.a, "a", 0.0, End::open, 1.0, End::closed, "(0, 1]");
  }
  refuse_unless("p", rule_uses_p);
  if ((r.has_p = find(in, "p") != nullptr)) read_matrix(in["p"], "p", T, d_k, r.p);
  else if (rule_uses_p(r.rule)) throw InputError("p", "required by rule " + rule_text + " ((T, d_k) numbers, like k)");
  refuse_unless("eta", rule_uses_eta);
  if ((r.has_eta = find(in, "eta") != nullptr)) {
    read_scalars("eta", r.eta);
    check_range(r.eta, "eta", 0.0, End::closed, 1.0, End::open, "[0, 1)");
  }
  refuse_unless("gamma", rule_uses_gamma);
  if ((r.has_gamma = find(in, "gamma") != nullptr)) {
    Extent c{-1, "c"};
    read_matrix(in["gamma"], "gamma", T, c, r.gamma);
    r.window = c.size;
  } else if (rule_uses_gamma(r.rule)) {
    throw InputError("gamma", "required by rule " + rule_text + " ((T, c) window weights, c >= 1)");
  }
  if ((r.has_S0 = find(in, "S0") != nullptr)) read_matrix(in["S0"], "S0", d_k, d_v, r.S0);
  if ((r.has_dO = find(in, "dO") != nullptr)) read_matrix(in["dO"], "dO", T, d_v, r.dO);
  if ((r.has_dS = find(in, "dS") != nullptr)) read_matrix(in["dS"], "dS", d_k, d_v, r.dS);
}

// E (default 1) and N (default T), within the memory size and the horizon's bound.
void read_blocks_and_horizon(const json& in, MemoryOpRequest& r) {
  const int64_t D = r.D();
  r.E = 1;
  if (const json* E = find(in, "E")) r.E = read_integer(*E, "E");
  if (r.E < 1 || r.E > D)
    throw InputError("E", "must be in [1, " + std::to_string(D) + "] (the memory size D), got " + std::to_string(r.E));
  r.N = r.T;
  if (const json* N = find(in, "N")) r.N = read_integer(*N, "N");
  if (r.N < 1) throw InputError("N", "must be >= 1 (the schedule's horizon in tokens), got " + std::to_string(r.N));
  if (r.N > kMaxHorizon)
    throw InputError("N", "must be <= " + std::to_string(kMaxHorizon) + " (the schedule's horizon in tokens), got " +
                              std::to_string(r.N));
}

void read_normalize(const json& in, MemoryOpRequest& r) {
  const json* normalize = find(in, "normalize");
  if (!normalize) return;
  const std::string names = join(key_normalize_names());
  if (!normalize->is_string())
    throw InputError("normalize", "expected a string (one of " + names + "), got " + describe(*normalize));
  const auto variant = key_normalize_from_name(normalize->get<std::string>());
  if (!variant)
    throw InputError("normalize", "unknown variant '" + common::clipped(normalize->get<std::string>()) +
                                      "' (expected " + names + ")");
  r.normalize = *variant;
}

// After normalize, which only key rows have.
void read_block_axis(const json& in, MemoryOpRequest& r) {
  const json* axis = find(in, "block_axis");
  if (!axis) return;
  const std::string names = "key_rows, value_rows";
  if (!axis->is_string()) throw InputError("block_axis", "expected a string (one of " + names + "), got " + describe(*axis));
  const auto parsed = block_axis_from_name(axis->get<std::string>());
  if (!parsed || *parsed == BlockAxis::layer)
    throw InputError("block_axis", "unknown or per-layer axis '" + common::clipped(axis->get<std::string>()) +
                                       "' (expected " + names + "; layer runs across a layer's heads, this op one head)");
  r.block_axis = *parsed;
  if (r.block_axis != BlockAxis::value_rows) return;
  if (renormalizes(r.normalize))
    throw InputError("block_axis", "value_rows leaves keys whole; normalize " +
                                       std::string(key_normalize_name(r.normalize)) + " re-normalises over open key rows");
}

void read_recall(const json& in, MemoryOpRequest& r) {
  const json* recall = find(in, "recall");
  if (!recall) return;
  if (!recall->is_boolean()) throw InputError("recall", "expected true or false, got " + describe(*recall));
  r.recall = recall->get<bool>();
  // Every step reads every association so far: bounded before any of it runs.
  const int64_t D = r.D();
  if (r.recall && r.T * (r.T + 1) / 2 * D > kMaxRecallReads)
    throw InputError("recall", "T (T + 1) / 2 x D = " + std::to_string(r.T * (r.T + 1) / 2 * D) +
                                   " element reads, more than the limit of " + std::to_string(kMaxRecallReads) +
                                   "; use fewer tokens or a smaller memory");
}

// The schedule, judged by Schedule itself; its errors are blamed on "schedule" but E's, N's, D's.
void read_request_schedule(const json& in, MemoryOpRequest& r) {
  try {
    if (const json* schedule = find(in, "schedule")) r.schedule = read_schedule(*schedule);
    Schedule::make(r.schedule, r.D(), r.E, r.N);  // the Schedule is the one judge of unlock lists
  } catch (const InputError& e) {
    if (e.field() == "E" || e.field() == "N" || e.field() == "D") throw;
    throw e.under("schedule");
  }
}

}  // namespace

MemoryOpRequest parse_memory_op(const json& in) {
  check_fields(in);
  MemoryOpRequest r;
  r.rule = read_rule(in);
  Extent T{-1, "T"}, d_k{-1, "d_k"}, d_v{-1, "d_v"};
  read_qkv(in, r, T, d_k, d_v);
  read_rule_inputs(in, r, T, d_k, d_v);
  read_blocks_and_horizon(in, r);
  read_normalize(in, r);
  read_recall(in, r);
  read_block_axis(in, r);
  read_request_schedule(in, r);
  return r;
}

json run_memory_op(const MemoryOpRequest& r) {
  check_request(r);
  const Schedule schedule = Schedule::make(r.schedule, r.D(), r.E, r.N);
  const auto given = [](const std::vector<double>& buffer, bool has) { return has ? buffer.data() : nullptr; };

  // q and k as the rule sees them under the normalize variant (copies for normalize_then_mask).
  std::vector<double> q_used(r.q.size()), k_used(r.k.size()), q_norms(r.T), k_norms(r.T);
  renormalize_sequence(r.normalize, schedule, r.T, r.d_k, r.d_v, r.q.data(), q_used.data(), q_norms.data());
  renormalize_sequence(r.normalize, schedule, r.T, r.d_k, r.d_v, r.k.data(), k_used.data(), k_norms.data());

  RuleInputs<double> in;
  in.T = r.T, in.d_k = r.d_k, in.d_v = r.d_v, in.window = r.window;
  in.q = q_used.data(), in.k = k_used.data(), in.v = r.v.data();
  in.beta = given(r.beta, r.has_beta);
  in.a = given(r.a, r.has_a);
  in.p = given(r.p, r.has_p);
  in.eta = given(r.eta, r.has_eta);
  in.gamma = given(r.gamma, r.has_gamma);
  in.S0 = given(r.S0, r.has_S0);

  std::vector<double> o(r.T * r.d_v), S(r.D());  // (T, d_v), (d_k, d_v)
  RuleTape<double> tape;
  ValueRowsTape<double> columns;  // value_rows: one tape per column
  const bool by_value = r.block_axis == BlockAxis::value_rows;
  if (by_value)
    value_rows_rule_forward(r.rule, schedule, in, o.data(), S.data(), r.wants_grads() || r.recall ? &columns : nullptr);
  else
    gated_rule_forward(r.rule, schedule, in, o.data(), S.data(), r.wants_grads() || r.recall ? &tape : nullptr);

  json out;
  out["rule"] = rule_name(r.rule);
  out["D"] = r.D();
  out["E"] = r.E;
  out["N"] = r.N;
  out["normalize"] = key_normalize_name(r.normalize);
  out["block_axis"] = block_axis_name(r.block_axis);
  json spec = {{"type", r.schedule.type}, {"unlock", schedule.unlock()}};
  if (r.schedule.type == ScheduleType::power) spec["p"] = r.schedule.power;
  out["schedule"] = spec;
  std::vector<int64_t> blocks, elements;
  for (int64_t t = 1; t <= r.T; ++t) {
    blocks.push_back(schedule.active_blocks(t));
    elements.push_back(schedule.active_elements(t));
  }
  out["active_blocks"] = blocks;
  out["active_elements"] = elements;
  out["o"] = to_json("o", o, r.T, r.d_v);
  out["S"] = to_json("S", S, r.d_k, r.d_v);
  if (r.recall) out["recall_error"] = recall_errors(r, schedule, tape, columns);
  if (!r.wants_grads()) return out;

  std::vector<double> dq(r.T * r.d_k), dk(r.T * r.d_k), dv(r.T * r.d_v), dbeta(r.T);
  std::vector<double> da(r.T * retention_width(r.rule, r.d_k));
  std::vector<double> dp(rule_uses_p(r.rule) ? r.T * r.d_k : 0), deta(rule_uses_eta(r.rule) ? r.T : 0);
  std::vector<double> dgamma(rule_uses_gamma(r.rule) ? r.T * r.window : 0), dS0(r.D());
  RuleGrads<double> grads;
  grads.q = dq.data(), grads.k = dk.data(), grads.v = dv.data(), grads.beta = dbeta.data(), grads.a = da.data();
  grads.p = rule_uses_p(r.rule) ? dp.data() : nullptr;
  grads.eta = rule_uses_eta(r.rule) ? deta.data() : nullptr;
  grads.gamma = rule_uses_gamma(r.rule) ? dgamma.data() : nullptr;
  grads.S0 = dS0.data();
  if (by_value)
    value_rows_rule_backward(r.rule, schedule, in, columns, given(r.dO, r.has_dO), given(r.dS, r.has_dS), grads);
  else
    gated_rule_backward(r.rule, schedule, in, tape, given(r.dO, r.has_dO), given(r.dS, r.has_dS), grads);
  if (renormalizes(r.normalize)) {  // back through the re-normalisation to the q, k given
    const std::vector<double> dq_used = dq, dk_used = dk;
    renormalize_sequence_backward(r.normalize, schedule, r.T, r.d_k, r.d_v, dq_used.data(), q_used.data(),
                                  q_norms.data(), dq.data());
    renormalize_sequence_backward(r.normalize, schedule, r.T, r.d_k, r.d_v, dk_used.data(), k_used.data(),
                                  k_norms.data(), dk.data());
  }

  json grad;
  grad["q"] = to_json("grad.q", dq, r.T, r.d_k);
  grad["k"] = to_json("grad.k", dk, r.T, r.d_k);
  grad["v"] = to_json("grad.v", dv, r.T, r.d_v);
  if (rule_uses_beta(r.rule) || r.has_beta) grad["beta"] = to_json("grad.beta", dbeta, r.T, 0);
  grad["a"] = to_json("grad.a", da, r.T, rule_traits(r.rule).per_key_retention ? r.d_k : 0);
  if (rule_uses_p(r.rule)) grad["p"] = to_json("grad.p", dp, r.T, r.d_k);
  if (rule_uses_eta(r.rule)) grad["eta"] = to_json("grad.eta", deta, r.T, 0);
  if (rule_uses_gamma(r.rule)) grad["gamma"] = to_json("grad.gamma", dgamma, r.T, r.window);
  grad["S0"] = to_json("grad.S0", dS0, r.d_k, r.d_v);
  out["grad"] = grad;
  return out;
}

}  // namespace proteus::memory
