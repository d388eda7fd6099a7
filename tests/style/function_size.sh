#!/usr/bin/env bash
# No function in core/, app/ or kernels/ is over 100 lines: each long one is split into named steps.
# Counted by pmccabe (Debian's package, installed by scripts/install-deps.sh --tests), which
# reads each file on its own, without includes, in well under a second for the whole tree.
#   tests/style/function_size.sh [SOURCE_ROOT]
# Exit 0 when every function fits, 1 naming each one that does not (file:line: function, lines),
# or a file pmccabe cannot read (a file it cannot count must not pass unseen), 77 (skipped) when
# pmccabe is missing, except under scripts/test.sh (PROTEUS_REQUIRE_REFERENCE=1), where it fails.
set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
max_lines=100

# Files left out of the count (none: add_dense_cases and benchmark_kernels are split now).
excluded=()

if ! command -v pmccabe >/dev/null; then
  if [ "${PROTEUS_REQUIRE_REFERENCE:-}" = 1 ]; then
    echo "function_size: pmccabe is not installed (scripts/install-deps.sh --tests installs it)" >&2
    exit 1
  fi
  echo "function_size: skipped: pmccabe is not installed (apt-get install pmccabe)" >&2
  exit 77
fi

cd "$root"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# pmccabe predates C++11: it misreads `namespace a::b {`, digit separators (1'000), `noexcept`,
# an inline body after `override` or `final`, and a macro expanding to declarations used without
# a semicolon (PROTEUS_INSTANTIATE(float)). Each is rewritten to an older spelling, line for line,
# so the counts and line numbers are those of the file.
older_spelling() {
  sed -E -e ':a' -e 's/^(namespace [A-Za-z_0-9]+)::([A-Za-z_0-9:]+ \{)/\1__\2/' -e 'ta' \
    -e "s/([0-9])'([0-9])/\1\2/g" \
    -e 's/ noexcept(\([^)]*\))?//g' \
    -e 's/\) (const )?(override|final)( final| override)? \{/) \1{/g' \
    -e 's/^([A-Z][A-Z_0-9]*\([^;]*\))$/\1;/' "$1"
}

failed=0
while IFS= read -r -d '' file; do
  rel=${file#./}
  for prefix in "${excluded[@]}"; do
    [[ $rel == "$prefix"* ]] && continue 2
  done
  older_spelling "$rel" >"$work/source.cpp"
  if ! pmccabe "$work/source.cpp" >"$work/counts" 2>"$work/errors" || [ -s "$work/errors" ]; then
    echo "$rel: pmccabe cannot read it: $(sed "s#$work/source.cpp#$rel#" "$work/errors" | head -1)"
    failed=1
    continue
  fi
  # Columns: modified and plain McCabe complexity, statements, first line, lines, name.
  while IFS=$'\t' read -r _ _ _ first lines where; do
    if [ "$lines" -gt "$max_lines" ]; then
      name=${where#*: }
      echo "$rel:$first: ${name//__/::} is $lines lines (at most $max_lines)"
      failed=1
    fi
  done <"$work/counts"
done < <(find ./core ./app ./kernels \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) -print0 | sort -z)

if [ "$failed" -ne 0 ]; then
  echo "function_size: split these into named steps (a function of at most $max_lines lines)" >&2
  exit 1
fi
echo "function_size: every function in core/, app/ and kernels/ is at most $max_lines lines"
