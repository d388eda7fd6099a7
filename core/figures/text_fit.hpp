// Text fitted to a width, for the figure layout's headings and labels (layout.cpp): wrapped at
// spaces, a word wider than the width broken where it fits, or shortened with "...". Widths come
// from the painter's own font engine, passed in as a function.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace proteus::figures {

// The advance width of a string in the caller's font and size.
using TextWidth = std::function<double(const std::string&)>;

// `s` in lines no wider than `max_w`: broken at spaces; a word wider than `max_w` is broken after
// its last '-', '_', '/', '.' or ',' that fits, else after its last character that fits (never
// inside a UTF-8 sequence). A single character wider than `max_w` keeps a line of its own.
std::vector<std::string> wrap_text(const std::string& s, double max_w, const TextWidth& width);

// `s` when it fits in `max_w`, else its longest prefix that fits followed by "...".
std::string shorten_text(const std::string& s, double max_w, const TextWidth& width);

// `lines` kept to at most `max_lines`, the last kept one shortened to fit `max_w` with "..." when
// any line was dropped.
std::vector<std::string> keep_lines(std::vector<std::string> lines, size_t max_lines, double max_w,
                                    const TextWidth& width);

}  // namespace proteus::figures
