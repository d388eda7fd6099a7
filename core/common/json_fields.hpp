// Reading fields out of parsed JSON and showing values in error messages: the small helpers every
// reader (the config, memory-op, the run directory) shares, so their messages agree. Every value
// a message shows is cut to a short prefix: a 50 MB string in a file is never echoed back.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace proteus::common {

// How "got ..." shows a value: short, on one line. `bare` shows a string as "text" (the config's
// messages), `typed` as string "text" (memory-op's, where numbers are expected everywhere).
enum class Shown { bare, typed };

// The shortest text that reads back as the same double; "nan", "inf", "-inf" for the rest.
std::string format_number(double x);

// A JSON value as "got ..." shows it: numbers and literals as written, a string JSON-quoted and cut
// to about 40 characters, containers as "an array" / "an object" ("[]" when empty).
std::string describe_json(const nlohmann::json& j, Shown style = Shown::bare);

// Text as a JSON string literal, cut to about `limit` bytes ("...\"" marks the cut): for names and
// choices a user typed (a path is shown longer: kShownPath).
inline constexpr size_t kShownText = 40;
inline constexpr size_t kShownPath = 256;
std::string quoted(const std::string& text, size_t limit = kShownText);

// Text cut to about 40 bytes on a character boundary, "..." marking the cut: a key or a word a
// user typed, as a message shows it.
std::string clipped(const std::string& text, size_t limit = kShownText);

// "field[i]"
std::string indexed(const std::string& field, size_t i);

// "a, b, c"
std::string join(const std::vector<std::string>& words);

// An integer, also from an integral float (4.0: Python's json.dump writes integers that way).
// Throws InputError(field, "expected an integer, got ...") or "is too large" past int64.
int64_t read_int64(const nlohmann::json& j, const std::string& field, Shown style = Shown::bare);

// A finite number. Throws InputError(field, "expected a number, got ...") or "must be a finite number".
double read_number(const nlohmann::json& j, const std::string& field, Shown style = Shown::bare);

// True for a string or an array of strings: what a "comment" field may hold.
bool is_text(const nlohmann::json& j);

// The closest of `names` within two edits (a typo of it), or "". A name is never suggested for a
// one-letter key that is only as far from it as its whole length.
std::string closest_name(const std::string& name, const std::vector<std::string>& names);

// "unknown key (did you mean mixer?)", or "unknown key (expected one of a, b, c)" with no close name.
std::string unknown_key_reason(const std::string& key, const std::vector<std::string>& known);

}  // namespace proteus::common
