// NIAH generators, depths and scoring (niah.hpp has the tasks and the exact templates).
// Leaves out tokenisation: the prompt is bytes, and its length is counted in bytes.
#include "core/data/niah.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iterator>
#include <map>
#include <stdexcept>

#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"
#include "core/config/data_values.hpp"

namespace proteus::data::niah {
namespace {

enum class Haystack { noise, essay, needle };
enum class Kind { word, number, uuid };

struct TaskSpec {
  Haystack haystack;
  Kind key;
  Kind value;
  int keys;            // keys inserted (RULER's num_needle_k)
  int values_per_key;  // RULER's num_needle_v
  int asked;           // keys asked (RULER's num_needle_q)
};

// One row per task of config::niah_task_names(), in its order (the names live there, where the
// config's validator reads them).
constexpr TaskSpec kTasks[] = {
    {Haystack::noise, Kind::word, Kind::number, 1, 1, 1},   // s-niah-1
    {Haystack::essay, Kind::word, Kind::number, 1, 1, 1},   // s-niah-2
    {Haystack::essay, Kind::word, Kind::uuid, 1, 1, 1},     // s-niah-3
    {Haystack::essay, Kind::word, Kind::number, 4, 1, 1},   // mk-niah-1
    {Haystack::needle, Kind::word, Kind::number, 1, 1, 1},  // mk-niah-2
    {Haystack::needle, Kind::uuid, Kind::uuid, 1, 1, 1},    // mk-niah-3
    {Haystack::essay, Kind::word, Kind::number, 1, 4, 1},   // mv-niah
    {Haystack::essay, Kind::word, Kind::number, 4, 1, 4},   // mq-niah
};

const char* const kNoise = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again.";
constexpr size_t kNumberLength = 7;
constexpr size_t kUuidLength = 36;
constexpr size_t kLongestSentence = 400;  // an essay unit closes at a space past this, sentence end or not

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string join_query(const std::vector<std::string>& keys) {
  if (keys.size() == 1) return keys[0];
  std::vector<std::string> head(keys.begin(), keys.end() - 1);
  return join(head, ", ") + ", and " + keys.back();
}

std::string known_tasks() { return join(task_names(), ", "); }

const TaskSpec& spec_of(const std::string& task) {
  const auto& names = config::niah_task_names();
  static_assert(std::size(kTasks) == 8, "one spec per task of config::niah_task_names()");
  if (names.size() != std::size(kTasks)) throw std::logic_error("niah: a task of config::niah_task_names() has no spec");
  for (size_t i = 0; i < names.size(); ++i)
    if (task == names[i]) return kTasks[i];
  throw InputError("task", "unknown NIAH task " + common::quoted(task) + " (known: " + known_tasks() + ")");
}

void check_style(const std::string& style) {
  const auto& styles = question_styles();
  if (std::find(styles.begin(), styles.end(), style) == styles.end())
    throw InputError("question", "must be \"short\" or \"ruler\", got " + common::quoted(style));
}

int asked_values(const TaskSpec& s) { return s.asked * s.values_per_key; }
std::string type_name(const TaskSpec& s) {
  const std::string singular = s.value == Kind::uuid ? "uuid" : "number";
  return asked_values(s) == 1 ? singular : singular + "s";
}
std::string plural_type_name(const TaskSpec& s) { return s.value == Kind::uuid ? "uuids" : "numbers"; }

std::string needle_text(const TaskSpec& s, const std::string& key, const std::string& value) {
  return "One of the special magic " + plural_type_name(s) + " for " + key + " is: " + value + ".";
}

std::string preamble(const TaskSpec& s, const std::string& style) {
  if (style == "short") return "";
  const std::string t = type_name(s);
  const bool one = asked_values(s) == 1;
  return std::string(one ? "A" : "Some") + " special magic " + t + (one ? " is" : " are") +
         " hidden within the following text. Make sure to memorize it. I will quiz you about the " + t +
         " afterwards.\n";
}

std::string question_text(const TaskSpec& s, const std::string& style, const std::string& query) {
  const std::string t = type_name(s);
  if (style == "short") return "\nQ: magic " + t + " for " + query + "?\nA:";
  const bool one = asked_values(s) == 1;
  return std::string("\nWhat ") + (one ? "is the" : "are all the") + " special magic " + t + " for " + query +
         " mentioned in the provided text? The special magic " + t + " for " + query +
         " mentioned in the provided text " + (one ? "is" : "are");
}

std::string separator(const TaskSpec& s) { return s.haystack == Haystack::essay ? " " : "\n"; }

size_t longest(const std::vector<std::string>& words) {
  size_t n = 0;
  for (const auto& w : words) n = std::max(n, w.size());
  return n;
}

size_t kind_length(Kind kind) {
  switch (kind) {
    case Kind::number: return kNumberLength;
    case Kind::uuid: return kUuidLength;
    case Kind::word: return longest(key_adjectives()) + 1 + longest(key_nouns());
  }
  return 0;
}

// ---- random values

std::string random_number(std::mt19937_64& rng) {
  return std::to_string(std::uniform_int_distribution<int>(1000000, 9999999)(rng));
}

std::string random_uuid4(std::mt19937_64& rng) {
  unsigned char b[16];
  for (int i = 0; i < 16; i += 8) {
    const uint64_t r = rng();
    for (int j = 0; j < 8; ++j) b[i + j] = static_cast<unsigned char>(r >> (8 * j));
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  char out[37];
  std::snprintf(out, sizeof out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return out;
}

std::string random_word_key(std::mt19937_64& rng) {
  const auto& a = key_adjectives();
  const auto& n = key_nouns();
  return a[std::uniform_int_distribution<size_t>(0, a.size() - 1)(rng)] + "-" +
         n[std::uniform_int_distribution<size_t>(0, n.size() - 1)(rng)];
}

std::string random_of(Kind kind, std::mt19937_64& rng) {
  switch (kind) {
    case Kind::word: return random_word_key(rng);
    case Kind::number: return random_number(rng);
    case Kind::uuid: return random_uuid4(rng);
  }
  return {};
}

// A fresh value of the kind that is not in taken (so each key and value of a sample is unique).
std::string random_unused(Kind kind, std::mt19937_64& rng, const std::vector<std::string>& taken) {
  for (;;) {
    std::string v = random_of(kind, rng);
    if (std::find(taken.begin(), taken.end(), v) == taken.end()) return v;
  }
}

// ---- haystacks

// Sentences of the corpus from a random place, whitespace collapsed, the first one whole.
class EssayReader {
 public:
  EssayReader(const std::string& stream, std::mt19937_64& rng) : s_(stream) {
    at_ = std::uniform_int_distribution<size_t>(0, s_.size() - 1)(rng);
    // Skip to just past a sentence end; a corpus without one is read from where we landed.
    for (size_t skipped = 0; skipped < 4096 && skipped < s_.size(); ++skipped) {
      const char c = next_byte();
      if (is_space(c) && ends_sentence(previous_)) break;
      previous_ += c;
      if (previous_.size() > 8) previous_.erase(0, 1);
    }
  }

  std::string next_sentence() {
    std::string sentence;
    for (size_t read = 0; read < 16 * s_.size() + kLongestSentence; ++read) {
      const char c = next_byte();
      if (!is_space(c)) {
        sentence += c;
      } else if (!sentence.empty()) {
        if (ends_sentence(sentence) || sentence.size() >= kLongestSentence) return sentence;
        if (sentence.back() != ' ') sentence += ' ';
      }
    }
    return sentence;  // only reached for a corpus of whitespace, which loading rejects
  }

 private:
  static bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
  static bool ends_sentence(const std::string& text) {
    size_t i = text.size();
    while (i > 0 && (text[i - 1] == '"' || text[i - 1] == '\'' || text[i - 1] == ')')) --i;
    return i > 0 && (text[i - 1] == '.' || text[i - 1] == '!' || text[i - 1] == '?');
  }
  char next_byte() {
    const char c = s_[at_];
    at_ = (at_ + 1) % s_.size();
    return c;
  }

  const std::string& s_;
  size_t at_ = 0;
  std::string previous_;
};

struct Hay {
  std::string text;              // exactly the budget
  std::vector<size_t> boundary;  // where needles may go: unit starts, and text.size()
};

// Units joined by sep, cut to exactly budget bytes (the last unit may be cut short).
Hay build_hay(const std::function<std::string()>& next_unit, const std::string& sep, size_t budget) {
  Hay h;
  while (h.text.size() < budget) {
    if (!h.text.empty()) h.text += sep;
    if (h.text.size() < budget) h.boundary.push_back(h.text.size());
    h.text += next_unit();
  }
  h.text.resize(budget);
  h.boundary.push_back(budget);
  return h;
}

size_t nearest_boundary(const Hay& h, int depth_percent) {
  const double target = double(depth_percent) / 100.0 * double(h.text.size());
  size_t best = h.boundary.front();
  for (size_t b : h.boundary)
    if (std::abs(double(b) - target) < std::abs(double(best) - target)) best = b;
  return best;
}

}  // namespace

const std::vector<std::string>& task_names() { return config::niah_task_names(); }

bool is_task(const std::string& task) {
  return std::find(task_names().begin(), task_names().end(), task) != task_names().end();
}

bool uses_essay(const std::string& task) { return spec_of(task).haystack == Haystack::essay; }

const std::vector<std::string>& question_styles() { return config::niah_question_styles(); }

const std::vector<std::string>& key_adjectives() {
  static const std::vector<std::string> words = {
      "amber",  "ancient", "azure",   "bold",   "brave",  "bright", "calm",   "clever", "crisp", "dusty",
      "eager",  "fierce",  "frosty",  "gentle", "golden", "hidden", "hollow", "humble", "jolly", "lively",
      "lucky",  "merry",   "misty",   "narrow", "noble",  "polite", "proud",  "quiet",  "rapid", "rosy",
      "rustic", "sandy",   "scarlet", "shy",    "silent", "silver", "smooth", "sturdy", "sunny", "swift",
      "tender", "tidy",    "velvet",  "vivid",  "wild",   "windy",  "wise",   "witty",  "young", "zesty"};
  return words;
}

const std::vector<std::string>& key_nouns() {
  static const std::vector<std::string> words = {
      "anchor",  "beacon", "bridge", "candle",  "canyon", "castle", "cedar",   "comet",  "cottage", "desert",
      "dragon",  "ember",  "falcon", "feather", "forest", "garden", "glacier", "hammer", "harbor",  "island",
      "jungle",  "kettle", "ladder", "lantern", "lotus",  "marble", "meadow",  "mirror", "orchard", "otter",
      "panther", "parrot", "pebble", "pepper",  "planet", "quarry", "rabbit",  "river",  "saddle",  "spider",
      "tiger",   "tunnel", "valley", "violin",  "wagon",  "walrus", "willow",  "window", "yacht",   "zebra"};
  return words;
}

std::vector<int> ruler_depths() {
  std::vector<int> d(40);
  for (int i = 0; i < 40; ++i) d[size_t(i)] = int(std::lround(100.0 * i / 39.0));
  return d;
}

std::vector<int> depths(int n) {
  if (n < 1 || n > 40) throw InputError("eval.niah.depths", "must be in [1, 40], got " + std::to_string(n));
  const std::vector<int> all = ruler_depths();
  if (n == 1) return {all.front()};
  std::vector<int> out;
  for (int i = 0; i < n; ++i) out.push_back(all[size_t(std::lround(39.0 * i / (n - 1)))]);
  return out;
}

int min_total_length(const std::string& task, const std::string& question_style) {
  const TaskSpec& s = spec_of(task);
  check_style(question_style);
  const std::string key(kind_length(s.key), 'k');
  const std::string value(kind_length(s.value), '0');
  const std::vector<std::string> query(size_t(s.asked), key);
  const size_t needles = size_t(s.keys * s.values_per_key) * (needle_text(s, key, value).size() + separator(s).size());
  return int(preamble(s, question_style).size() + needles + 1 +
             question_text(s, question_style, join_query(query)).size());
}

int answer_length(const std::string& task) {
  const TaskSpec& s = spec_of(task);
  const size_t n = size_t(asked_values(s));
  return int(1 + n * kind_length(s.value) + (n - 1) * 2 + 2);
}

namespace {

void check_request(const TaskSpec& s, const std::string& task, int total_length, int depth_percent,
                   const std::string& question_style, const ByteCorpus* essay) {
  check_style(question_style);
  if (depth_percent < 0 || depth_percent > 100)
    throw InputError("depth", "must be in [0, 100] percent, got " + std::to_string(depth_percent));
  const int least = min_total_length(task, question_style);
  if (total_length < least)
    throw InputError("total_length", task + " with the " + question_style + " question needs at least " +
                                         std::to_string(least) + " bytes, got " + std::to_string(total_length));
  if (s.haystack == Haystack::essay && essay == nullptr)
    throw InputError("essay", task + " needs a text corpus for its essay haystack");
}

// A sample's needles: the asked ones in the answer's order (key by key, as the question names
// them), then the others; `taken` holds every key and value drawn.
struct Needles {
  std::vector<std::string> asked, others, taken;
};

// Keys and values, all distinct within the sample; fills out.keys and out.expected.
Needles draw_needles(const TaskSpec& s, std::mt19937_64& rng, NiahSample& out) {
  Needles n;
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values(size_t(s.keys));
  for (int k = 0; k < s.keys; ++k) {
    keys.push_back(random_unused(s.key, rng, n.taken));
    n.taken.push_back(keys.back());
    for (int v = 0; v < s.values_per_key; ++v) {
      values[size_t(k)].push_back(random_unused(s.value, rng, n.taken));
      n.taken.push_back(values[size_t(k)].back());
    }
  }
  std::vector<size_t> key_order(keys.size());
  for (size_t i = 0; i < key_order.size(); ++i) key_order[i] = i;
  std::shuffle(key_order.begin(), key_order.end(), rng);
  for (size_t i = 0; i < key_order.size(); ++i) {
    const size_t k = key_order[i];
    const bool is_asked = i < size_t(s.asked);
    if (is_asked) out.keys.push_back(keys[k]);
    for (const auto& v : values[k]) {
      if (is_asked) out.expected.push_back(v);
      (is_asked ? n.asked : n.others).push_back(needle_text(s, keys[k], v));
    }
  }
  return n;
}

// Filler of `budget` bytes: noise lines, other needles, or the essay's sentences.
Hay build_haystack(const TaskSpec& s, std::mt19937_64& rng, std::vector<std::string>& taken, const ByteCorpus* essay,
                   Split essay_split, const std::string& sep, size_t budget) {
  if (s.haystack == Haystack::noise) return build_hay([] { return std::string(kNoise); }, sep, budget);
  if (s.haystack == Haystack::needle)
    return build_hay(
        [&] {
          std::string k = random_unused(s.key, rng, taken), v = random_unused(s.value, rng, taken);
          return needle_text(s, k, v);
        },
        sep, budget);
  EssayReader reader(essay->stream(essay_split), rng);
  return build_hay([&] { return reader.next_sentence(); }, sep, budget);
}

// Each needle at its own depth, as RULER does: the first asked one at the requested depth (the
// heatmap's row), every other one at a depth drawn without replacement from RULER's 40. Fills
// out.context, its needle depths and offsets.
void place_needles(const Hay& hay, const Needles& needles, const std::string& head, const std::string& sep,
                   int depth_percent, std::mt19937_64& rng, NiahSample& out) {
  std::vector<int> pool;
  for (int d : ruler_depths())
    if (d != depth_percent) pool.push_back(d);
  std::shuffle(pool.begin(), pool.end(), rng);
  struct Placed {
    const std::string* text;
    int asked_index;  // index into out.expected, or -1 for an unasked needle
  };
  std::map<size_t, std::vector<Placed>> at;  // boundary -> needles, in the order they go there
  size_t next_depth = 0;
  for (size_t i = 0; i < needles.asked.size(); ++i) {
    const int d = i == 0 ? depth_percent : pool[next_depth++];
    out.needle_depths.push_back(d);
    at[nearest_boundary(hay, d)].push_back({&needles.asked[i], int(i)});
  }
  for (const auto& n : needles.others) at[nearest_boundary(hay, pool[next_depth++])].push_back({&n, -1});

  std::string context = head;
  out.needle_offsets.assign(needles.asked.size(), 0);
  size_t from = 0;
  for (const auto& [b, placed] : at) {
    context.append(hay.text, from, b - from);
    from = b;
    const bool at_end = b == hay.text.size();
    for (const Placed& n : placed) {
      if (at_end) context += sep;
      if (n.asked_index >= 0) out.needle_offsets[size_t(n.asked_index)] = context.size();
      context += *n.text;
      if (!at_end) context += sep;
    }
  }
  context.append(hay.text, from, std::string::npos);
  out.context = std::move(context);
  out.needle_offset = out.needle_offsets.front();
}

}  // namespace

NiahSample generate(const std::string& task, int total_length, int depth_percent, std::mt19937_64& rng,
                    const std::string& question_style, const ByteCorpus* essay, Split essay_split) {
  const TaskSpec& s = spec_of(task);
  check_request(s, task, total_length, depth_percent, question_style, essay);
  const std::string sep = separator(s);
  constexpr int kAttempts = 100;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    NiahSample out;
    out.task = task;
    out.depth = depth_percent;
    Needles needles = draw_needles(s, rng, out);
    const std::string head = preamble(s, question_style);
    out.question = question_text(s, question_style, join_query(out.keys));
    size_t needle_bytes = 0;
    for (const auto* group : {&needles.asked, &needles.others})
      for (const auto& n : *group) needle_bytes += n.size() + sep.size();
    const size_t budget = size_t(total_length) - head.size() - out.question.size() - needle_bytes;
    const Hay hay = build_haystack(s, rng, needles.taken, essay, essay_split, sep, budget);
    // Real prose may hold a key or a value by chance; then the count of each would be off.
    const bool clash = std::any_of(needles.taken.begin(), needles.taken.end(),
                                   [&](const std::string& t) { return hay.text.find(t) != std::string::npos; });
    if (clash) continue;
    place_needles(hay, needles, head, sep, depth_percent, rng, out);
    out.answer = " " + join(out.expected, ", ") + ".\n";
    return out;
  }
  throw InputError("essay", "the haystack held one of the sample's keys or values in " + std::to_string(kAttempts) +
                                " draws in a row; the corpus seems made of such strings");
}

double string_match_all(const std::string& prediction, const std::vector<std::string>& expected) {
  if (expected.empty()) throw InputError("expected", "needs at least one value to look for");
  const auto lower = [](std::string t) {
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return t;
  };
  const std::string p = lower(prediction);
  int found = 0;
  for (const auto& e : expected) found += p.find(lower(e)) != std::string::npos ? 1 : 0;
  return double(found) / double(expected.size());
}

namespace {

// What follows a training sample's answer: corpus text, else the noise haystack's lines.
std::string filler_text(size_t length, const ByteCorpus* corpus, Split split, std::mt19937_64& rng) {
  if (corpus != nullptr) return corpus->window(split, length, rng);
  std::string text;
  while (text.size() < length) text += std::string(kNoise) + "\n";
  text.resize(length);
  return text;
}

}  // namespace

TrainingSample make_training_sample(std::mt19937_64& rng, int seq_len, const std::vector<std::string>& tasks,
                                    const std::string& question_style, const ByteCorpus* corpus, Split split) {
  if (tasks.empty()) throw InputError("tasks", "needs at least one NIAH task (known: " + known_tasks() + ")");
  const std::string& task = tasks[std::uniform_int_distribution<size_t>(0, tasks.size() - 1)(rng)];
  const std::vector<int> all_depths = ruler_depths();
  const int depth = all_depths[std::uniform_int_distribution<size_t>(0, all_depths.size() - 1)(rng)];
  const int answer = answer_length(task);
  const int least = min_total_length(task, question_style) + answer;
  if (seq_len + 1 < least)
    throw InputError("seq_len", task + " with the " + question_style + " question needs seq_len >= " +
                                    std::to_string(least - 1) + ", got " + std::to_string(seq_len));

  TrainingSample t;
  const int row = seq_len + 1;
  t.sample_length = size_t(std::uniform_int_distribution<int>(std::min(row, std::max(least, seq_len / 4)), row)(rng));
  t.sample = generate(task, int(t.sample_length) - answer, depth, rng, question_style, corpus, split);
  std::string text = t.sample.prompt() + t.sample.answer;  // exactly sample_length bytes
  text += filler_text(size_t(row) - text.size(), corpus, split, rng);
  for (unsigned char c : text) t.tokens.push_back(int32_t(c));
  t.weights.assign(size_t(seq_len), 1.0f);
  t.answer_mask.assign(size_t(seq_len), 0);
  // Target t is token t + 1, so the answer's bytes [P, P + A) are the targets of [P - 1, P + A - 1).
  const size_t prompt = t.sample_length - t.sample.answer.size();
  for (size_t i = prompt - 1; i + 1 < t.sample_length; ++i) t.answer_mask[i] = 1;
  return t;
}

}  // namespace proteus::data::niah
