#include "core/cluster/sbatch_args.hpp"

#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"

namespace proteus::cluster {
namespace {

struct OwnedOption {
  const char* long_name;  // without "--"
  char short_name;        // 0: none
};

// What array.sbatch and merge.sbatch set themselves (--workdir is --chdir's older name).
constexpr OwnedOption kOwned[] = {{"array", 'a'},  {"dependency", 'd'}, {"output", 'o'}, {"error", 'e'},
                                  {"chdir", 'D'},  {"workdir", 0},      {"job-name", 'J'}};

// sbatch's short options that take no argument: anything after them in a bundle is another option.
constexpr std::string_view kShortFlags = "HOQsvWhuV";

// What the word before leaves the next one: nothing, surely its value (a short option, which
// getopt gives the next word whatever it is), or maybe its value (a long option: sbatch knows
// whether it takes one, so a next word that looks like an option is checked as one).
enum class Next { option, value, maybe_value };

[[noreturn]] void refuse_owned(const std::string& field, const std::string& spelling, const OwnedOption& o) {
  throw InputError(field, common::quoted(spelling) + " is --" + o.long_name +
                              ", which the job sets itself; it cannot be passed through");
}

// A long option's name ("out" of "--out=x"): refused when it is, or abbreviates, an owned name.
void check_long(const std::string& word, const std::string& field) {
  const std::string name = word.substr(2, word.find('=') - 2);
  if (name.empty()) throw InputError(field, "expected an sbatch option such as --qos=short, got " + common::quoted(word));
  for (const auto& o : kOwned)
    if (std::string_view(o.long_name).starts_with(name)) refuse_owned(field, word, o);
}

// A bundle of short options ("-vo", "-px"): flags, then at most one option taking the rest (or
// the next word) as its value. Returns true when the next word is that value.
bool check_short(const std::string& word, const std::string& field) {
  for (size_t i = 1; i < word.size(); ++i) {
    for (const auto& o : kOwned)
      if (o.short_name == word[i]) refuse_owned(field, word, o);
    if (kShortFlags.find(word[i]) == std::string_view::npos) return i + 1 == word.size();
  }
  return false;
}

}  // namespace

void check_sbatch_arg(const std::string& value, const std::string& field) {
  if (std::any_of(value.begin(), value.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
    throw InputError(field, "must be one line without control characters, got " + common::quoted(value));
  if (value.find_first_of("'\"\\") != std::string::npos)
    throw InputError(field, "quotes and backslashes are not passed through (sbatch would read them its own way), got " +
                                common::quoted(value));
  std::istringstream words(value);
  std::vector<std::string> list;
  for (std::string w; words >> w;) list.push_back(w);
  if (list.empty()) throw InputError(field, "expected an sbatch option such as --qos=short, got " + common::quoted(value));
  Next next = Next::option;
  for (const auto& w : list) {
    const Next was = std::exchange(next, Next::option);
    if (was == Next::value || (was == Next::maybe_value && !w.starts_with("-"))) continue;
    if (w.starts_with("--")) {
      check_long(w, field);
      if (w.find('=') == std::string::npos) next = Next::maybe_value;
      continue;
    }
    if (w.size() < 2 || w.front() != '-')
      throw InputError(field, "expected an sbatch option such as --qos=short, got " + common::quoted(w));
    if (check_short(w, field)) next = Next::value;
  }
}

}  // namespace proteus::cluster
