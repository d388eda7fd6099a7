#!/usr/bin/env bash
# Base against head, in one run, binaries alternating: the check to run before merging a change to
# core/memory, core/backend, core/model or kernels (docs/build.md).
#
#   scripts/perf-compare.sh BASE [HEAD]
#
# BASE (and HEAD, when given) is any commit git names; each is built once in a worktree (CPU-only
# Release, native, the `proteus` target only) and cached by commit under $PROTEUS_PERF_CACHE
# (default ~/.cache/proteus-lab/perf). Without HEAD the working tree is built into build-perf/.
# The fixed set: every chunked rule's fwd+bwd at (8, 1024, 8, 64), E 1 and 16; the quickstart's
# training step; the paper-regime comba step. Each is run PROTEUS_PERF_RUNS times (default 5) per
# binary, in the order A B B A A B ... so that a drift of the machine falls on both sides alike.
# Prints each row's medians and their ratio, the paired ratio (the median over rounds of each round's
# head/base, its two runs adjacent in time) and that ratio's spread (relative median absolute
# deviation, scaled to a sigma), and exits 1 when a row of HEAD is more than 10% slower than BASE
# beyond that spread (paired ratio > 1.10 + spread).
#   PROTEUS_PERF_RUNS=N        runs per binary and row (>= 3)
#   PROTEUS_PERF_RULES="..."   the chunked rules to time (default: linear delta comba swla gla kda)
#   PROTEUS_PERF_STEPS=N       timed steps per bench invocation (default 3; one warm-up before)
#   PROTEUS_PERF_THREADS=N     CPU threads for every row (default: the machine's)
#   PROTEUS_PERF_RECURRENT=1   also time each rule's recurrent form (the chunked form's speed-up)
set -euo pipefail
usage() { echo "usage: scripts/perf-compare.sh BASE [HEAD]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
cd "$(dirname "$0")/.."
root=$(pwd)
runs="${PROTEUS_PERF_RUNS:-5}"
steps="${PROTEUS_PERF_STEPS:-3}"
rules="${PROTEUS_PERF_RULES:-linear delta comba swla gla kda}"
cache="${PROTEUS_PERF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/proteus-lab/perf}"
[ "$runs" -ge 3 ] 2>/dev/null || { echo "perf-compare: PROTEUS_PERF_RUNS must be a number >= 3, got '$runs'" >&2; exit 2; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

configure_and_build() {  # SOURCE BUILD (its log in BUILD/perf-compare.log)
  local log="$2/perf-compare.log"
  mkdir -p "$2"
  if ! { cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DPROTEUS_CUDA=OFF -DPROTEUS_GUI=OFF -DBUILD_TESTING=OFF \
           "${launcher[@]}" && cmake --build "$2" -j"$(nproc)" --target proteus; } >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "perf-compare: the build in $2 failed (log: $log)" >&2
    exit 1
  fi
}

# The `proteus` of a commit, built once: $cache/<sha>/proteus.
binary_of_commit() {
  local sha dir
  sha=$(git rev-parse --verify --quiet "$1^{commit}") || { echo "perf-compare: '$1' names no commit" >&2; exit 2; }
  dir="$cache/$sha"
  if [ ! -x "$dir/proteus" ]; then
    echo "perf-compare: building $1 ($sha) in a worktree (once; cached in $dir)" >&2
    mkdir -p "$dir"
    rm -rf "$dir/src"
    git worktree add --detach --force "$dir/src" "$sha" >/dev/null 2>&1
    configure_and_build "$dir/src" "$dir/build"
    cp "$dir/build/app/cli/proteus" "$dir/proteus.tmp" && mv "$dir/proteus.tmp" "$dir/proteus"
    git worktree remove --force "$dir/src" >/dev/null 2>&1 || rm -rf "$dir/src"
    git worktree prune
  fi
  printf '%s\n' "$dir/proteus"
}

base_bin=$(binary_of_commit "$1")
if [ $# -eq 2 ]; then
  head_bin=$(binary_of_commit "$2")
  head_name="$2"
else
  echo "perf-compare: building the working tree into build-perf/" >&2
  configure_and_build "$root" "$root/build-perf"
  head_bin="$root/build-perf/app/cli/proteus"
  head_name="working tree"
fi

# A rule one of the two binaries does not know (a rule added since BASE) is left out, said once.
known_rules=""
for rule in $rules; do
  if "$base_bin" bench --op memory-rule --rule "$rule" --shape 1 8 1 4 --E 1 --steps 1 --warmup 0 >/dev/null 2>&1 &&
     "$head_bin" bench --op memory-rule --rule "$rule" --shape 1 8 1 4 --E 1 --steps 1 --warmup 0 >/dev/null 2>&1; then
    known_rules+="$rule "
  else
    echo "perf-compare: rule $rule is left out: one of the two binaries does not run it" >&2
  fi
done
rules=$known_rules

threads=()
[ -n "${PROTEUS_PERF_THREADS:-}" ] && threads=(--threads "$PROTEUS_PERF_THREADS")
forms=(chunked)
[ "${PROTEUS_PERF_RECURRENT:-0}" = 1 ] && forms+=(recurrent)
samples=$(mktemp)
scratch=$(mktemp -d)
trap 'rm -rf "$samples" "$scratch"' EXIT
# Each preset's first seed only (its baseline and gated runs): a step's time does not depend on the
# seed, and eight seeds would time the same step eight times.
presets=()
for preset in experiments/quickstart-cpu.json experiments/paper/regime-comba-cpu.json; do
  one="$scratch/$(basename "$preset")"
  python3 -c 'import json, sys; json.dump({"parent": sys.argv[1], "seeds": [1]}, open(sys.argv[2], "w"))' \
    "$root/$preset" "$one"
  presets+=("$one")
done

# One invocation of every row on BIN, appending "side<TAB>round<TAB>row<TAB>ms" lines to $samples.
time_all() {  # SIDE BIN ROUND
  local side=$1 bin=$2 round=$3 rule
  for rule in $rules; do
    "$bin" bench --op memory-rule --rule "$rule" --form "${forms[@]}" --E 1 16 --steps "$steps" --warmup 1 \
      "${threads[@]}" |
      awk -v side="$side" -v round="$round" -v rule="$rule" '$1 == rule && $6 ~ /^[0-9]+$/ {
        printf "%s\t%s\t%s %s fwd+bwd E %s\t%s\n", side, round, rule, $2, $6, $9 }' >>"$samples"
  done
  local preset
  for preset in "${presets[@]}"; do
    "$bin" bench "$preset" --steps "$steps" --warmup 1 "${threads[@]}" |
      awk -v side="$side" -v round="$round" -v p="$(basename "$preset" .json)" 'NR > 2 && NF >= 9 && $5 ~ /^[0-9.]+$/ {
        printf "%s\t%s\t%s step: %s\t%s\n", side, round, p, $1, $5 }' >>"$samples"
  done
}

echo "perf-compare: A = $1, B = $head_name; $runs runs each, alternating; $(nproc) cores" >&2
for ((i = 0; i < runs; ++i)); do
  if ((i % 2 == 0)); then time_all A "$base_bin" "$i"; time_all B "$head_bin" "$i"
  else time_all B "$head_bin" "$i"; time_all A "$base_bin" "$i"; fi
  echo "perf-compare: round $((i + 1)) of $runs done" >&2
done

python3 - "$samples" "$1" "$head_name" <<'EOF'
import statistics, sys
path, base, head = sys.argv[1:4]
rows = {}
for line in open(path, encoding="utf-8"):
    side, rnd, row, ms = line.rstrip("\n").split("\t")
    rows.setdefault(row, {"A": {}, "B": {}})[side][rnd] = float(ms)

def spread(x):  # relative median absolute deviation, scaled to a normal sigma
    m = statistics.median(x)
    return 1.4826 * statistics.median(abs(v - m) for v in x) / m if m > 0 else 0.0

print(f"A = {base}, B = {head}: median ms over the runs and their ratio; paired B/A, the median of each round's "
      f"B/A (its two runs adjacent in time), and its spread (the paired ratios' relative MAD x 1.48)")
print(f"| row | A ms | B ms | B/A | paired B/A | spread | n | verdict |")
print(f"|---|---|---|---|---|---|---|---|")
slower = []
for row, s in rows.items():
    if not s["A"] or not s["B"]:
        print(f"| {row} | | | | | | | missing on one side |")
        slower.append(row)
        continue
    a, b = statistics.median(s["A"].values()), statistics.median(s["B"].values())
    # A round's two runs are adjacent in time: the machine's slow and fast minutes move both, so
    # their ratio is steadier than the ratio of the two medians (a row read 1.20 by medians and
    # 0.97 paired minutes later on the 2-vCPU VM: perf-history.md). Paired by round, not by order:
    # a row one side missed in some round pairs nothing there.
    paired_ratios = [s["B"][r] / s["A"][r] for r in s["A"] if r in s["B"] and s["A"][r] > 0]
    if not paired_ratios:
        print(f"| {row} | {a:.1f} | {b:.1f} | {b / a:.3f} | | | | no round timed both |")
        slower.append(row)
        continue
    ratio = statistics.median(paired_ratios)
    sp = spread(paired_ratios)
    verdict = "SLOWER" if ratio > 1.10 + sp else ("faster" if ratio < 1 / (1.10 + sp) else "same")
    if verdict == "SLOWER":
        slower.append(row)
    print(f"| {row} | {a:.1f} | {b:.1f} | {b / a:.3f} | {ratio:.3f} | {sp:.3f} | {len(s['A'])}+{len(s['B'])} | {verdict} |")
if not rows:
    print("perf-compare: no row was timed (did the bench's output change?)", file=sys.stderr)
    sys.exit(1)
if slower:
    print(f"perf-compare: {len(slower)} row(s) more than 10% slower beyond the spread: " + "; ".join(slower),
          file=sys.stderr)
    sys.exit(1)
EOF
