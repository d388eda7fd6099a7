#!/usr/bin/env python3
"""Sums an `ncu --metrics gpu__time_duration.sum --csv` log by kernel name: where GPU time goes.

usage: kernel_times.py PROFILE.csv [TOP]
"""
import collections
import csv
import sys


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    lines = open(path, errors="replace").read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        print("no ncu table in", path)
        return
    total, count = collections.Counter(), collections.Counter()
    for row in csv.DictReader(lines[start:]):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "ns")
        scale = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0}.get(unit, 1e-6)
        name = row["Kernel Name"].split("(")[0][:70]
        total[name] += value * scale
        count[name] += 1
    all_ms = sum(total.values())
    print(f"{sum(count.values())} kernels, {all_ms:.1f} ms of GPU time")
    for name, ms in total.most_common(top):
        print(f"{ms:9.2f} ms {100 * ms / all_ms:5.1f}% {count[name]:6d}x  {name}")


if __name__ == "__main__":
    main()
