#include "app/gui/state/runs_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "core/config/flat_fields.hpp"
#include "core/config/seed_group_members.hpp"
#include "core/eval/baseline.hpp"
#include "core/eval/seed_group_summary.hpp"

namespace proteus::gui {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Equal but for case (ASCII), without making copies: the filter runs it over every field of every run.
bool same_text(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// The text as a number, when it is one whole ("16", "1e-3", "0.5"); else nullopt.
std::optional<double> as_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool term_holds(const FilterTerm& t, const RunRow& row) {
  if (t.key.empty()) return lower(row.name).find(lower(t.value)) != std::string::npos;
  const auto& want = t.number;
  for (const auto& [path, text] : row.fields) {
    if (!same_text(path, t.key) && !same_text(config::last_component(path), t.key)) continue;
    if (same_text(text, t.value)) return true;
    if (const auto have = as_number(text); have && want && *have == *want) return true;
  }
  return false;
}

bool numeric_column(const std::string& c) { return c == "step" || c == "bpb" || c == "effect"; }

double numeric_value(const RunRow& r, const std::string& c) {
  if (c == "step") return static_cast<double>(r.step);
  if (c == "bpb") return r.bpb;
  return r.effect;
}

// a before b by the numbers, a missing (NaN) one last whichever the direction; 0 when tied.
int compare_numbers(double a, double b, bool ascending) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  if (a == b) return 0;
  return (a < b) == ascending ? -1 : 1;
}

// A field column: numbers by value where both cells are numbers, else text naturally; an empty cell last.
int compare_cells(const std::string& a, const std::string& b, bool ascending) {
  if (a.empty() || b.empty()) return a.empty() == b.empty() ? 0 : (a.empty() ? 1 : -1);
  const auto x = as_number(a), y = as_number(b);
  if (x && y) return compare_numbers(*x, *y, ascending);
  const int c = natural_compare(a, b);
  return ascending ? c : -c;
}

std::string group_of(const RunRow& r) { return r.config ? r.config->group : std::string(); }

}  // namespace

std::map<std::string, std::string> config_field_texts(const config::RunConfig& c) {
  std::map<std::string, std::string> out;
  for (const auto& [path, v] : config::flat_fields(c, config::JsonForm::as_given))
    out.emplace(path, config::field_text(v));
  return out;
}

RunFilter parse_run_filter(const std::string& text) {
  RunFilter f;
  std::istringstream words(text);
  std::string w;
  while (words >> w) {
    const auto eq = w.find('=');
    if (eq == std::string::npos) {
      f.terms.push_back({"", w});
      continue;
    }
    if (eq == 0) f.error = "\"" + w + "\": a field name goes before '=' (rule=delta)";
    else if (eq + 1 == w.size()) f.error = "\"" + w + "\": a value goes after '=' (" + w + "16)";
    else if (w.find('=', eq + 1) != std::string::npos) f.error = "\"" + w + "\": one '=' per term";
    if (!f.error.empty()) {
      f.terms.clear();  // bad text filters nothing
      return f;
    }
    f.terms.push_back({w.substr(0, eq), w.substr(eq + 1)});
    if (const auto v = as_number(f.terms.back().value)) f.terms.back().number = v;
  }
  return f;
}

bool filter_matches(const RunFilter& filter, const RunRow& row) {
  if (!filter.error.empty()) return true;
  return std::all_of(filter.terms.begin(), filter.terms.end(), [&](const FilterTerm& t) { return term_holds(t, row); });
}

int natural_compare(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      // Compare the digit runs as numbers: without leading zeros, the longer is larger.
      size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js ? -1 : 1;
      if (const int c = a.substr(is, ie - is).compare(b.substr(js, je - js)); c != 0) return c < 0 ? -1 : 1;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
    ++i;
    ++j;
  }
  if (i < a.size() || j < b.size()) return i < a.size() ? 1 : -1;
  const int c = a.compare(b);  // equal as numbers ("s02", "s2"): the plain text decides
  return c == 0 ? 0 : (c < 0 ? -1 : 1);
}

std::string field_text(const RunRow& row, const std::string& path) {
  if (path == "run") return row.name;
  if (path == "state") return row.state;
  if (path == "model") return row.summary;
  if (path == "step") return std::to_string(row.step);
  if (numeric_column(path)) {
    const double v = numeric_value(row, path);
    if (std::isnan(v)) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, path == "effect" ? "%+.4f" : "%.4f", v);
    return buf;
  }
  const auto it = row.fields.find(path);
  return it == row.fields.end() ? "" : it->second;
}

bool row_before(const RunRow& a, const RunRow& b, const SortSpec& spec) {
  int c = 0;
  if (numeric_column(spec.column)) {
    c = compare_numbers(numeric_value(a, spec.column), numeric_value(b, spec.column), spec.ascending);
  } else if (spec.column == "run" || spec.column == "state" || spec.column == "model") {
    c = natural_compare(field_text(a, spec.column), field_text(b, spec.column));
    if (!spec.ascending) c = -c;
  } else {
    c = compare_cells(field_text(a, spec.column), field_text(b, spec.column), spec.ascending);
  }
  if (c != 0) return c < 0;
  if (const int n = natural_compare(a.name, b.name); n != 0) return n < 0;
  return a.path < b.path;
}

void pair_baselines(std::vector<RunRow*>& rows) {
  std::vector<eval::BaselineCandidate> candidates;
  for (const auto* r : rows) candidates.push_back({r->name, r->config.get()});
  const eval::Baselines baselines(candidates);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i]->effect = kNoValue;
    rows[i]->baseline.clear();
    const int b = baselines.find(candidates[i]);
    if (b < 0) continue;
    rows[i]->baseline = rows[b]->name;
    rows[i]->effect = rows[i]->bpb - rows[b]->bpb;  // NaN when either has no bpb
  }
}

void mark_seed_group_members(std::vector<RunRow*>& rows) {
  std::map<std::string, std::vector<RunRow*>> groups;
  for (auto* r : rows) {
    r->group_kept = true;
    r->group_note.clear();
    if (const auto g = group_of(*r); !g.empty()) groups[g].push_back(r);
  }
  for (auto& [name, members] : groups) {
    std::vector<config::SeedGroupCandidate> candidates;
    std::vector<RunRow*> of;
    for (auto* r : members) {
      candidates.push_back({r->name, r->config.get()});
      of.push_back(r);
      r->group_kept = false;
    }
    const auto chosen = config::choose_seed_group_members(name, candidates);
    for (size_t k : chosen.kept) of[k]->group_kept = true;
    for (auto* r : of)
      if (!r->group_kept)
        for (const auto& note : chosen.left_out)
          if (note.find("run " + r->name + " left out") != std::string::npos) r->group_note = note;
    for (auto* r : of)
      if (!r->group_kept && r->group_note.empty()) r->group_note = "seed group " + name + ": run " + r->name + " left out";
  }
}

std::vector<std::string> differing_fields(const std::vector<const RunRow*>& rows) {
  std::vector<const FieldTexts*> fields;
  for (const auto* r : rows) fields.push_back(&r->fields);
  return config::differing_fields(fields, {.shown = {"seed"}});
}

namespace {

SeedGroupRow summarise_group(const std::string& name, std::vector<size_t> members, const std::vector<const RunRow*>& rows) {
  SeedGroupRow g;
  g.name = name;
  g.members = std::move(members);
  std::vector<eval::SeedGroupValue> counted;  // the kept members' bpb and paired effect
  for (size_t m : g.members) {
    const auto* r = rows[m];
    if (!r->group_kept) {
      g.notes.push_back(r->group_note);
      continue;
    }
    counted.push_back({r->config ? r->config->seed : 0, r->bpb, r->effect});
  }
  const auto summary = eval::summarise_seed_group(counted);
  g.bpb = summary.mean;
  g.effect = summary.effect;
  return g;
}

}  // namespace

bool RunsView::update(const std::vector<const RunRow*>& rows, uint64_t generation, const std::string& filter_text,
                      const SortSpec& sort, bool grouped, const std::set<std::string>& open_groups) {
  if (valid_ && generation == generation_ && filter_text == filter_text_ && sort == sort_ && grouped == grouped_ &&
      open_groups == open_)
    return false;
  if (!valid_ || filter_text != filter_text_) filter_ = parse_run_filter(filter_text);
  if (differing_generation_ != generation || !valid_) {
    // The configs a scan read again are new objects; unchanged ones are shared: compare pointers.
    std::vector<const void*> configs;
    configs.reserve(rows.size());
    for (const auto* r : rows) configs.push_back(r->config.get());
    if (!valid_ || configs != differing_configs_) {
      differing_ = differing_fields(rows);
      differing_configs_ = std::move(configs);
    }
    differing_generation_ = generation;
  }
  valid_ = true;
  generation_ = generation;
  filter_text_ = filter_text;
  sort_ = sort;
  grouped_ = grouped;
  open_ = open_groups;
  rebuild(rows, sort, grouped, open_groups);
  ++recomputes_;
  return true;
}

void RunsView::rebuild(const std::vector<const RunRow*>& rows, const SortSpec& sort, bool grouped,
                       const std::set<std::string>& open_groups) {
  std::vector<size_t> shown;
  for (size_t i = 0; i < rows.size(); ++i)
    if (filter_matches(filter_, *rows[i])) shown.push_back(i);
  std::sort(shown.begin(), shown.end(), [&](size_t a, size_t b) { return row_before(*rows[a], *rows[b], sort); });
  shown_ = shown.size();
  lines_.clear();
  groups_.clear();
  if (!grouped) {
    for (size_t i : shown) lines_.push_back({-1, i, false});
    return;
  }
  // Seed groups: config.group with two or more shown runs, placed by the sort (see SortSpec).
  std::map<std::string, std::vector<size_t>> by_group;
  for (size_t i : shown)
    if (const auto g = group_of(*rows[i]); !g.empty()) by_group[g].push_back(i);
  struct Item {
    int group = -1;
    size_t row = 0;
    size_t position = 0;  // of its (first) run in the sorted order
  };
  std::vector<Item> items;
  std::map<std::string, int> index;
  for (size_t p = 0; p < shown.size(); ++p) {
    const size_t i = shown[p];
    const auto g = group_of(*rows[i]);
    if (g.empty() || by_group[g].size() < 2) {
      items.push_back({-1, i, p});
      continue;
    }
    if (index.count(g)) continue;
    index[g] = static_cast<int>(groups_.size());
    // The interval over a set of members is kept for the scan: sorting, opening a group or a filter
    // that leaves the group whole does not choose its members again.
    auto members = by_group[g];
    std::vector<size_t> sorted = members;
    std::sort(sorted.begin(), sorted.end());
    std::string key = g;
    for (size_t m : sorted) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "|%d %.17g %.17g", rows[m]->group_kept ? 1 : 0, rows[m]->bpb, rows[m]->effect);
      key += buf;
      if (!rows[m]->group_kept) key += rows[m]->group_note;
    }
    auto cached = group_cache_.find(key);
    if (cached == group_cache_.end()) {
      if (group_cache_.size() > 20000) group_cache_.clear();
      cached = group_cache_.emplace(key, summarise_group(g, sorted, rows)).first;
    }
    SeedGroupRow row = cached->second;
    row.members = std::move(members);  // in the table's order
    groups_.push_back(std::move(row));
    items.push_back({index[g], 0, p});
  }
  const bool numeric = sort.column == "bpb" || sort.column == "effect";
  auto number = [&](const Item& it) {
    if (it.group < 0) return numeric_value(*rows[it.row], sort.column);
    const auto& g = groups_[it.group];
    return sort.column == "bpb" ? g.bpb.mean : g.effect.mean;
  };
  auto name = [&](const Item& it) { return it.group < 0 ? rows[it.row]->name : groups_[it.group].name; };
  std::stable_sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
    int c = 0;
    if (numeric) c = compare_numbers(number(a), number(b), sort.ascending);
    else if (sort.column == "run") c = sort.ascending ? natural_compare(name(a), name(b)) : -natural_compare(name(a), name(b));
    return c != 0 ? c < 0 : a.position < b.position;
  });
  for (const auto& it : items) {
    if (it.group < 0) {
      lines_.push_back({-1, it.row, false});
      continue;
    }
    lines_.push_back({it.group, 0, false});
    if (open_groups.count(groups_[it.group].name))
      for (size_t m : groups_[it.group].members) lines_.push_back({-1, m, true});
  }
}

}  // namespace proteus::gui
