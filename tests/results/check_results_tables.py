#!/usr/bin/env python3
"""Every table of experiments/results/*.md that carries a per-seed column, recomputed from that column,
and every verdict word of the diagnosis cells checked against the decision rule written before the
runs (experiments/results/diagnosis.md, "Decision rule" and "Predictions for the training-budget
curve").
  tests/results/check_results_tables.py [SOURCE_ROOT] [--verbose]

1. Tables. A table whose header has a column "per seed..." is parsed: from the per-seed values as
   printed, the mean, the 95% Student t interval, the seeds better ("N of M"), the detectable effect
   ((t(0.975, n-1) + t(0.8, n-1)) sd / sqrt(n)), the two-sided p of the paired t test and, where the
   header says "per word (derived: x F)", the per-word interval, are recomputed and compared with the
   printed ones. A printed value fails when it differs from the recomputed one by more than its own
   rounding plus what the per-seed column's rounding can move it (each per-seed value carries half a
   unit of its last digit). A table with a per-seed column that cannot be parsed is named and fails.
   Parts of a table that no per-seed column determines (a trend table's mean line and crossing, a
   needle table's accuracy levels) are listed as not covered, with the reason.
2. Verdicts. A row of a table in diagnosis.md, paper-claims.md or where-it-helps.md whose first column
   names a diagnosis cell (1a, 2a, 6b, "diagnosis 4", ...) may use only the verdict words that the
   rule gives for that cell's comparisons, each comparison recomputed from a per-seed column of
   diagnosis.md (CELLS below): "moved" when the interval of the difference from the reference
   excludes 0; "not moved" when it holds 0 and its half-width is at most the change the prediction
   names; "inconclusive" when it holds 0 and its half-width is larger; "trains away" (cell 6b) when
   16x minus 4x lies below 0 and the 16x cell's interval holds 0 or lies below it; "shown" only for a
   pre-registered comparison below 0 that clears Holm's threshold 0.05 / 12. "a lean" is not a word of
   the rule and fails in such a row. Rows with verdict words that name no cell are checked more
   loosely ("inconclusive" needs the row's effect interval to hold 0) or listed as not checked.
   Verdict words in running text (not in a table) are not checked; --verbose counts them.
Exit status 1 on any failure, each one line on stderr; standard library only.
"""
import math
import re
import sys
from pathlib import Path

args = [a for a in sys.argv[1:] if a != "--verbose"]
verbose = "--verbose" in sys.argv[1:]
root = Path(args[0]) if args else Path(__file__).resolve().parents[2]
results = root / "experiments" / "results"
failures = []
not_covered = []

# ---------------------------------------------------------------------------------------------
# Student t, by numerical integration of its density (independent of scripts/paired_seeds.py).


def t_pdf(x, df):
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    return c * (1 + x * x / df) ** (-(df + 1) / 2)


def t_cdf(x, df):
    """P(T <= x): 0.5 plus Simpson's rule over [0, |x|] (x mapped through atan for long tails)."""
    if x == 0:
        return 0.5
    # substitute x = tan(u): integrand t_pdf(tan u) / cos^2 u over [0, atan|x|]
    b = math.atan(abs(x))
    steps = 2000
    h = b / steps
    s = 0.0
    for i in range(steps + 1):
        u = i * h
        w = 1 if i in (0, steps) else (4 if i % 2 else 2)
        s += w * t_pdf(math.tan(u), df) / math.cos(u) ** 2
    area = s * h / 3
    return 0.5 + area if x > 0 else 0.5 - area


_tq = {}


def t_quantile(p, df):
    key = (p, df)
    if key not in _tq:
        lo, hi = 0.0, 1000.0
        for _ in range(80):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
        _tq[key] = (lo + hi) / 2
    return _tq[key]


def p_of_t(t, df):
    return 2 * (1 - t_cdf(abs(t), df))


HOLM = 0.05 / 12  # the design's 12 numbered cells (diagnosis.md, Multiplicity)

# ---------------------------------------------------------------------------------------------
# Markdown tables.

NUM = r"[+-]?\d+(?:\.\d+)?"
INTERVAL = re.compile(rf"({NUM})\s*\[\s*({NUM})\s*,\s*({NUM})\s*\]")


def split_row(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def tables(path):
    """(first line number, title, header cells, [(line number, cells)]) for every table of a page."""
    lines = path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|\s*-", lines[i + 1]):
            # the title: the paragraph just above the table (its lines joined)
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            para = []
            while j >= 0 and lines[j].strip() and not lines[j].startswith("|") and not lines[j].startswith("#"):
                para.insert(0, lines[j].strip())
                j -= 1
            title = " ".join(para)
            header = split_row(lines[i])
            rows = []
            k = i + 2
            while k < len(lines) and lines[k].startswith("|"):
                rows.append((k + 1, split_row(lines[k])))
                k += 1
            yield i + 1, title, header, rows
            i = k
        else:
            i += 1


def decimals(text):
    m = re.search(r"\.(\d+)", text)
    return len(m.group(1)) if m else 0


def parse_seeds(text):
    """The per-seed values as printed: [(value, sign is minus, decimals)], or None if not a column of numbers."""
    items = [x.strip() for x in text.replace("*", "").split(",")]
    out = []
    for it in items:
        if not re.fullmatch(NUM, it):
            return None
        out.append((float(it), it.startswith("-"), decimals(it)))
    return out


def stats(vals):
    n = len(vals)
    mean = sum(vals) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (n - 1))
    return n, mean, sd


class Table:
    def __init__(self, page, line, title, header):
        self.page, self.line, self.title, self.header = page, line, title, header
        low = [h.lower() for h in header]
        find = lambda pred: next((i for i, h in enumerate(low) if pred(h)), None)
        # "per seed (mean)" is a wall time per seed, not a column of per-seed values
        self.perseed = find(lambda h: h.startswith("per seed") and h != "per seed (mean)")
        self.mean = find(lambda h: "[95% t]" in h and not h.startswith("per seed"))
        if self.mean is None:
            self.mean = find(lambda h: h == "all positions")
        self.better = find(lambda h: h.startswith("seeds where"))
        self.seeds = find(lambda h: h == "seeds")
        self.mde = find(lambda h: h.startswith("detectable effect") or h.startswith("mde (all)"))
        self.p = find(lambda h: h.startswith("p (two-sided)"))
        self.word = find(lambda h: "per word (derived: x" in h)
        self.word_mde = find(lambda h: h == "mde per word")
        self.accuracy = any(w in (title + " " + " ".join(low)).lower() for w in ("accuracy", "points", "form, length", "growth"))
        self.grows = self.better is not None and "grows" in low[self.better]

    def where(self, lineno=None):
        return f"{self.page}:{lineno or self.line}"


def fail(msg):
    failures.append(msg)


def check_value(tab, lineno, label, what, printed_text, recomputed, slack):
    printed = float(printed_text)
    tol = 0.5 * 10 ** -decimals(printed_text) + slack + 1e-9
    if abs(printed - recomputed) > tol:
        fail(f"{tab.where(lineno)}: row '{label}': {what} printed {printed_text}, recomputed {recomputed:+.4f} "
             f"from the per-seed column (allowed difference {tol:.4f})")


def check_row(tab, lineno, cells):
    label = cells[0]
    if len(cells) != len(tab.header):
        fail(f"{tab.where(lineno)}: row '{label}': {len(cells)} cells under a header of {len(tab.header)}")
        return None
    seeds = parse_seeds(cells[tab.perseed])
    if seeds is None:
        fail(f"{tab.where(lineno)}: row '{label}': per-seed column {cells[tab.perseed]!r} is not a list of numbers")
        return None
    vals = [v for v, _, _ in seeds]
    n = len(vals)
    e_in = max(0.5 * 10 ** -d for _, _, d in seeds)
    if tab.seeds is not None:
        m = re.match(r"(\d+)", cells[tab.seeds])
        if m and int(m.group(1)) != n:
            fail(f"{tab.where(lineno)}: row '{label}': {cells[tab.seeds]} seeds, but {n} per-seed values")
    if tab.better is not None:
        m = re.search(r"(\d+) of (\d+)", cells[tab.better])
        if not m:
            fail(f"{tab.where(lineno)}: row '{label}': seeds better {cells[tab.better]!r} is not 'N of M'")
        else:
            if tab.accuracy or tab.grows:
                count = sum(1 for v, minus, _ in seeds if not minus and v != 0)
            else:
                count = sum(1 for _, minus, _ in seeds if minus)
            if (int(m.group(1)), int(m.group(2))) != (count, n):
                fail(f"{tab.where(lineno)}: row '{label}': seeds better printed {m.group(0)}, "
                     f"the per-seed column gives {count} of {n}")
    if n < 2:
        return vals
    n, mean, sd = stats(vals)
    t975, t80 = t_quantile(0.975, n - 1), t_quantile(0.8, n - 1)
    half = t975 * sd / math.sqrt(n)
    end_slack = e_in + t975 * e_in / math.sqrt(n - 1)
    if tab.mean is not None:
        m = INTERVAL.search(cells[tab.mean])
        if not m:
            fail(f"{tab.where(lineno)}: row '{label}': no 'mean [lo, hi]' in {cells[tab.mean]!r}")
        else:
            check_value(tab, lineno, label, "mean", m.group(1), mean, e_in)
            check_value(tab, lineno, label, "interval's low end", m.group(2), mean - half, end_slack)
            check_value(tab, lineno, label, "interval's high end", m.group(3), mean + half, end_slack)
    if tab.mde is not None:
        m = re.search(NUM, cells[tab.mde])
        if m:
            check_value(tab, lineno, label, "detectable effect", m.group(0), (t975 + t80) * sd / math.sqrt(n),
                        (t975 + t80) * e_in / math.sqrt(n - 1))
    if tab.p is not None:
        text = cells[tab.p].replace("*", "")
        d_sd = e_in * math.sqrt(n / (n - 1))
        t_hi = (abs(mean) + e_in) / max(sd - d_sd, 1e-12) * math.sqrt(n)
        t_lo = max(abs(mean) - e_in, 0) / (sd + d_sd) * math.sqrt(n)
        p_lo, p_hi = p_of_t(t_hi, n - 1), p_of_t(t_lo, n - 1)
        m = re.fullmatch(r"<\s*(" + NUM + ")", text)
        if m:
            if p_lo >= float(m.group(1)):
                fail(f"{tab.where(lineno)}: row '{label}': p printed {text}, recomputed at least {p_lo:.4g}")
        elif re.fullmatch(NUM, text):
            r = 0.5 * 10 ** -decimals(text)
            if not (p_lo - r - 1e-9 <= float(text) <= p_hi + r + 1e-9):
                fail(f"{tab.where(lineno)}: row '{label}': p printed {text}, recomputed {p_of_t(mean / sd * math.sqrt(n), n - 1):.4f} "
                     f"(range {p_lo:.4f}-{p_hi:.4f} over the column's rounding)")
        elif text != "-":
            fail(f"{tab.where(lineno)}: row '{label}': p {text!r} is not a number")
    if tab.word is not None:
        f = float(re.search(r"per word \(derived: x (" + NUM + ")", tab.header[tab.word]).group(1))
        m = INTERVAL.search(cells[tab.word])
        if m:
            check_value(tab, lineno, label, "per-word mean", m.group(1), f * mean, f * e_in)
            check_value(tab, lineno, label, "per-word low end", m.group(2), f * (mean - half), f * end_slack)
            check_value(tab, lineno, label, "per-word high end", m.group(3), f * (mean + half), f * end_slack)
        if tab.word_mde is not None:
            mm = re.search(NUM, cells[tab.word_mde])
            if mm:
                check_value(tab, lineno, label, "per-word detectable effect", mm.group(0),
                            f * (t975 + t80) * sd / math.sqrt(n), f * (t975 + t80) * e_in / math.sqrt(n - 1))
    return vals


# ---------------------------------------------------------------------------------------------
# 1. Every table with a per-seed column.

columns = {}  # (page, title substring search) -> {row label: per-seed values}
checked = 0
rows_checked = 0
for path in sorted(results.glob("*.md")):
    page = path.name
    for line, title, header, rows in tables(path):
        tab = Table(page, line, title, header)
        if tab.perseed is None:
            if any(h.lower() == "per seed (mean)" for h in header):
                not_covered.append(f"{tab.where()}: 'per seed (mean)' is a wall time per seed, not per-seed values")
            if header and header[0].lower() == "seed":
                not_covered.append(f"{tab.where()}: one row per seed, no summary over seeds to recompute ({title[:60]!r})")
            continue
        if tab.mean is None:
            fail(f"{tab.where()}: a per-seed column but no 'mean [95% t]' column to check against it: cannot parse ({title[:60]!r})")
            continue
        checked += 1
        if "mean line at each budget" in [h.lower() for h in header]:
            not_covered.append(f"{tab.where()}: trend table: the slope is checked; its mean line and crossing need the per-budget columns")
        if tab.accuracy and any("baseline (mean" in h.lower() for h in header):
            not_covered.append(f"{tab.where()}: needle table: the baseline and gated levels have no per-seed column; the differences are checked")
        got = {}
        for lineno, cells in rows:
            vals = check_row(tab, lineno, cells)
            rows_checked += 1
            if vals is not None:
                got[cells[0].replace("*", "")] = vals
        columns.setdefault(page, []).append((title, got))


def column(page, title_part, row):
    hits = [got for title, got in columns.get(page, []) if title_part in title and row in got]
    if len(hits) != 1:
        fail(f"check_results_tables: {len(hits)} tables in {page} titled like {title_part!r} with a row {row!r} (want 1)")
        return None
    return hits[0][row]


# ---------------------------------------------------------------------------------------------
# 2. The diagnosis cells' verdicts, by the rule, from their per-seed columns.
#
# The change each prediction names (diagnosis.md, "Factors and what the bottleneck explanation
# predicts"): where a cell predicts "the harm shrinks", half the reference's harm (+0.055 over seeds
# 1-8: 0.0275, as the 2a reading does); where it predicts little or no change against an alternative
# of "a large move toward 0", the whole harm (0.055); 5c's predicted rise, +0.032 toward +0.055
# (0.023); 6b's own rule names 0.013 (halving's change from 4x to 16x).

D = "diagnosis.md"
REF_ALL = ("diag-normalize-proteus-e16 minus diag-normalize-baseline", "all")


def diff_of(a, b):
    if a is None or b is None:
        return None
    return [x - y for x, y in zip(a, b)]


def interval(vals):
    n, mean, sd = stats(vals)
    half = t_quantile(0.975, n - 1) * sd / math.sqrt(n)
    p = p_of_t(mean / sd * math.sqrt(n), n - 1) if sd > 0 else (0.0 if mean else 1.0)
    return mean, mean - half, mean + half, half, p


def rule_verdicts(vals, change):
    if vals is None:
        return None
    mean, lo, hi, half, p = interval(vals)
    if hi < 0 or lo > 0:
        return {"moved"}
    return {"not moved"} if half <= change else {"inconclusive"}


def budget_verdicts(minus4x, cell16x):
    """The rule of 'Predictions for the training-budget curve' (cell 6b)."""
    if minus4x is None or cell16x is None:
        return None
    _, lo1, hi1, half1, _ = interval(minus4x)
    m2, lo2, hi2, _, _ = interval(cell16x)
    if hi1 < 0 and lo2 <= 0:
        return {"trains away"}
    if hi1 < 0 and lo2 > 0 and abs(m2 - 0.014) < 0.007:
        return {"halving"}
    if lo1 <= 0 <= hi1 and lo2 > 0 and m2 >= 0.02:
        return {"floor"}
    if lo1 <= 0 <= hi1 and half1 > 0.013:
        return {"inconclusive"}
    return set()


def shown_verdicts(vals):
    mean, lo, hi, half, p = interval(vals)
    return {"shown"} if (hi < 0 or lo > 0) and p < HOLM else set()


def diag_col(title, row):
    return column(D, title, row)


ref = diag_col(*REF_ALL)
cells = {
    "1a": [rule_verdicts(diag_col("(diag-normalize-mask-then-normalize-e16 - diag-normalize-baseline) minus", "all"), 0.055)],
    "1b": [rule_verdicts(diag_col("(diag-normalize-capped-renormalize-e16 - diag-normalize-baseline) minus", "all"), 0.055)],
    "2a": [rule_verdicts(diag_col("(diag-heads4-proteus-e16 - diag-heads4-baseline) minus", "all"), 0.0275),
           rule_verdicts(diag_col("Minus the reference cell, paired by seed", "all"), 0.0275)],
    "3a": [rule_verdicts(diag_col("(diag-block-axis-value-rows-e16 - diag-normalize-baseline) minus", "all"), 0.055)],
    "4": [rule_verdicts(diag_col("(diag-output-gate-proteus-e16 - diag-output-gate-baseline) minus", "all"), 0.0275)],
    "5": [rule_verdicts(diag_col("(diag-bpe-proteus-e16 - diag-bpe-baseline) minus", "all, per byte"), 0.055),
          rule_verdicts(diff_of(diag_col("diag-bpe-proteus-e16 minus diag-bpe-baseline", "all"), ref), 0.055)],
    "5c": [rule_verdicts(diag_col("A minus B, seed by seed", "5c per token minus the reference per byte (per position)"), 0.055),
           rule_verdicts(diag_col("A minus B, seed by seed", "5c per byte minus the reference per byte"), 0.055),
           rule_verdicts(diag_col("A minus B, seed by seed", "5c minus 5 (BPE at 320 steps), per token"), 0.023)],
    "6a": [rule_verdicts(diag_col("(diag-steps4x-proteus-e16 - diag-steps4x-baseline) minus (diag-normalize", "all"), 0.0275)],
}
c16 = diag_col("diag-steps16x-proteus-e16 minus diag-steps16x-baseline, mean NLL (nats), seeds 1,2,3,4,5,6,7,8", "all")
cells["6b"] = [budget_verdicts(diag_col("16x minus 4x, paired by seed (the 4x values from its committed column, seeds 1-8", "16x minus 4x, all positions, seeds 1-8"), c16),
               budget_verdicts(diag_col("(diag-steps16x-proteus-e16 - diag-steps16x-baseline) minus (diag-steps4x-proteus-e16 - diag-steps4x-baseline), mean NLL (nats), seeds 1,2,3,4,5,6,7,8", "all"), c16)]
cells["ref"] = [set()]
if any(v is None for vs in cells.values() for v in vs):
    pass  # already failed in column()
allowed = {k: set().union(*[v for v in vs if v is not None]) for k, vs in cells.items()}
if verbose:
    for k, v in allowed.items():
        print(f"cell {k}: the rule allows {sorted(v) or 'no verdict word'}")

CELL = re.compile(r"^(?:diagnosis\s+)?(1a, 1b|1a|1b|2a|2b|3a|3b|5c|6a|6b|ref|4|5|7|8)\b")
WORDS = [("not moved", re.compile(r"\bnot mov(?:ed|e)\b|\bdid not move\b")),
         ("moved", re.compile(r"(?<!not )(?<![\w-])moved\b")),
         ("inconclusive", re.compile(r"\binconclusive\b")),
         ("trains away", re.compile(r"\btrains away\b")),
         ("shown", re.compile(r"(?<!not )\bshown\b")),
         ("a lean", re.compile(r"\ba lean\b"))]

prose = 0
for page in ("diagnosis.md", "paper-claims.md", "where-it-helps.md"):
    path = results / page
    table_lines = set()
    for line, title, header, rows in tables(path):
        table_lines.update(range(line, line + len(rows) + 2))
        if "predicts" in " ".join(header).lower():
            continue  # the design table: predictions, not verdicts
        for lineno, row in rows:
            text = " | ".join(row).replace("**", "")
            found = [w for w, rx in WORDS if rx.search(text)]
            if not found:
                continue
            m = CELL.match(row[0].replace("**", "").replace("diagnosis: reference", "ref"))
            where = f"{page}:{lineno}"
            if m:
                names = m.group(1).split(", ")
                ok = set().union(*[allowed.get(n, set()) for n in names])
                unknown = [n for n in names if n not in allowed]
                if unknown:
                    not_covered.append(f"{where}: cell {', '.join(unknown)} has no measured comparison; verdict words {found} not checked")
                    continue
                for w in found:
                    if w == "a lean":
                        fail(f"{where}: cell {m.group(1)}: 'a lean' is not a word of the decision rule (the rule gives {sorted(ok) or 'none'})")
                    elif w not in ok:
                        fail(f"{where}: cell {m.group(1)}: '{w}', but the rule gives {sorted(ok) or 'no verdict'} "
                             "for its comparisons (recomputed from diagnosis.md's per-seed columns)")
                continue
            # A row that names no diagnosis cell: its own effect interval.
            eff = next((i for i, h in enumerate(header) if "effect [95% t]" in h.lower() or h.lower() in ("all positions",)
                        or h.lower().startswith("mean over seeds")), None)
            iv = INTERVAL.search(row[eff]) if eff is not None and eff < len(row) else None
            if iv is None:
                not_covered.append(f"{where}: verdict words {found} in a row with no effect interval of its own: not checked")
                continue
            lo, hi = float(iv.group(2)), float(iv.group(3))
            holds0 = lo <= 0 <= hi
            for w in found:
                if w == "inconclusive" and not holds0:
                    fail(f"{where}: 'inconclusive' beside an effect interval [{iv.group(2)}, {iv.group(3)}] that excludes 0")
    for n, text in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if n not in table_lines and any(rx.search(text) for _, rx in WORDS):
            prose += 1

for f in failures:
    print("check_results_tables:", f, file=sys.stderr)
if verbose or failures:
    for nc in not_covered:
        print("check_results_tables: not covered:", nc)
print(f"check_results_tables: {checked} tables with a per-seed column, {rows_checked} rows recomputed; "
      f"{len(not_covered)} parts not covered (listed with --verbose); {prose} lines of running text with "
      f"verdict words, not checked; {len(failures)} failures")
sys.exit(1 if failures else 0)
