#!/usr/bin/env python3
"""Markdown tables from the seed-group summaries `proteus groups RUNS_DIR` writes (RUNS_DIR/groups/).

Usage: scripts/group_tables.py RUNS_DIR GROUP [GROUP...]
Prints, per group: held-out bits per byte (mean over seeds, 95% t interval), the difference to
its baseline, block-use entropy at the measured positions, the paired per-bucket NLL difference
against the baseline (t over seeds), and over all positions the seeds where gating is better and the
smallest effect the design detects (80% power, two-sided 5%), the numbers
experiments/results/paper-claims.md quotes.
"""
import csv
import json
import os
import sys


def interval(i, digits=3):
    if i is None or i.get("mean") is None:
        return "-"
    lo, hi = i.get("lo"), i.get("hi")
    if lo is None or hi is None:
        return f"{i['mean']:.{digits}f}"
    return f"{i['mean']:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs_dir, groups = sys.argv[1], sys.argv[2:]
    summaries = {}
    for g in groups:
        path = os.path.join(runs_dir, "groups", g, "group.json")
        with open(path) as f:
            summaries[g] = json.load(f)

    print("| group | seeds | held-out bits/byte | minus baseline | block-use entropy (position: mean [95% CI]) |")
    print("|---|---|---|---|---|")
    for g, j in summaries.items():
        e = j["block_use_entropy"]
        entropy = e if isinstance(e, str) else "; ".join(f"{x['position']}: {interval(x, 2)}" for x in e)
        print(f"| {g} | {len(j['seeds'])} | {interval(j['heldout_bits_per_byte'])} | "
              f"{interval(j.get('heldout_bits_per_byte_difference'))} | {entropy} |")

    paired = {g: j for g, j in summaries.items() if j.get("baseline")}
    if not paired:
        return
    print()
    tables = {}
    for g in paired:
        with open(os.path.join(runs_dir, "groups", g, "paired_vs_baseline.csv")) as f:
            tables[g] = list(csv.DictReader(f))
    names = list(paired)
    print("| positions | " + " | ".join(f"{g} - {paired[g]['baseline']} (nats)" for g in names) + " |")
    print("|---|" + "---|" * len(names))
    for k in range(len(tables[names[0]])):
        row = tables[names[0]][k]
        label = "all" if k == len(tables[names[0]]) - 1 else f"{row['position_lo']}-{row['position_hi']}"
        cells = []
        for g in names:
            r = tables[g][k]
            cells.append(f"{float(r['mean']):+.3f} [{float(r['lo']):+.3f}, {float(r['hi']):+.3f}]")
        print(f"| {label} | " + " | ".join(cells) + " |")
    print()
    for g in names:
        a = paired[g].get("paired_vs_baseline", {}).get("all", {})
        if "detectable_effect" not in a:
            continue
        mde = a["detectable_effect"]
        print(f"- {g} - {paired[g]['baseline']}, all positions: {a['mean']:+.3f} [{a['lo']:+.3f}, {a['hi']:+.3f}] nats; "
              f"gating better in {a['seeds_better']} of {a['n']} seeds; detectable effect "
              + ("none (one seed)" if mde is None else f"{mde:.3f} nats"))


if __name__ == "__main__":
    main()
