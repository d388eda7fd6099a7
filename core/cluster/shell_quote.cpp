#include "core/cluster/shell_quote.hpp"

namespace proteus::cluster {

std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace proteus::cluster
