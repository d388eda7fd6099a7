// What a config field is for: each field's role, tagged once where the schema names it
// (config_schema.hpp), and what each role implies. Every question "does this field say which run it
// is / may a baseline differ in it / is it a reading of the paper / is it derived" reads the tag:
// the seed groups (run_identity_field), the baseline rule (eval::schedule_owned_field), the forest
// plot's reference row (reading_field) and the naming of a differing field (derived_field).
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/common/name_table.hpp"

namespace proteus::config {

enum class FieldRole {
  trained,           // what the run trains, on which data and how (the model, the data, the optimiser)
  identity,          // which run it is and where it ran: name, group, seed, runs_dir, device, threads
  reporting,         // how often it logs, evaluates and checkpoints: nothing trained depends on it
  schedule,          // owned by the memory schedule (E, its schedule, the form): at E = 1 any value
                     // gives the ungated model bit for bit, so one baseline serves them all
  schedule_reading,  // owned by the schedule, and a reading of the paper (normalize, block_axis)
  schedule_horizon,  // owned by the schedule, and derived: the horizon N (data.seq_len when 0)
  reading,           // a reading the paper leaves open that the schedule does not own (output gate, tokenizer)
  derived,           // filled by resolve() from other fields when left 0 (d_hidden, the parameter schedule's N)
  evaluation,        // eval.*: what is measured after training; its lengths follow data.seq_len
};

const std::vector<common::Named<FieldRole>>& name_table(FieldRole);

// What a role implies: each question below is asked of the tag, never of a field's name.
struct RoleTraits {
  bool run_identity = false;    // says which run a config is or how it ran, not what it trains
  bool schedule_owned = false;  // a baseline may differ in it; an evaluation of a trained run may change it
  bool reading = false;         // a reading of the paper (docs/rules.md, "Readings of the paper")
  bool derived = false;         // follows other fields: a difference in it is named after theirs
};
RoleTraits role_traits(FieldRole role);

// Every leaf field's dotted path with its role, in schema order (the paths of config_paths()).
const std::vector<std::pair<std::string, FieldRole>>& field_roles();

// The role of a dotted path: a leaf's own; for an object ("model.mixer.schedule", "eval") or a key
// under one that the schema lacks, the role all of the object's leaves share; else trained (a
// path outside the schema, as the regime block a resolved config.json carries).
FieldRole field_role(std::string_view path);

// The questions by path (eval::schedule_owned_field asks the fourth, the baseline rule's).
bool run_identity_field(std::string_view path);
bool reading_field(std::string_view path);
bool derived_field(std::string_view path);

}  // namespace proteus::config
