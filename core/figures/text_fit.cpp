// Wrapping and shortening by measured width: greedy at spaces, then inside a word too long for a
// line (a run name with no spaces in a narrow panel), so no heading line leaves its panel.
#include "core/figures/text_fit.hpp"

#include <sstream>

namespace proteus::figures {
namespace {

// Whether byte i of s starts a character (not a UTF-8 continuation byte).
bool starts_character(const std::string& s, size_t i) {
  return i >= s.size() || (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
}

// Where to break a word wider than max_w: after its last punctuation that fits, else after its
// last character that fits; at least one character.
size_t word_break(const std::string& word, double max_w, const TextWidth& width) {
  size_t fits = 0, after_mark = 0;
  for (size_t end = 1; end <= word.size(); ++end) {
    if (!starts_character(word, end)) continue;
    if (width(word.substr(0, end)) > max_w) break;
    fits = end;
    const char c = word[end - 1];
    if (c == '-' || c == '_' || c == '/' || c == '.' || c == ',') after_mark = end;
  }
  if (after_mark > 0) return after_mark;
  if (fits > 0) return fits;
  size_t first = 1;  // one character, however wide
  while (!starts_character(word, first)) ++first;
  return first;
}

}  // namespace

std::vector<std::string> wrap_text(const std::string& s, double max_w, const TextWidth& width) {
  std::vector<std::string> lines;
  std::string line, word;
  std::istringstream words(s);
  while (words >> word) {
    const std::string longer = line.empty() ? word : line + " " + word;
    if (width(longer) <= max_w) {
      line = longer;
      continue;
    }
    if (!line.empty()) lines.push_back(line);
    line.clear();
    while (width(word) > max_w) {  // a word no line holds: broken where it fits
      const size_t cut = word_break(word, max_w, width);
      if (cut >= word.size()) break;
      lines.push_back(word.substr(0, cut));
      word = word.substr(cut);
    }
    line = word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

std::string shorten_text(const std::string& s, double max_w, const TextWidth& width) {
  if (width(s) <= max_w) return s;
  std::string head = s;
  while (!head.empty()) {
    do head.pop_back();
    while (!head.empty() && !starts_character(head, head.size()));
    while (!head.empty() && head.back() == ' ') head.pop_back();
    if (width(head + "...") <= max_w) break;
  }
  return head + "...";
}

std::vector<std::string> keep_lines(std::vector<std::string> lines, size_t max_lines, double max_w,
                                    const TextWidth& width) {
  if (lines.size() <= max_lines || max_lines == 0) return lines;
  lines.resize(max_lines);
  // The ellipsis says more was there, even where the last kept line had room for it.
  lines.back() = shorten_text(lines.back() + " ...", max_w, width);
  return lines;
}

}  // namespace proteus::figures
