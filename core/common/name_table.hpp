// An enumerated choice (a memory rule, a form, a tokenizer, ...) and its one name table: each value
// with the name config files, `--set`, the window's combos, the CLI help and the messages use. An
// enum gets a table by declaring `const std::vector<common::Named<E>>& name_table(E)` in its own
// namespace (found by argument-dependent lookup); the helpers here only read it, so a name is
// spelt once. (C++17: the CUDA backend includes memory headers that use this one.)
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace proteus::common {

// One row of a name table. The first row is the field's default.
template <class E>
struct Named {
  E value;
  std::string_view name;
};

// Whether E has a name table (the config's JSON writer and reader ask).
template <class E, class = void>
struct is_named_choice : std::false_type {};
template <class E>
struct is_named_choice<E, std::void_t<decltype(name_table(std::declval<E>()))>> : std::is_enum<E> {};
template <class E>
inline constexpr bool is_named_choice_v = is_named_choice<E>::value;

template <class E>
std::string_view choice_name(E value) {
  for (const auto& row : name_table(value))
    if (row.value == value) return row.name;
  return "?";  // only a value cast from outside the enum's list
}

template <class E>
std::optional<E> choice_from_name(std::string_view name) {
  for (const auto& row : name_table(E{}))
    if (row.name == name) return row.value;
  return std::nullopt;
}

// The values in the table's order, and their names (a combo's items, a message's "one of ...").
template <class E>
std::vector<E> choice_values() {
  std::vector<E> values;
  for (const auto& row : name_table(E{})) values.push_back(row.value);
  return values;
}

template <class E>
std::vector<std::string> choice_names() {
  std::vector<std::string> names;
  for (const auto& row : name_table(E{})) names.emplace_back(row.name);
  return names;
}

// "auto | recurrent | chunked": the choices as a help text lists them.
template <class E>
std::string choice_alternatives(std::string_view separator = " | ") {
  std::string text;
  for (const auto& row : name_table(E{})) text += (text.empty() ? "" : std::string(separator)) + std::string(row.name);
  return text;
}

}  // namespace proteus::common
