#!/usr/bin/env bash
# Frame times of the Runs tab over a folder of many runs (issue 38), under Xvfb: the window opened
# on the folder (the scan runs on a worker while frames are drawn), then each case drawn for
# --frames frames at full rate (--continuous), 1600 x 1000 at UI scale 1. Writes one frame-stats
# JSON per case into OUT and prints a table (p50 / p99 of the interval between frames, and of the
# UI's own share, while the folder is scanned and once it is read).
#   scripts/runs-browser-frames.sh RUNS_DIR OUT [BUILD_DIR]
# RUNS_DIR: e.g. scripts/synthetic-runs.py TEMPLATE_RUN /tmp/rb1000 --runs 1000
# BASELINE_LAB=PATH: also time that window binary (an older build; it needs only --frames) on the
# same folder, as case "baseline", between the others. FRAMES=N: frames per case (default 600).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=$1
out=$2
build=${3:-build}
lab="$build/app/gui/proteus-lab"
frames=${FRAMES:-600}
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"  # never the user's remembered layout
case_run() {  # case_run NAME ARGS...: with LAB set, another binary
  local name=$1
  shift
  local t0
  t0=$(date +%s.%N)
  xvfb-run -a -s "-screen 0 1600x1000x24" "${LAB:-$lab}" --ui-scale 1 --width 1600 --height 1000 --runs-dir "$runs" \
    --tab runs --continuous --frames "$frames" --frame-stats "$out/$name.json" --quit --timeout 600 "$@" >/dev/null
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$(date +%s.%N)" >"$out/$name.wall"
}
[ -z "${BASELINE_LAB:-}" ] || LAB=$BASELINE_LAB case_run baseline
case_run grouped
case_run ungrouped --runs-ungrouped
case_run filtered-sorted --runs-filter "rule=comba E=16" --runs-sort effect
case_run ungrouped-sorted-bpb --runs-ungrouped --runs-sort bpb-
python3 - "$out" <<'EOF'
import json, os, sys
out = sys.argv[1]
print(f"{'case':24} {'phase':9} {'frames':>6} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'ui p50':>7} {'ui p99':>7}"
      f" {'process s':>9}")
for name in ["baseline", "grouped", "ungrouped", "filtered-sorted", "ungrouped-sorted-bpb"]:
    if not os.path.exists(os.path.join(out, name + ".json")):
        continue
    j = json.load(open(os.path.join(out, name + ".json")))
    wall = open(os.path.join(out, name + ".wall")).read().strip()
    if "runs_scan" in j:
        print(f"{name:24} scan: {j['runs_scan']['runs']} runs read on the worker in {j['runs_scan']['seconds']:.2f} s")
    for phase in ["scanning", "idle"]:
        p = j.get(phase, {})
        if not p.get("frames"):
            continue
        print(f"{name:24} {phase:9} {p['frames']:>6} {p['p50_ms']:>7.1f} {p['p99_ms']:>7.1f} {p['max_ms']:>7.1f} "
              f"{p['ui_p50_ms']:>7.2f} {p['ui_p99_ms']:>7.2f} {wall if phase == 'idle' else '':>9}")
EOF
