#!/usr/bin/env python3
"""What three training budgets (1x, 4x, 16x) can say about the shape of the gating effect's trend,
from the three cells' per-seed columns (the same seeds, in the same order, as the tables print them).
  scripts/budget_shape.py COLUMN_1X COLUMN_4X COLUMN_16X [RANGE_LABEL]

With budgets at log2 = 0, 2, 4 each seed's least-squares slope is exactly (16x - 1x) / 4: the 4x
point does not enter the slope, so the slope's test is the paired test of 16x against 1x, and the
line's shape is not tested by it. This prints:
  - a table in `paired_seeds.py diffcols`'s form (mean [95% t], seeds lower, detectable effect, p,
    per seed) with the slope per doubling and the curvature, the 4x point minus the midpoint of the
    1x-16x line, per seed (0 on a straight line in log budget; halving per 4x predicts -1/8 of the
    1x effect);
  - the budget where the mean line crosses 0, and the budgets where its 95% t band (over the
    per-seed lines) holds 0: Fieller's interval for the crossing ("unbounded" when the slope's
    interval reaches 0);
  - a harm halving per 4x (effect = a * 2^(-log4 budget), one parameter, never 0) and the line (two
    parameters), each fitted to the three means by least squares, with their residuals.
Standard library and proteus: the statistics are core/eval's, through scripts/paired_seeds.py (`proteus stats`).
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paired_seeds as ps  # noqa: E402


def main():
    if len(sys.argv) not in (4, 5):
        ps.die("budget_shape: give COLUMN_1X COLUMN_4X COLUMN_16X [RANGE_LABEL]")
    cols = [ps.parse_column(f"COLUMN {i + 1}", c) for i, c in enumerate(sys.argv[1:4])]
    label = sys.argv[4] if len(sys.argv) > 4 else "all"
    if len({len(c) for c in cols}) != 1 or len(cols[0]) < 2:
        ps.die("the columns hold different numbers of seeds (or fewer than 2)")
    one, four, sixteen = cols
    n = len(one)
    slope = [(c - a) / 4 for a, c in zip(one, sixteen)]
    curv = [b - (a + c) / 2 for a, b, c in zip(one, four, sixteen)]
    print(f"the effect at 1x, 4x, 16x ({n} seeds, {label}): slope per doubling = (16x - 1x) / 4 per seed; "
          "curvature = 4x minus the midpoint of 1x and 16x per seed")
    print()
    print("| comparison | mean over seeds [95% t] | seeds where it is below 0 | detectable effect | p (two-sided) | per seed |")
    print("|---|---|---|---|---|---|")
    for name, d in ((f"slope per doubling, {label}", slope), (f"4x minus the 1x-16x midpoint, {label}", curv)):
        cells = ps.row(name, d).split(" | ")
        p = ps.p_two_sided(d)
        print(" | ".join(cells[:4] + ["< 0.0001" if p < 0.0001 else f"{p:.4f}"] + cells[4:]))
    # the per-seed lines through log2 budget 0, 2, 4 and the mean line's t band
    lines = [((a + b + c) / 3 - 2 * s, s) for a, b, c, s in zip(one, four, sixteen, slope)]
    t = ps.stats_of(slope)["t"]  # t(0.975, n - 1), eval::t_quantile

    def band(x):
        v = [i + s * x for i, s in lines]
        m = sum(v) / n
        sd = math.sqrt(sum((u - m) ** 2 for u in v) / (n - 1))
        return m, m - t * sd / math.sqrt(n), m + t * sd / math.sqrt(n)

    icpt, sl = sum(i for i, _ in lines) / n, sum(s for _, s in lines) / n
    xs = [k / 1000 for k in range(0, 60001)]  # log2 budget 0 .. 60
    inside = [x for x in xs if band(x)[1] <= 0 <= band(x)[2]]
    print()
    print(f"mean line: " + ", ".join(f"{2 ** x:g}x {band(x)[0]:+.4f}" for x in (0, 2, 4)))
    print(f"crosses 0 at {2 ** (-icpt / sl):.3g}x" if sl < 0 else "does not fall to 0")
    if inside and inside[-1] < xs[-1]:
        print(f"its 95% t band holds 0 from {2 ** inside[0]:.3g}x to {2 ** inside[-1]:.3g}x (Fieller's interval)")
    elif inside:
        print(f"its 95% t band holds 0 from {2 ** inside[0]:.3g}x on: unbounded")
    else:
        print("its 95% t band holds 0 nowhere in 1x to 2^60x")
    means = [sum(c) / n for c in cols]
    w = [1, 0.5, 0.25]
    a = sum(m * q for m, q in zip(means, w)) / sum(q * q for q in w)
    res_h = [m - a * q for m, q in zip(means, w)]
    res_l = [m - band(x)[0] for m, x in zip(means, (0, 2, 4))]
    fmt = lambda r: ", ".join(f"{v:+.4f}" for v in r)
    print(f"means {fmt(means)}; halving per 4x fitted: {a:+.4f}, {a / 2:+.4f}, {a / 4:+.4f} (residuals {fmt(res_h)}, "
          f"sum of squares {sum(v * v for v in res_h):.2e}); the line: residuals {fmt(res_l)}, sum of squares "
          f"{sum(v * v for v in res_l):.2e}")


if __name__ == "__main__":
    main()
