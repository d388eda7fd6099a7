#!/usr/bin/env bash
# A queue of diagnosis runs on one CPU thread, resumable: each item is PRESET:SEED:VARIANT. A run
# whose folder has its evaluation is skipped; one cut short (a session ended, a kill) continues from
# its last checkpoint with `proteus train --resume`; any other is trained from the start. Run two
# queues side by side for two cores; niced so that a build beside them keeps its speed.
#   scripts/diag-queue.sh RUNS_DIR PRESET:SEED:VARIANT...
#   PROTEUS=path/to/proteus (default build/app/cli/proteus)
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:?usage: scripts/diag-queue.sh RUNS_DIR PRESET:SEED:VARIANT...}
shift
proteus=${PROTEUS:-build/app/cli/proteus}
[ -x "$proteus" ] || { echo "diag-queue: $proteus is not built" >&2; exit 2; }
mkdir -p "$runs"
# Started by setsid (its own session), the queue gets its own scheduler autogroup, where nice alone
# does not yield to a build in another session: lower the group's weight too (Linux autogroups).
echo 19 >/proc/self/autogroup 2>/dev/null || true
for item in "$@"; do
  IFS=: read -r preset seed variant <<<"$item"
  [ -f "$preset" ] || { echo "diag-queue: $preset: no such preset" >&2; exit 2; }
  name=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$preset")
  dir="$runs/$name-$variant-s$seed"
  if [ -f "$dir/per_position.json" ]; then
    echo "diag-queue: $dir done" >&2
    continue
  fi
  echo "diag-queue: $(date -u +%H:%M:%S) start $dir" >&2
  if [ -f "$dir/config.json" ]; then
    nice -n 19 "$proteus" train --resume "$dir"
  else
    nice -n 19 "$proteus" train "$preset" --seeds "$seed" --variant "$variant" --threads 1 --runs-dir "$runs"
  fi
  echo "diag-queue: $(date -u +%H:%M:%S) end $dir rc $?" >&2
done
