// docs/config.md, generated from the schema: every field config_paths() lists, with its default (the
// writer's JSON of a default RunConfig), its range (size_bounds(), the choice tables, or the row's
// text) and its meaning (one row per field in config_reference.cpp). A field without a row, or a
// row naming no field, is an error, so the page cannot drift from the reader (tests/config).
#pragma once
#include <string>

namespace proteus::config {

// The whole page, Markdown. Throws std::logic_error naming a schema field that has no row (or a row
// that names no field).
std::string config_reference_markdown();

}  // namespace proteus::config
