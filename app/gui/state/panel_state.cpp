#include "app/gui/state/panel_state.hpp"

namespace proteus::gui {

std::vector<std::string> ExportChoice::formats() const {
  std::vector<std::string> out;
  const auto& all = figures::export_formats();
  for (size_t i = 0; i < all.size() && i < ticked.size(); ++i)
    if (ticked[i]) out.push_back(all[i]);
  return out;
}

}  // namespace proteus::gui
