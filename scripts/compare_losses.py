#!/usr/bin/env python3
"""Compares the training losses of two runs directories (same runs, two devices) step by step.

usage: compare_losses.py RUNS_A RUNS_B [REL_TOL]
Every run directory under RUNS_A with a metrics.jsonl is matched by name under RUNS_B; prints the
largest relative difference per run and exits 1 if any logged step differs by more than REL_TOL.
"""
import json
import pathlib
import sys


def losses(path, key="loss"):
    out = {}
    for line in path.read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            if key in rec:
                out[rec["step"]] = rec[key]
    return out


def trajectory(a, b, steps):
    """The relative difference at a few steps, to tell rounding that grows from a wrong op."""
    picks = [s for i, s in enumerate(steps) if i < 4 or i in (8, 16, 32, 64, 128) or i == len(steps) - 1]
    return " ".join(f"{s}:{abs(a[s] - b[s]) / max(abs(b[s]), 1e-30):.1e}" for s in picks)


def main():
    a_root, b_root = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    tol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-3
    ok, seen = True, 0
    for a_file in sorted(a_root.glob("*/metrics.jsonl")):
        b_file = b_root / a_file.parent.name / "metrics.jsonl"
        if not b_file.exists():
            print(f"{a_file.parent.name}: no counterpart under {b_root}")
            ok = False
            continue
        a, b = losses(a_file), losses(b_file)
        steps = sorted(set(a) & set(b))
        if not steps or len(steps) != len(a) or len(steps) != len(b):
            print(f"{a_file.parent.name}: logged steps differ ({len(a)} vs {len(b)})")
            ok = False
            continue
        rel = [abs(a[s] - b[s]) / max(abs(b[s]), 1e-30) for s in steps]
        worst = max(range(len(steps)), key=lambda i: rel[i])
        verdict = "ok" if rel[worst] <= tol else "FAIL"
        print(f"{a_file.parent.name}: {len(steps)} steps, max rel diff {rel[worst]:.2e} at step {steps[worst]} "
              f"({a[steps[worst]]:.6f} vs {b[steps[worst]]:.6f}), final {a[steps[-1]]:.6f} vs {b[steps[-1]]:.6f}: {verdict}")
        print(f"  loss rel diff by step      {trajectory(a, b, steps)}")
        ga, gb = losses(a_file, "grad_norm"), losses(b_file, "grad_norm")
        if set(steps) <= set(ga) and set(steps) <= set(gb):
            print(f"  grad_norm rel diff by step {trajectory(ga, gb, steps)}")
        ok = ok and verdict == "ok"
        seen += 1
    if seen == 0:
        print("no runs compared")
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
