#!/usr/bin/env bash
# A rule is one descriptor row: each memory rule's name appears in at most 6 product files (its
# rows in core/memory/rule_traits.hpp and rule_descriptor.cpp, its own time loop, its CUDA kernel
# file, the kernels' README), so adding a rule touches those and nothing else. A file that names a
# rule to decide something is a file the next rule would have to touch too: branch on the rule's
# traits (rule_traits.hpp) or read its row (rule_descriptor.hpp) instead.
#   tests/style/rule_names.sh [SOURCE_ROOT]
# Exit 0 when every rule fits, 1 naming each rule over the limit and the files that name it.
set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
max_files=6
cd "$root"
# The rules are the name table's rows: {Rule::NAME, "NAME", ...} in rule_descriptor.cpp.
mapfile -t rules < <(grep -o '{Rule::[a-z_0-9]*, "[a-z_0-9]*"' core/memory/rule_descriptor.cpp | sed 's/.*"\(.*\)"/\1/')
[ "${#rules[@]}" -ge 2 ] || { echo "rule_names: no rules found in core/memory/rule_descriptor.cpp" >&2; exit 1; }
status=0
for rule in "${rules[@]}"; do
  # linear and delta are also plain words of the math ("a linear map", "a delta"): counted as the
  # rule where they are written as one (Rule::NAME, "NAME", `NAME`, rule NAME).
  case "$rule" in
    linear | delta) pattern="Rule::$rule\\b|\"$rule\"|\`$rule\`|rule $rule\\b" ;;
    *) pattern="\\b$rule\\b" ;;
  esac
  mapfile -t files < <(grep -rliP "$pattern" core app kernels || true)
  if [ "${#files[@]}" -gt "$max_files" ]; then
    echo "rule_names: rule $rule is named in ${#files[@]} product files (at most $max_files):" >&2
    printf '  %s\n' "${files[@]}" >&2
    status=1
  fi
done
exit $status
