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
  scripts/paired_seeds.py diffcols COLUMN_A COLUMN_B [LABEL]
      A minus B, seed by seed, from two per-seed columns typed on the command line (comma-separated,
      the same seeds in the same order, as the tables' "per seed" column prints them, e.g.
      "+0.040, +0.021, +0.019"): for a cell whose run folders are gone and whose committed column is
      all that is left (16x minus 4x the training: the 16x cell's "all" column, then the 4x cell's).
      One table row (LABEL, default "all") with the mean, its 95% t interval, the seeds where A is
      lower, the detectable effect, the two-sided p-value of the paired t test and A minus B per
      seed. The columns are rounded as printed (to 0.001), so each difference carries up to 0.001 of
      rounding that the run folders would not.
  scripts/paired_seeds.py trend BUDGETS COLUMN COLUMN [COLUMN...]
      the effect against the training budget: BUDGETS the budgets as multiples of the first
      (e.g. "1,4,16"), one per-seed COLUMN per budget in that order, the same seeds in each. Per seed,
      the least-squares line of the effect against log2(budget); then the mean slope per doubling
      over seeds with its 95% t interval, the mean line's value at each budget, and the budget at
      which the mean line crosses zero if the trend held (with the budgets where the slope
      interval's ends would put it; "none" where the interval reaches 0 or above: a floor is not
      excluded).

Every comparison: the mean over seeds of gated minus baseline with its 95% Student t interval, the
seeds where gating is better, the per-seed values, and the smallest effect the design detects
(80% power, two-sided 5%: (t(0.975, n-1) + t(0.8, n-1)) sd / sqrt(n)). Only the seeds both groups
have are paired. The statistics are core/eval's, computed by `proteus stats` (the t interval,
detectable effect and paired t test, the per-seed trend line, the default position ranges), and a
seed group's runs are the ones `proteus groups` takes (`proteus stats members`: config.json's
"group", finished, one run per seed by config::choose_seed_group_members), so this script computes
no statistic of its own. It runs PROTEUS (default build/app/cli/proteus, else proteus on PATH);
otherwise the standard library.

A missing or unreadable argument (a RUNS_DIR that is not a folder, a group with no finished run, a
range that is not "LO-HI" with 1 <= LO <= HI or "all", or that starts past the evaluated length, a
run file that does not parse, a missing or extra argument, an unknown command) is one line on
stderr naming it, "paired_seeds: ...", and exit status 2. A group with no seed paired in nll, diff
and needle keeps its line as before, "no seed has finished runs of both GATED and BASELINE under
RUNS_DIR" (scripts/diagnosis_tables.sh copies it into the tables), now with exit status 2.
"""
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys

PROG = "paired_seeds"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMANDS = "nll, diff, needle, bpb, diffcols, trend"


def die(message):
    """A usage error: one line on stderr naming the argument, exit status 2."""
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(2)


def exit_with(message):
    """An existing message printed as it always was (diagnosis_tables.sh copies it into the tables), exit 2."""
    print(message, file=sys.stderr)
    sys.exit(2)


def check_dir(what, path):
    if not os.path.exists(path):
        die(f"{what} {path}: no such folder")
    if not os.path.isdir(path):
        die(f"{what} {path}: not a folder")
    if not os.access(path, os.R_OK | os.X_OK):
        die(f"{what} {path}: cannot be read")


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        die(f"{path}: unreadable ({e.__class__.__name__}: {e})")


def parse_ranges(ranges_arg):
    """The RANGES argument: comma-separated "LO-HI" (1 <= LO <= HI) or "all"; each item as a tuple of strings."""
    ranges = []
    for item in ranges_arg.split(","):
        text = item.strip()
        if text == "all":
            ranges.append(("all",))
            continue
        m = re.fullmatch(r"(\d+)\s*-\s*(\d+)", text)
        if not m:
            die(f"range {text!r}: not LO-HI (two positions, such as 17-256) or all")
        lo, hi = int(m.group(1)), int(m.group(2))
        if lo < 1:
            die(f"range {text}: positions start at 1")
        if hi < lo:
            die(f"range {text}: its end is before its start")
        ranges.append((m.group(1), m.group(2)))
    if not ranges:
        die("RANGES: empty")
    return ranges


def proteus_program():
    """The `proteus` that computes the statistics: PROTEUS, else build/app/cli/proteus, else on PATH."""
    given = os.environ.get("PROTEUS")
    path = given or os.path.join(ROOT, "build", "app", "cli", "proteus")
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    if given:
        die(f"PROTEUS={given}: not a program")
    found = shutil.which("proteus")
    if not found:
        die("needs the proteus program for its statistics (core/eval): build it, or set PROTEUS=path/to/proteus "
            "(default build/app/cli/proteus, else proteus on PATH)")
    return found


def proteus_stats(args, data=None):
    """`proteus stats ARGS` with DATA as JSON on stdin: its JSON answer; its refusal ends this script (exit 2)."""
    try:
        r = subprocess.run([proteus_program(), "stats", *args], input=None if data is None else json.dumps(data),
                           capture_output=True, text=True)
    except OSError as e:
        die(f"cannot run proteus ({e.__class__.__name__}: {e})")
    if r.returncode != 0:
        die(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"proteus stats {args[0]}: exit status {r.returncode}")
    return json.loads(r.stdout)


def stats_of(diffs):
    """core/eval's summary of one column of paired differences (`proteus stats summary`)."""
    return proteus_stats(["summary"], [list(diffs)])[0]


def summary(diffs):
    """mean, lo, hi, detectable effect (None below two seeds), as core/eval computes them."""
    s = stats_of(diffs)
    return s["mean"], s["lo"], s["hi"], s["detectable_effect"]


def fmt(mean, lo, hi, digits=3):
    if lo is None:
        return f"{mean:+.{digits}f} (one seed)"
    return f"{mean:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


_members = {}


def seeds_of(runs_dir, group, needs="per_position.json"):
    """seed -> run directory of the group's runs whose evaluation file `needs` is written: the group's
    finished runs as `proteus groups` chooses them (config.json's "group", one run per seed)."""
    if (runs_dir, group) not in _members:
        _members[(runs_dir, group)] = proteus_stats(["members", runs_dir, group])[group]["members"]
    members = _members[(runs_dir, group)]
    return {int(seed): d for seed, d in members.items() if os.path.exists(os.path.join(d, needs))}


def paired_runs(runs_dir, gated, baseline, needs="per_position.json"):
    g, b = seeds_of(runs_dir, gated, needs), seeds_of(runs_dir, baseline, needs)
    seeds = sorted(set(g) & set(b))
    if not seeds:
        exit_with(f"no seed has finished runs of both {gated} and {baseline} under {runs_dir}")
    return seeds, g, b


def row(label, diffs, better_if_negative=True, digits=3):
    mean, lo, hi, mde = summary(diffs)
    better = sum(1 for d in diffs if (d < 0) == better_if_negative and d != 0)
    per_seed = ", ".join(f"{d:+.{digits}f}" for d in diffs)
    mde_text = "-" if mde is None else f"{mde:.{digits}f}"
    return f"| {label} | {fmt(mean, lo, hi, digits)} | {better} of {len(diffs)} | {mde_text} | {per_seed} |"


def nll_table(runs_dir, gated, baseline, ranges_arg):
    ranges = parse_ranges(ranges_arg) if ranges_arg else None
    seeds, g, b = paired_runs(runs_dir, gated, baseline)
    pp = {}
    for s in seeds:
        for k, d in (("g", g[s]), ("b", b[s])):
            pp[(k, s)] = load_json(os.path.join(d, "per_position.json"))
    first = pp[("g", seeds[0])]
    try:
        N, L = first["train_len"], first["seq_len"]
    except (KeyError, TypeError):
        die(f"{os.path.join(g[seeds[0]], 'per_position.json')}: unreadable (no train_len or seq_len)")
    if ranges:
        for r in ranges:
            if r[0] != "all" and int(r[0]) > L:
                die(f"range {r[0]}-{r[1]}: starts past the evaluated length {L}")
    else:
        ranges = [("all",) if r["name"] == "all" else (str(r["lo"]), str(r["hi"])) for r in proteus_stats(["ranges", str(N), str(L)])]
    print(f"{gated} minus {baseline}, mean NLL (nats), seeds {','.join(map(str, seeds))}; training length {N}, evaluated to {L}")
    print()
    print("| positions | mean over seeds [95% t] | seeds where gating is better | detectable effect | per seed |")
    print("|---|---|---|---|---|")
    all_diffs = None
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
                    if not xs:
                        die(f"range {r[0]}-{r[1]}: no scored position in it (seed {s})")
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
    if all_diffs is None:  # RANGES without "all": no per-byte or per-word row
        return
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
    path = os.path.join(run_dir, "needle.csv")
    try:
        with open(path) as f:
            for r in csv.DictReader(f):
                cells.setdefault((r["form"], int(r["length_tokens"])), []).append(float(r["accuracy"]))
    except (OSError, KeyError, TypeError, ValueError) as e:
        die(f"{path}: unreadable ({e.__class__.__name__}: {e})")
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
    config = os.path.join(g[seeds[0]], "config.json")
    try:
        N = load_json(config)["data"]["seq_len"]
    except (KeyError, TypeError):
        die(f"{config}: unreadable (no data.seq_len)")
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
    if not base:
        die(f"BASELINE {baseline}: no finished run under {runs_dir}")
    for grp in gated_groups:
        runs = seeds_of(runs_dir, grp)
        if not runs:
            die(f"GATED {grp}: no finished run under {runs_dir}")
        if not set(runs) & set(base):
            die(f"GATED {grp}: no seed in common with BASELINE {baseline} under {runs_dir}")

    def bpb(d):
        path = os.path.join(d, "per_position.json")
        j = load_json(path)
        try:
            return j["heldout_bits_per_byte_interval"]["mean"], j["mean_nll"]
        except (KeyError, TypeError):
            die(f"{path}: unreadable (no heldout_bits_per_byte_interval or mean_nll)")

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
        exit_with("no seed has finished runs of all four groups")

    def load(d):
        return load_json(os.path.join(d, "per_position.json"))

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
    for r in proteus_stats(["ranges", str(N), str(L)]):
        lo, hi = r["lo"], r["hi"]
        diffs = [(mean_over(cell[s][0], lo, hi) - mean_over(cell[s][1], lo, hi)) -
                 (mean_over(ref[s][0], lo, hi) - mean_over(ref[s][1], lo, hi)) for s in seeds]
        print(row("all" if r["name"] == "all" else f"{lo}-{hi}", diffs))


def p_two_sided(diffs):
    """The paired t test's two-sided p-value (eval::t_test_p; None below two seeds; 0 when every
    difference is the same nonzero value)."""
    return stats_of(diffs)["p"]


def parse_column(what, text):
    values = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            die(f"{what} {text!r}: an empty value (a comma too many?)")
        try:
            v = float(item)
        except ValueError:
            die(f"{what}: {item!r} is not a number")
        if not math.isfinite(v):
            die(f"{what}: {item!r} is not a finite number")
        values.append(v)
    return values


def diffcols_table(col_a, col_b, label="all"):
    """A minus B, seed by seed, from two per-seed columns given on the command line."""
    a, b = parse_column("COLUMN_A", col_a), parse_column("COLUMN_B", col_b)
    if len(a) != len(b):
        die(f"COLUMN_A has {len(a)} values and COLUMN_B {len(b)}: give the same seeds, in the same order")
    diffs = [x - y for x, y in zip(a, b)]
    n = len(diffs)
    print(f"A minus B, seed by seed, from the per-seed columns given ({n} seed{'s' if n != 1 else ''}, in their order); "
          f"negative: A is lower")
    print()
    print("| positions | mean over seeds [95% t] | seeds where A is lower | detectable effect | p (two-sided) | per seed |")
    print("|---|---|---|---|---|---|")
    cells = row(label, diffs).split(" | ")
    p = p_two_sided(diffs)
    p_text = "-" if p is None else ("< 0.0001" if p < 0.0001 else f"{p:.4f}")
    print(" | ".join(cells[:4] + [p_text] + cells[4:]))


def crossing(intercept, slope):
    """The budget (a multiple of the first) where intercept + slope * log2(budget) is 0; None if the line never falls to it."""
    if slope >= 0 or intercept <= 0:
        return None if slope >= 0 else 1.0
    return 2 ** (-intercept / slope)


def trend_table(budgets_arg, columns):
    """The per-seed line of the effect against log2(budget), summarised over seeds."""
    budgets = parse_column("BUDGETS", budgets_arg)
    if len(budgets) < 2 or any(b <= 0 for b in budgets) or len(set(budgets)) != len(budgets):
        die(f"BUDGETS {budgets_arg!r}: give two or more different positive budgets, e.g. 1,4,16")
    if len(columns) != len(budgets):
        die(f"{len(budgets)} budgets but {len(columns)} columns: give one per-seed column per budget")
    cols = [parse_column(f"COLUMN {i + 1}", c) for i, c in enumerate(columns)]
    n = len(cols[0])
    if any(len(c) != n for c in cols):
        die("the columns hold different numbers of seeds: give the same seeds, in the same order, in each")
    xs = [math.log2(b / budgets[0]) for b in budgets]
    # per seed the least-squares line against log2(budget / first), t over the slopes (eval::fit_line, t_interval)
    fit = proteus_stats(["trend"], {"x": budgets, "columns": cols})
    slopes, intercept = fit["slopes"], fit["intercept"]
    slope, lo, hi = fit["slope"]["mean"], fit["slope"]["lo"], fit["slope"]["hi"]
    print(f"the effect against log2(training budget), a line per seed ({n} seed{'s' if n != 1 else ''}); "
          f"budgets {', '.join(f'{b:g}x' for b in budgets)}")
    print()
    print("| slope per doubling [95% t] | per seed | mean line at each budget | crosses zero at (if the trend held) |")
    print("|---|---|---|---|")
    at = ", ".join(f"{b:g}x {intercept + slope * x:+.3f}" for b, x in zip(budgets, xs))
    def where(sl):
        c = crossing(intercept, sl)
        return "none" if c is None else f"{c * budgets[0]:.3g}x"
    cross = where(slope)
    ends = f"{where(lo)} to {where(hi)}" if n > 1 else "-"
    print(f"| {fmt(slope, lo, hi)} | {', '.join(f'{v:+.3f}' for v in slopes)} | {at} | {cross} "
          f"(slope interval's ends: {ends}) |")


USAGE = {
    "nll": "nll RUNS_DIR GATED BASELINE [RANGES]",
    "diff": "diff RUNS_DIR GATED BASELINE REF_GATED REF_BASELINE [REF_RUNS_DIR]",
    "needle": "needle RUNS_DIR GATED BASELINE",
    "bpb": "bpb RUNS_DIR BASELINE GATED [GATED...]",
    "diffcols": "diffcols COLUMN_A COLUMN_B [LABEL]",
    "trend": "trend BUDGETS COLUMN COLUMN [COLUMN...]",
}


def main():
    args = sys.argv[1:]
    if not args:
        die(f"no command: give one of {COMMANDS} (--help for the usage)")
    mode = args[0]
    if mode in ("-h", "--help", "help"):
        print(__doc__)
        return
    if mode not in USAGE:
        die(f"unknown command {mode!r}: give one of {COMMANDS}")
    names = USAGE[mode].split()[1:]
    required = [n for n in names if not n.startswith("[")]
    if len(args) - 1 < len(required):
        die(f"{mode}: missing {required[len(args) - 1]} (usage: {USAGE[mode]})")
    if mode not in ("bpb", "trend") and len(args) - 1 > len(names):
        die(f"{mode}: unexpected argument {args[len(names) + 1]!r} (usage: {USAGE[mode]})")
    if mode == "diffcols":
        diffcols_table(args[1], args[2], *args[3:4])
        return
    if mode == "trend":
        trend_table(args[1], args[2:])
        return
    check_dir("RUNS_DIR", args[1])
    if mode == "nll":
        nll_table(args[1], args[2], args[3], args[4] if len(args) > 4 else None)
    elif mode == "needle":
        needle_table(args[1], args[2], args[3])
    elif mode == "diff":
        if len(args) > 6:
            check_dir("REF_RUNS_DIR", args[6])
        effect_diff_table(args[1], args[2], args[3], args[4], args[5], args[6] if len(args) > 6 else None)
    elif mode == "bpb":
        bpb_table(args[1], args[2], args[3:])


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # the reader (head, a closed pager) left: no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
