#!/usr/bin/env bash
# Installs what is missing, builds, and runs the default example: one head of the gated delta
# rule with E = 4 blocks on a tiny input (assets/examples/delta-e4.json), printed step by step.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target proteus

example=${1:-assets/examples/delta-e4.json}
out=build/$(basename "${example%.json}")-out.json
build/app/cli/proteus memory-op --in "$example" --out "$out"
echo "proteus memory-op --in $example --out $out"
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
