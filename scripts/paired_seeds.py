#!/usr/bin/env python3
"""Paired-by-seed tables for experiments/results/paper-claims.md: a gated seed group against its
E = 1 baseline, read from the run directories (NAME-s<seed>) under RUNS_DIR.

Usage:
  scripts/paired_seeds.py nll RUNS_DIR GATED BASELINE [RANGES]
      mean NLL over position ranges (default 1-2,3-16,17-256,257-N,N+1-4N,all; N = the training
      length), each range the exact mean over its positions of the run's per-position NLL; and
      "all" per word, from the evaluations' bytes_per_word (or BYTES_PER_WORD for older runs).
  scripts/paired_seeds.py diff RUNS_DIR GATED BASELINE REF_GATED REF_BASELINE [REF_RUNS_DIR]
      a factor's paired effect minus the reference cell's, per seed (issue 37's decision rule).
  scripts/paired_seeds.py needle RUNS_DIR GATED BASELINE
      token needle accuracy (points) per form and length, mean over depths.
  scripts/paired_seeds.py bpb RUNS_DIR BASELINE GATED [GATED...]
      held-out bits per byte (positions 1..N) of each group, and each minus the baseline.

Every comparison: the mean over seeds of gated minus baseline with its 95% Student t interval, the
seeds where gating is better, the per-seed values, and the smallest effect the design detects
(80% power, two-sided 5%: (t(0.975, n-1) + t(0.8, n-1)) sd / sqrt(n), as eval::detectable_effect).
Only the seeds both groups have are paired. Needs only the standard library.
"""
import csv
import json
import math
import os
import re
import sys


def t_cdf(x, df):
    """Student t CDF by the regularised incomplete beta (continued fraction, Numerical Recipes 6.4)."""
    b = df / (df + x * x)
    ib = incomplete_beta(df / 2, 0.5, b)
    return 1 - 0.5 * ib if x >= 0 else 0.5 * ib


def incomplete_beta(a, b, x):
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x))
    if x > (a + 1) / (a + b + 2):
        return 1 - incomplete_beta(b, a, 1 - x)
    f, c, d = 1.0, 1.0, 0.0
    for i in range(400):
        m = i // 2
        if i == 0:
            num = 1.0
        elif i % 2 == 0:
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        else:
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1 + num * d
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        c = 1 + num / (c if abs(c) > 1e-300 else 1e-300)
        f *= c * d
        if abs(1 - c * d) < 1e-12:
            break
    return front * (f - 1) / a


def t_quantile(p, df):
    lo, hi = -1e3, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2


def summary(diffs):
    """mean, lo, hi, detectable effect (None below two seeds), seeds better (diff < 0 for NLL)."""
    n = len(diffs)
    mean = sum(diffs) / n
    if n < 2:
        return mean, None, None, None
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = t_quantile(0.975, n - 1) * sd / math.sqrt(n)
    mde = (t_quantile(0.975, n - 1) + t_quantile(0.8, n - 1)) * sd / math.sqrt(n)
    return mean, mean - half, mean + half, mde


def fmt(mean, lo, hi, digits=3):
    if lo is None:
        return f"{mean:+.{digits}f} (one seed)"
    return f"{mean:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def seeds_of(runs_dir, group, needs="per_position.json"):
    """seed -> run directory of the group's finished runs whose evaluation file `needs` is written."""
    out = {}
    for name in os.listdir(runs_dir):
        m = re.fullmatch(re.escape(group) + r"-s(\d+)", name)
        if m and os.path.exists(os.path.join(runs_dir, name, "status.json")) and os.path.exists(os.path.join(runs_dir, name, needs)):
            with open(os.path.join(runs_dir, name, "status.json")) as f:
                if json.load(f).get("state") == "finished":
                    out[int(m.group(1))] = os.path.join(runs_dir, name)
    return out


def paired_runs(runs_dir, gated, baseline, needs="per_position.json"):
    g, b = seeds_of(runs_dir, gated, needs), seeds_of(runs_dir, baseline, needs)
    seeds = sorted(set(g) & set(b))
    if not seeds:
        sys.exit(f"no seed has finished runs of both {gated} and {baseline} under {runs_dir}")
    return seeds, g, b


def row(label, diffs, better_if_negative=True, digits=3):
    mean, lo, hi, mde = summary(diffs)
    better = sum(1 for d in diffs if (d < 0) == better_if_negative and d != 0)
    per_seed = ", ".join(f"{d:+.{digits}f}" for d in diffs)
    mde_text = "-" if mde is None else f"{mde:.{digits}f}"
    return f"| {label} | {fmt(mean, lo, hi, digits)} | {better} of {len(diffs)} | {mde_text} | {per_seed} |"


def nll_table(runs_dir, gated, baseline, ranges_arg):
    seeds, g, b = paired_runs(runs_dir, gated, baseline)
    pp = {}
    for s in seeds:
        for k, d in (("g", g[s]), ("b", b[s])):
            with open(os.path.join(d, "per_position.json")) as f:
                pp[(k, s)] = json.load(f)
    first = pp[("g", seeds[0])]
    N, L = first["train_len"], first["seq_len"]
    if ranges_arg:
        ranges = [r.split("-") for r in ranges_arg.split(",")]
    else:
        ranges = [("1", "2"), ("3", "16"), ("17", "256"), ("257", str(N))]
        if L > N:
            ranges.append((str(N + 1), str(L)))
        ranges.append(("all",))
    print(f"{gated} minus {baseline}, mean NLL (nats), seeds {','.join(map(str, seeds))}; training length {N}, evaluated to {L}")
    print()
    print("| positions | mean over seeds [95% t] | seeds where gating is better | detectable effect | per seed |")
    print("|---|---|---|---|---|")
    for r in ranges:
        diffs = []
        for s in seeds:
            vals = []
            for k in ("g", "b"):
                j = pp[(k, s)]
                if r[0] == "all":
                    vals.append(j["mean_nll"])
                else:
                    lo, hi = int(r[0]), min(int(r[1]), L)
                    xs = [x for x in j["nll"][lo - 1:hi] if x is not None]
                    vals.append(sum(xs) / len(xs))
            diffs.append(vals[0] - vals[1])
        label = "all" if r[0] == "all" else f"{r[0]}-{min(int(r[1]), L)}"
        print(row(label, diffs))
        if r[0] == "all":
            all_diffs = diffs
    # The per-word unit (SPEC section 8): each pair's NLL per byte times its evaluation's bytes per
    # word (both runs of a pair are evaluated on the same text); runs evaluated before the count
    # existed take BYTES_PER_WORD from the environment, said in the line.
    # A BPE run's positions are tokens: per word is then per token times tokens per word
    # (bytes_per_word / bytes_per_token), and per byte is per token over bytes_per_token.
    per_token = [pp[("g", s)].get("bytes_per_token") or 1.0 for s in seeds]
    tokens = any(b != 1.0 for b in per_token)
    if tokens:
        print(row("all, per byte", [d / b for d, b in zip(all_diffs, per_token)]))
    factors = [(pp[("g", s)].get("bytes_per_word") or 0) / b for s, b in zip(seeds, per_token)]
    source = "each evaluation's own word count"
    if not all(factors) and os.environ.get("BYTES_PER_WORD"):
        factors = [float(os.environ["BYTES_PER_WORD"])] * len(seeds)
        source = f"BYTES_PER_WORD={os.environ['BYTES_PER_WORD']} (these runs carry no word count)"
    if all(factors):
        print(row("all, per word", [d * f for d, f in zip(all_diffs, factors)]))
        unit = "nats per token times tokens per word" if tokens else "nats per byte times bytes per word"
        print(f"\nper word: {unit} ({source}; mean {sum(factors) / len(factors):.3f})")


def needle_cells(run_dir):
    cells = {}
    with open(os.path.join(run_dir, "needle.csv")) as f:
        for r in csv.DictReader(f):
            cells.setdefault((r["form"], int(r["length_tokens"])), []).append(float(r["accuracy"]))
    return {k: sum(v) / len(v) for k, v in cells.items()}


def needle_table(runs_dir, gated, baseline):
    seeds, g, b = paired_runs(runs_dir, gated, baseline, "needle.csv")
    cg = {s: needle_cells(g[s]) for s in seeds}
    cb = {s: needle_cells(b[s]) for s in seeds}
    keys = sorted(cg[seeds[0]], key=lambda k: (k[0] != "single", k[1]))
    print(f"{gated} minus {baseline}, token needle accuracy (points, mean over depths), seeds {','.join(map(str, seeds))}")
    print()
    print("| form, length | baseline (mean over seeds) | gated | gated minus baseline [95% t] | seeds where gating is better | detectable effect | per seed |")
    print("|---|---|---|---|---|---|---|")
    with open(os.path.join(g[seeds[0]], "config.json")) as f:
        N = json.load(f)["data"]["seq_len"]
    growth = []
    for form in dict.fromkeys(k[0] for k in keys):
        lengths = [k for k in keys if k[0] == form]
        for key in lengths:
            diffs = [cg[s][key] - cb[s][key] for s in seeds]
            base = sum(cb[s][key] for s in seeds) / len(seeds)
            gate = sum(cg[s][key] for s in seeds) / len(seeds)
            r = row(f"{form}, {key[1]}", diffs, better_if_negative=False, digits=1)
            cells = r.split(" | ")
            print(" | ".join([cells[0], f"{base:.1f}", f"{gate:.1f}"] + cells[1:]))
        if (form, N) in cg[seeds[0]] and lengths[-1][1] > N:
            # Claim (c) is about growth: how the difference moves from N to the longest length.
            far = lengths[-1]
            growth.append((f"{form}: difference at {far[1]} minus at {N}",
                           [(cg[s][far] - cb[s][far]) - (cg[s][(form, N)] - cb[s][(form, N)]) for s in seeds]))
    if growth:
        print()
        print("| growth of the difference past N | mean over seeds [95% t] | seeds where it grows | detectable effect | per seed |")
        print("|---|---|---|---|---|")
        for label, d in growth:
            print(row(label, d, better_if_negative=False, digits=1))


def bpb_table(runs_dir, baseline, gated_groups):
    base = seeds_of(runs_dir, baseline)

    def bpb(d):
        with open(os.path.join(d, "per_position.json")) as f:
            j = json.load(f)
        return j["heldout_bits_per_byte_interval"]["mean"], j["mean_nll"]

    print(f"held-out bits per byte (positions 1..N), and mean NLL over all positions minus {baseline}")
    print()
    print("| group | seeds | bits/byte (mean [95% t]) | bits/byte minus baseline | seeds better | detectable effect | mean NLL, all positions, minus baseline (nats) | seeds better | detectable effect |")
    print("|---|---|---|---|---|---|---|---|---|")
    for grp in [baseline] + gated_groups:
        runs = seeds_of(runs_dir, grp)
        seeds = sorted(set(runs) & set(base))
        vals = [bpb(runs[s]) for s in seeds]
        m, lo, hi, _ = summary([v[0] for v in vals])
        level = f"{m:.3f}" if lo is None else f"{m:.3f} [{lo:.3f}, {hi:.3f}]"
        if grp == baseline:
            print(f"| {grp} | {len(seeds)} | {level} | - | - | - | - | - | - |")
            continue
        bv = [bpb(base[s]) for s in seeds]
        d_bpb = [v[0] - w[0] for v, w in zip(vals, bv)]
        d_nll = [v[1] - w[1] for v, w in zip(vals, bv)]
        a = row("", d_bpb).split(" | ")
        c = row("", d_nll).split(" | ")
        print(f"| {grp} | {len(seeds)} | {level} | {a[1]} | {a[2]} | {a[3]} | {c[1]} | {c[2]} | {c[3]} |")


def effect_diff_table(runs_dir, gated, baseline, ref_gated, ref_baseline, ref_dir=None):
    """A factor's cell against the reference cell, paired by seed: (gated - baseline) - (ref_gated -
    ref_baseline) over all positions and the default ranges; the diagnosis' decision rule (issue 37)."""
    ref_dir = ref_dir or runs_dir
    seeds, g, b = paired_runs(runs_dir, gated, baseline)
    rseeds, rg, rb = paired_runs(ref_dir, ref_gated, ref_baseline)
    seeds = sorted(set(seeds) & set(rseeds))
    if not seeds:
        sys.exit("no seed has finished runs of all four groups")

    def load(d):
        with open(os.path.join(d, "per_position.json")) as f:
            return json.load(f)

    def mean_over(j, lo, hi):
        xs = [x for x in j["nll"][lo - 1:hi] if x is not None]
        return sum(xs) / len(xs)

    cell = {s: (load(g[s]), load(b[s])) for s in seeds}
    ref = {s: (load(rg[s]), load(rb[s])) for s in seeds}
    N, L = cell[seeds[0]][0]["train_len"], cell[seeds[0]][0]["seq_len"]
    # A token cell against a byte cell (or other tokens): only per byte over all positions compares,
    # each run's mean NLL per token over its evaluation's bytes per token; position ranges are
    # positions of different units and are left out.
    bpt = lambda j: j.get("bytes_per_token") or 1.0
    if {round(bpt(j), 9) for s in seeds for j in cell[s]} != {round(bpt(j), 9) for s in seeds for j in ref[s]}:
        per_byte = lambda j: mean_over(j, 1, L) / bpt(j)
        print(f"({gated} - {baseline}) minus ({ref_gated} - {ref_baseline}), mean NLL per byte (nats), seeds "
              f"{','.join(map(str, seeds))}; negative: the factor moves the effect toward helping. The cells count "
              f"positions in different units (bytes per token {bpt(cell[seeds[0]][0]):.2f} against "
              f"{bpt(ref[seeds[0]][0]):.2f}): all positions only, each run per byte of its own evaluated text")
        print()
        print("| positions | mean over seeds [95% t] | seeds where the factor helps | detectable effect | per seed |")
        print("|---|---|---|---|---|")
        diffs = [(per_byte(cell[s][0]) - per_byte(cell[s][1])) - (per_byte(ref[s][0]) - per_byte(ref[s][1])) for s in seeds]
        print(row("all, per byte", diffs))
        return
    print(f"({gated} - {baseline}) minus ({ref_gated} - {ref_baseline}), mean NLL (nats), seeds "
          f"{','.join(map(str, seeds))}; negative: the factor moves the effect toward helping")
    print()
    print("| positions | mean over seeds [95% t] | seeds where the factor helps | detectable effect | per seed |")
    print("|---|---|---|---|---|")
    for lo, hi in [(1, 2), (3, 16), (17, 256), (257, N), (N + 1, L), (1, L)]:
        if hi > L or lo > hi:
            continue
        diffs = [(mean_over(cell[s][0], lo, hi) - mean_over(cell[s][1], lo, hi)) -
                 (mean_over(ref[s][0], lo, hi) - mean_over(ref[s][1], lo, hi)) for s in seeds]
        print(row("all" if (lo, hi) == (1, L) else f"{lo}-{hi}", diffs))


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    mode = sys.argv[1]
    if mode == "nll":
        nll_table(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)
    elif mode == "needle":
        needle_table(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "diff" and len(sys.argv) >= 7:
        effect_diff_table(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6],
                          sys.argv[7] if len(sys.argv) > 7 else None)
    elif mode == "bpb":
        bpb_table(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
