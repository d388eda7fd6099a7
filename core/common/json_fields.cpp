// JSON field helpers (json_fields.hpp). Values in messages are cut on a UTF-8 character boundary,
// so a cut message is still valid text.
#include "core/common/json_fields.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "core/common/input_error.hpp"

namespace proteus::common {
namespace {

using nlohmann::json;

// A JSON string literal of `text`; past `limit` bytes, its prefix and ...". The input is
// cut (on a UTF-8 character boundary), not the literal, so no escape sequence is split.
std::string short_literal(const std::string& text, size_t limit) {
  const auto literal = [](std::string_view s) {
    return json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
  };
  if (text.size() + 2 <= limit) return literal(text);
  size_t cut = limit - 5;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  std::string shown = literal(std::string_view(text).substr(0, cut));
  shown.pop_back();  // the closing quote
  return shown + "...\"";
}

}  // namespace

std::string format_number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return json(x).dump();  // the shortest text that reads back as the same double
}

std::string describe_json(const json& j, Shown style) {
  if (j.is_number_float()) return format_number(j.get<double>());
  if (j.is_number() || j.is_boolean() || j.is_null()) return j.dump();
  if (j.is_string()) return (style == Shown::typed ? "string " : "") + short_literal(j.get_ref<const std::string&>(), kShownText);
  if (j.is_array()) return j.empty() ? "[]" : "an array";
  return "an object";
}

std::string quoted(const std::string& text, size_t limit) { return short_literal(text, limit); }

std::string clipped(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t end = limit - 3;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "...";
}

std::string indexed(const std::string& field, size_t i) { return field + "[" + std::to_string(i) + "]"; }

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

int64_t read_int64(const json& j, const std::string& field, Shown style) {
  if (j.is_number_unsigned()) {
    const auto u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw InputError(field, "is too large, got " + j.dump());
    return static_cast<int64_t>(u);
  }
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_float()) {
    const double x = j.get<double>();
    if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) <= 9007199254740992.0) return static_cast<int64_t>(x);
  }
  throw InputError(field, "expected an integer, got " + describe_json(j, style));
}

double read_number(const json& j, const std::string& field, Shown style) {
  if (!j.is_number()) throw InputError(field, "expected a number, got " + describe_json(j, style));
  const double x = j.get<double>();
  if (!std::isfinite(x)) throw InputError(field, "must be a finite number, got " + format_number(x));
  return x;
}

bool is_text(const json& j) {
  return j.is_string() ||
         (j.is_array() && std::all_of(j.begin(), j.end(), [](const json& line) { return line.is_string(); }));
}

std::string closest_name(const std::string& name, const std::vector<std::string>& names) {
  // Levenshtein distance, one row at a time; a key longer than any name plus two is no typo of it.
  const auto distance = [](std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    return row[b.size()];
  };
  std::string best;
  size_t best_distance = 3;  // farther than two edits is not a typo of that name
  for (const auto& candidate : names) {
    const size_t gap = name.size() > candidate.size() ? name.size() - candidate.size() : candidate.size() - name.size();
    if (gap >= best_distance) continue;  // cheap: a long key costs nothing to compare
    const size_t d = distance(name, candidate);
    // A one-letter name is within two edits of every short name; only suggest real near-misses.
    if (d < best_distance && d < std::max(name.size(), candidate.size())) best_distance = d, best = candidate;
  }
  return best;
}

std::string unknown_key_reason(const std::string& key, const std::vector<std::string>& known) {
  const std::string best = closest_name(key, known);
  if (!best.empty()) return "unknown key (did you mean " + best + "?)";
  return "unknown key (expected one of " + join(known) + ")";
}

}  // namespace proteus::common
