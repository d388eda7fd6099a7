#!/usr/bin/env bash
# Fuzzes the config reader (parents, variants and sweeps expanded) and memory-op's reader and op
# with libFuzzer, under the address and undefined-behaviour sanitizers, each harness for SECONDS
# (default 60). Seeds: every preset in experiments/ (its parent chain joined into one input) and
# every example in assets/examples/. A finding is a crash, a leak, an input that takes over 1 s or
# needs over 256 MB, or an exception other than the one-line InputError a user sees; it stops the
# script with status 1 and leaves the input in build-fuzz/findings/.
#   scripts/fuzz.sh [SECONDS]
#   PROTEUS_FUZZ_RUNS=N scripts/fuzz.sh     stop each harness after N executions instead
#   PROTEUS_FUZZ_TIMEOUT=S                  libFuzzer's per-input limit (default 1 s); it is wall
#                                           time, so a long run on a busy machine gives it room and
#                                           the replay below measures every kept input on its own
# Prints one Markdown row per harness: executions, wall time, peak RSS, the slowest input of the
# final corpus replayed one by one, findings.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
runs=${PROTEUS_FUZZ_RUNS:-0}
timeout=${PROTEUS_FUZZ_TIMEOUT:-1}
build=build-fuzz
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (scripts/install-deps.sh installs clang)" >&2; exit 1; }

launcher=()
command -v pccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=pccache)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DPROTEUS_FUZZ=ON -DPROTEUS_CUDA=OFF -DPROTEUS_GUI=OFF -DPROTEUS_SANITIZE=address,undefined "${launcher[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target config_reader_fuzzer memory_op_fuzzer

# Seeds, made afresh from the repository's own files.
seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds/config_reader" "$seeds/memory_op" "$build/findings"
# A preset and its parents as one input: files separated by "\n---\n", parent i renamed p<i>.json.
join_chain() {
  local file=$1 i=0 parent
  while :; do
    parent=$(grep -o '"parent": *"[^"]*"' "$file" | sed 's/.*"\([^"]*\)"$/\1/' || true)
    [ "$i" -gt 0 ] && printf '\n---\n'
    if [ -n "$parent" ]; then
      sed "s#\"parent\": *\"[^\"]*\"#\"parent\": \"p$((i + 1)).json\"#" "$file"
      file=$(dirname "$file")/$parent
      i=$((i + 1))
    else
      cat "$file"
      break
    fi
  done
}
n=0
while IFS= read -r preset; do
  join_chain "$preset" > "$seeds/config_reader/preset-$n.json"
  n=$((n + 1))
done < <(find experiments -name '*.json' -not -path '*/results/*' | sort)
cp assets/examples/*.json "$seeds/memory_op/"

status=0
for harness in config_reader memory_op; do
  corpus="$build/corpus/$harness"
  log="$build/$harness.log"
  mkdir -p "$corpus"
  dict=fuzz/${harness%_reader}.dict
  [ "$harness" = config_reader ] && dict=fuzz/config.dict
  set +e
  # A small ASan quarantine: the default (256 MB of freed memory held back) fills the 256 MB RSS
  # limit on its own over a few thousand inputs, which then reports the fuzzer, not an input.
  ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=16 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/fuzz/${harness}_fuzzer" "$corpus" "$seeds/$harness" -dict="$dict" \
    -max_total_time="$([ "$runs" -gt 0 ] && echo 0 || echo "$seconds")" -runs="$([ "$runs" -gt 0 ] && echo "$runs" || echo -1)" \
    -timeout="$timeout" -rss_limit_mb=256 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$build/findings/$harness-" < /dev/null > "$log" 2>&1
  rc=$?
  set -e
  stat() { grep -o "stat::$1: *[0-9.]*" "$log" | tail -1 | grep -o '[0-9.]*$' || echo "?"; }
  execs=$(stat number_of_executed_units)
  took=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -1 | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo "?")
  findings=$(find "$build/findings" -name "$harness-*" | wc -l)
  # Every input the corpus kept, run once more on its own: the slowest, in milliseconds.
  slowest=$(find "$corpus" -type f -print0 | ASAN_OPTIONS=quarantine_size_mb=16 xargs -0 -r "$build/fuzz/${harness}_fuzzer" -rss_limit_mb=256 2>&1 |
            sed -n 's/^Executed .* in \([0-9]*\) ms$/\1/p' | sort -n | tail -1)
  kept=$(find "$corpus" -type f | wc -l)
  echo "| $harness | $execs | ${took} s | $(stat peak_rss_mb) MB | ${slowest:-?} ms (of $kept kept inputs) | $findings |"
  if [ "$rc" -ne 0 ]; then
    echo "fuzz.sh: $harness found a problem (status $rc); see $log and $build/findings/" >&2
    tail -40 "$log" >&2
    status=1
  fi
done
exit "$status"
