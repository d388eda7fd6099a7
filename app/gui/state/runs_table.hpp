// The runs browser's table as plain logic (issue 38): the filter typed over it, natural order, sorting
// by any column, seed groups with their intervals, the paired effect of each gated run against its
// E = 1 baseline, and the config fields that differ across the folder. No ImGui: the view asks
// RunsView for its rows once per frame, and RunsView recomputes only when its inputs change.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/config.hpp"
#include "core/eval/statistics.hpp"

namespace proteus::gui {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// A run's config leaves by dotted path, as text: read once per config and shared (immutable), so a
// scan's rows copy and free cheaply on the window's thread.
class FieldTexts {
 public:
  using Map = std::map<std::string, std::string>;
  FieldTexts() = default;
  FieldTexts(Map m) : map_(std::make_shared<const Map>(std::move(m))) {}  // NOLINT: a map is its fields
  Map::const_iterator begin() const { return map().begin(); }
  Map::const_iterator end() const { return map().end(); }
  Map::const_iterator find(const std::string& path) const { return map().find(path); }
  const std::string& at(const std::string& path) const { return map().at(path); }
  bool empty() const { return map().empty(); }

 private:
  const Map& map() const {
    static const Map none;
    return map_ ? *map_ : none;
  }
  std::shared_ptr<const Map> map_;
};

// What the table shows of one run (RunEntry in runs_browser.hpp derives from it).
struct RunRow {
  std::string path;
  std::string name;
  std::string state;
  int64_t step = 0;
  std::string summary;                         // rule, E, d_model
  FieldTexts fields;   // every config leaf by dotted path, as text; empty when unreadable
  std::shared_ptr<const config::RunConfig> config;  // null when config.json does not parse
  double bpb = kNoValue;     // held-out bits per byte (the evaluation's, else the last validation value)
  double effect = kNoValue;  // a gated run's bpb minus its E = 1 baseline's (same seed, same config otherwise)
  std::string baseline;      // that baseline's name; "" when none pairs
  // Counted in its seed group's interval (mark_seed_group_members); else group_note says why not.
  bool group_kept = true;
  std::string group_note;
};

// Every leaf of the config (config::flat_fields, as given) by dotted path, as the table shows it:
// strings as they are, numbers in their shortest exact form, the rest as JSON.
std::map<std::string, std::string> config_field_texts(const config::RunConfig& c);

// ---- the filter ----------------------------------------------------------------------------
// Whitespace-separated terms, all of which must hold (AND). `key=value` holds when a config field
// whose full dotted path, or whose last path component, is `key` reads `value` (case-insensitive
// text; numbers as the config holds them: `lr=0.001`). A bare word holds when the run's name
// contains it (case-insensitive). A term "=x" or "k=" is bad text: `error` says which, and a bad
// filter hides nothing (the table shows every run, the box shows the error).
struct FilterTerm {
  std::string key;    // empty for a bare word
  std::string value;  // the word, or the value after '='
  std::optional<double> number;  // the value read as a number, when it is one
};
struct RunFilter {
  std::vector<FilterTerm> terms;
  std::string error;  // "" when the text parses
  bool empty() const { return terms.empty(); }
};
RunFilter parse_run_filter(const std::string& text);
bool filter_matches(const RunFilter& filter, const RunRow& row);

// ---- order -----------------------------------------------------------------------------------
// Natural order: runs of digits compare as numbers ("-c2" < "-c10", "s2" < "s10"), the rest by
// byte; -1, 0 or 1. Equal numbers with other leading zeros fall back to the text ("s02" after "s2").
int natural_compare(std::string_view a, std::string_view b);

// A column to sort by: "run", "state", "step", "bpb", "effect", "model", or a config field's dotted path.
struct SortSpec {
  std::string column = "run";
  bool ascending = true;
  bool operator==(const SortSpec&) const = default;
};
// The column's value of a row as text (the cell a field column draws).
std::string field_text(const RunRow& row, const std::string& path);
// a before b under the spec: numbers by value (a missing value last, whichever the direction),
// text naturally; ties by name (naturally), then path.
bool row_before(const RunRow& a, const RunRow& b, const SortSpec& spec);

// ---- pairing and seed groups -------------------------------------------------------------------
// Sets each gated run's effect and baseline: a memory run with E > 1 pairs with the run among the
// rows that eval::find_baseline picks (core/eval/baseline.hpp: same seed and config but the
// schedule's own fields; the rule the seed groups and the gating-effect figures pair by);
// effect = its bpb minus the baseline's. Others get none.
void pair_baselines(std::vector<RunRow*>& rows);

// Marks which runs of each seed group (config.group) count in its interval: those
// config::choose_seed_group_members keeps over the whole folder (one run per seed, the config most
// of the group share); the others get group_kept = false and the note saying why. The scan does
// this on its worker (it compares whole configs), so a filter typed in the window costs none of it.
void mark_seed_group_members(std::vector<RunRow*>& rows);

// A seed group (config.group with two or more runs among the rows shown): its members, and over
// those counted (group_kept), the mean of their bpb with its 95% Student t interval, likewise their
// paired effects (eval::summarise_seed_group, as `proteus groups` and the figures summarise a group).
struct SeedGroupRow {
  std::string name;
  std::vector<size_t> members;  // indices into the rows, in the table's order
  eval::Interval bpb;           // n = the kept members with a bpb (0: none)
  eval::Interval effect;        // n = the kept members with an effect (0: none)
  std::vector<std::string> notes;  // members left out of the interval, and why
};

// One line of the table: a seed group (collapsed or open) or a run (its own, or a group's member).
struct TableLine {
  int group = -1;         // index into RunsView::groups() for a group line, else -1
  size_t row = 0;         // index into the rows for a run line
  bool member = false;    // a run shown under its open group
};

// ---- differing fields --------------------------------------------------------------------------
// The config fields whose values differ across the rows (a field some rows lack counts as
// differing), sorted by dotted path, without those that only name a
// run or how it reports (config::run_identity_field), except the seed.
std::vector<std::string> differing_fields(const std::vector<const RunRow*>& rows);

// ---- the cached view ---------------------------------------------------------------------------
// The table's lines for a generation of rows (the browser's snapshot counter), a filter text, a sort
// and the open groups. lines() recomputes only when one of those changed since the last call.
class RunsView {
 public:
  // True when it recomputed. `rows` must be the rows of `generation` (a new list, a new generation).
  bool update(const std::vector<const RunRow*>& rows, uint64_t generation, const std::string& filter_text,
              const SortSpec& sort, bool grouped, const std::set<std::string>& open_groups);
  const std::vector<TableLine>& lines() const { return lines_; }
  const std::vector<SeedGroupRow>& groups() const { return groups_; }
  const RunFilter& filter() const { return filter_; }
  size_t shown_runs() const { return shown_; }  // runs passing the filter
  const std::vector<std::string>& differing() const { return differing_; }  // over every row
  int recomputes() const { return recomputes_; }

 private:
  void rebuild(const std::vector<const RunRow*>& rows, const SortSpec& sort, bool grouped,
               const std::set<std::string>& open_groups);
  bool valid_ = false;
  uint64_t generation_ = 0;
  std::string filter_text_;
  SortSpec sort_;
  bool grouped_ = false;
  std::set<std::string> open_;
  RunFilter filter_;
  std::vector<TableLine> lines_;
  std::vector<SeedGroupRow> groups_;
  std::vector<std::string> differing_;
  // A group's intervals by its name and its counted members' values: kept across scans (a rescan
  // that changed one run recomputes only that run's group), cleared when it grows large.
  std::map<std::string, SeedGroupRow> group_cache_;
  std::vector<const void*> differing_configs_;  // the configs differing_ was computed over
  uint64_t differing_generation_ = ~uint64_t{0};
  size_t shown_ = 0;
  int recomputes_ = 0;
};

}  // namespace proteus::gui
