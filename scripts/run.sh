#!/usr/bin/env bash
# Installs what is missing, builds, and opens Proteus Lab on the default experiment: the quickstart
# preset (a delta-rule model, baseline and Proteus E = 16, trained and evaluated on the CPU in a
# few minutes). Any other preset can be named: scripts/run.sh experiments/niah-cpu.json
# With no display (a server, a GPU machine) it trains and evaluates the experiment headless with
# the proteus command instead. A memory-op input (assets/examples/*.json) runs that one op and
# prints it.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target proteus
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  cmake --build build -j"$(nproc)" --target proteus-lab 2>/dev/null || true
fi

target=${1:-experiments/quickstart-cpu.json}
if [[ "$target" == assets/examples/* ]]; then
  out=build/$(basename "${target%.json}")-out.json
  build/app/cli/proteus memory-op --in "$target" --out "$out"
  python3 - "$out" <<'PY' 2>/dev/null || cat "$out"
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{'t':>3} {'blocks':>6} {'elements':>8}  o_t")
for t, (k, e, o) in enumerate(zip(r["active_blocks"], r["active_elements"], r["o"]), 1):
    print(f"{t:>3} {k:>6} {e:>8}  " + " ".join(f"{x:+.4f}" for x in o))
print("final state S:")
for row in r["S"]:
    print("    " + " ".join(f"{x:+.4f}" for x in row))
if "grad" in r:
    print("gradients:", ", ".join(sorted(r["grad"])))
PY
  exit 0
fi
shift || true
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/app/gui/proteus-lab ]; then
  exec build/app/gui/proteus-lab --preset "$target" "$@"
fi
echo "run.sh: no display; training $target headless (the window needs a display: proteus-lab)"
exec build/app/cli/proteus train "$target" "$@"
