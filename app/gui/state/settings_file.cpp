#include "app/gui/state/settings_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>

#include "core/common/atomic_file.hpp"

namespace proteus::gui {
namespace {

// At most this many dropped lines are named one by one; the rest are counted.
constexpr size_t kNamedDrops = 8;

// A header's two parts: "[Type][Name]" -> {"Type", "Name"}.
struct Header {
  std::string_view type, name;
};

std::optional<Header> header_of(std::string_view line) {
  if (line.size() < 4 || line.front() != '[' || line.back() != ']') return std::nullopt;
  const size_t mid = line.find("][");
  if (mid == std::string_view::npos) return std::nullopt;
  return Header{line.substr(1, mid - 1), line.substr(mid + 2, line.size() - mid - 3)};
}

// A whole decimal number in [lo, hi], nothing else.
bool int_in(std::string_view text, long lo, long hi, long* out = nullptr) {
  long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi) return false;
  if (out) *out = v;
  return true;
}

bool hex_id(std::string_view text) {
  if (text.size() < 3 || text.size() > 10 || text.substr(0, 2) != "0x") return false;
  unsigned long v = 0;
  const auto [end, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), v, 16);
  return ec == std::errc() && end == text.data() + text.size();
}

bool float_in(std::string_view text, double lo, double hi) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size() && std::isfinite(v) && v >= lo && v <= hi;
}

// "A,B" with both whole numbers in [lo, hi].
bool pair_in(std::string_view text, long lo, long hi) {
  const size_t comma = text.find(',');
  return comma != std::string_view::npos && int_in(text.substr(0, comma), lo, hi) && int_in(text.substr(comma + 1), lo, hi);
}

// A [Table] entry's name "0xID,N": its column count N, or 0 when it is not one ImGui could write.
int table_columns(std::string_view name) {
  const size_t comma = name.find(',');
  long n = 0;
  if (comma == std::string_view::npos || !hex_id(name.substr(0, comma)) || !int_in(name.substr(comma + 1), 1, kMaxTableColumns, &n))
    return 0;
  return static_cast<int>(n);
}

bool window_line(std::string_view line) {
  if (line.starts_with("Pos=")) return pair_in(line.substr(4), -16384, 16384);
  if (line.starts_with("Size=")) return pair_in(line.substr(5), 0, 16384);
  if (line.starts_with("Collapsed=")) return int_in(line.substr(10), 0, 1);
  return false;
}

// One "Key=Value" of a table's Column line, checked against the table's column count.
bool column_field(std::string_view field, int columns) {
  const size_t eq = field.find('=');
  if (eq == std::string_view::npos) return false;
  const std::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
  if (key == "UserID") return hex_id(value);
  if (key == "Width") return int_in(value, 0, 16384);
  if (key == "Weight") return float_in(value, 0, 1000);
  if (key == "Visible") return int_in(value, 0, 1);
  if (key == "Order") return int_in(value, 0, columns - 1);
  if (key == "Sort") return value.size() >= 2 && (value.back() == 'v' || value.back() == '^') &&
                            int_in(value.substr(0, value.size() - 1), 0, columns - 1);
  return false;
}

// "RefScale=1.5" or "Column 3 Width=120 Visible=1 Order=2 Sort=0v", every value in range.
bool table_line(std::string_view line, int columns) {
  if (line.starts_with("RefScale=")) return float_in(line.substr(9), 0.01, 100);
  if (!line.starts_with("Column ")) return false;
  std::vector<std::string_view> words;
  for (size_t at = 7; at < line.size();) {
    const size_t space = std::min(line.find(' ', at), line.size());
    if (space > at) words.push_back(line.substr(at, space - at));
    at = space + 1;
  }
  if (words.empty() || !int_in(words.front(), 0, columns - 1)) return false;
  for (size_t i = 1; i < words.size(); ++i)
    if (!column_field(words[i], columns)) return false;
  return true;
}

// The kind of entry a line belongs to: its lines are checked as that kind's (`other`: dropped).
enum class Entry { none, window, table, ours, other };

bool plain_text(std::string_view line) {
  for (unsigned char c : line)
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  return line.size() <= 1024;
}

}  // namespace

std::string sanitize_settings(std::string_view text, std::vector<std::string>* messages) {
  std::string out;
  Entry entry = Entry::none;
  int columns = 0;
  size_t line_no = 0, dropped = 0;
  const auto drop = [&](std::string_view why) {
    if (messages && dropped < kNamedDrops) messages->push_back("line " + std::to_string(line_no) + " dropped: " + std::string(why));
    ++dropped;
  };
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      out += '\n';
      continue;
    }
    if (!plain_text(line)) {
      drop("a control byte or over 1024 characters");
      if (header_of(line)) entry = Entry::other;  // its lines go with it
      continue;
    }
    if (const auto h = header_of(line)) {
      columns = h->type == "Table" ? table_columns(h->name) : 0;
      entry = h->type == "Window" ? Entry::window
              : h->type == "Table" && columns > 0 ? Entry::table
              : h->type == "ProteusLab" && h->name == "Window" ? Entry::ours
                                                                 : Entry::other;
      if (entry == Entry::other) drop(h->type == "Table" ? "a table entry with a column count outside [1, 64]"
                                                          : "an entry this window does not keep");
      else out += std::string(line) + '\n';
      continue;
    }
    const bool kept = entry == Entry::ours || (entry == Entry::window && window_line(line)) ||
                      (entry == Entry::table && table_line(line, columns));
    if (kept) out += std::string(line) + '\n';
    else if (entry != Entry::other) drop("a value out of range, or a line ImGui did not write");
  }
  if (messages && dropped > kNamedDrops) messages->push_back(std::to_string(dropped - kNamedDrops) + " more lines dropped");
  return out;
}

SettingsFileText read_settings_file(const std::filesystem::path& path) {
  SettingsFileText r;
  const auto set_aside = [&](const std::string& why) {
    std::error_code ec;
    std::filesystem::path aside = path;
    aside += ".set-aside";
    std::filesystem::rename(path, aside, ec);
    r.messages.push_back(path.string() + ": " + why + "; " +
                         (ec ? "it could not be set aside (" + ec.message() + "): the layout will not be saved"
                             : "set aside as " + aside.string() + ": the window opens with its defaults"));
    return r;
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return r;
    if (errno == ELOOP) return set_aside("a symlink loop");
    r.messages.push_back(path.string() + ": cannot read it (" + std::strerror(errno) + "): the window opens with its defaults");
    return r;
  }
  if (!S_ISREG(st.st_mode)) return set_aside("not a regular file (a FIFO, a device or a folder)");
  if (static_cast<size_t>(st.st_size) > kSettingsFileLimit) return set_aside("larger than 1 MiB");
  // O_NONBLOCK: should a FIFO replace the file between stat and open, opening it does not wait.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    r.messages.push_back(path.string() + ": cannot open it (" + std::strerror(errno) + "): the window opens with its defaults");
    return r;
  }
  std::string bytes;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    char buf[16384];
    ssize_t n = 0;
    while (bytes.size() <= kSettingsFileLimit && (n = ::read(fd, buf, sizeof buf)) > 0) bytes.append(buf, size_t(n));
  }
  ::close(fd);
  if (bytes.size() > kSettingsFileLimit) return set_aside("larger than 1 MiB");
  std::vector<std::string> dropped;
  r.text = sanitize_settings(bytes, &dropped);
  for (auto& d : dropped) r.messages.push_back(path.string() + ": " + d);
  return r;
}

bool write_settings_file(const std::filesystem::path& path, const std::string& text, std::string* error) {
  try {
    common::write_file_atomically(path, text);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
}

}  // namespace proteus::gui
