// The part of an experiment file's run grid the window's controls cannot edit: variants other
// than the compare pair (rows-per-block's d16..d128, normalize-variants' four), and sweep axes
// beside the one swept field (memory-load's data.mqar.layout beside data.mqar.pairs). Kept as the
// file gives it, shown read-only, and written back on save, so the window trains what
// `proteus train` / `proteus sweep` train from the file. No drawing.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace proteus::gui {

struct KeptGrid {
  nlohmann::json variants = nullptr;                // the file's "variants" array, or null
  nlohmann::json sweep = nlohmann::json::object();  // dotted path -> its list of values

  bool has_variants() const { return variants.is_array() && !variants.empty(); }
  bool empty() const { return !has_variants() && sweep.empty(); }
  size_t variant_count() const { return has_variants() ? variants.size() : 0; }
  // One line per variant ("d16: model.mixer.d_head = 16, data.seq_len = 512") and per axis
  // ("sweep data.mqar.layout: pairs-first, spread").
  std::vector<std::string> describe() const;
  // The config fields the kept grid sets in some run, over what the controls say (sorted, unique).
  std::vector<std::string> fields_set() const;
};

// "16, 32, 64" or "pairs-first, spread": a list of values as the window shows it.
std::string values_text(const nlohmann::json& values);

}  // namespace proteus::gui
