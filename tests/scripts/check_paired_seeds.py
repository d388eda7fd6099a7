#!/usr/bin/env python3
"""scripts/paired_seeds.py's column commands on numbers whose answers are known by hand: diffcols
(A minus B per seed) and trend (the effect against log2 of the training budget, and where the mean
line crosses zero), and the one-line refusals with exit status 2.
  tests/scripts/check_paired_seeds.py [SOURCE_ROOT]"""
import subprocess
import sys
from pathlib import Path

root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
script = root / "scripts" / "paired_seeds.py"
failures = []


def run(*args):
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True)


def expect(cond, what):
    if not cond:
        failures.append(what)


# Two seeds on exact lines through +0.08 at 1x falling 0.02 per doubling (seed 1) and 0.01 (seed 2):
# mean slope -0.015 per doubling, mean line +0.08 - 0.015 log2(b), zero at 2^(0.08 / 0.015) = 40.3x.
r = run("trend", "1,4,16", "+0.080, +0.080", "+0.040, +0.060", "+0.000, +0.040")
expect(r.returncode == 0, f"trend exit {r.returncode}: {r.stderr}")
expect("| -0.015 [" in r.stdout, f"trend slope: {r.stdout}")
expect("-0.020, -0.010" in r.stdout, f"trend per-seed slopes: {r.stdout}")
expect("1x +0.080, 4x +0.050, 16x +0.020" in r.stdout, f"trend mean line: {r.stdout}")
expect("| 40.3x (" in r.stdout, f"trend crossing: {r.stdout}")
# A rising effect never crosses: a floor (or worse) is not excluded.
r = run("trend", "1,4", "+0.01, +0.02", "+0.03, +0.04")
expect("| none (" in r.stdout, f"trend with a rising effect: {r.stdout}")

r = run("diffcols", "+0.020, +0.014", "+0.040, +0.044")
expect(r.returncode == 0 and "-0.020, -0.030" in r.stdout, f"diffcols: {r.stdout} {r.stderr}")

for args, word in [(("trend", "1,4", "1", "2", "3"), "2 budgets but 3 columns"),
                   (("trend", "1,1", "1", "2"), "BUDGETS"),
                   (("trend", "1,4", "1,2", "2"), "different numbers of seeds"),
                   (("trend", "1,4", "x", "2"), "is not a number"),
                   (("diffcols", "1,2", "1"), "COLUMN_A has 2 values")]:
    r = run(*args)
    expect(r.returncode == 2, f"{args}: exit {r.returncode}, want 2")
    expect(r.stderr.startswith("paired_seeds: ") and word in r.stderr and "Traceback" not in r.stderr,
           f"{args}: stderr {r.stderr!r}")

for f in failures:
    print("check_paired_seeds:", f, file=sys.stderr)
sys.exit(1 if failures else 0)
