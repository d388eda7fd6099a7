#!/usr/bin/env python3
"""What a training budget did to the runs of a cell (issue 45's 16x question), per seed:
passes over the training split, the baseline's training loss against its held-out loss (and the
held-out loss at each check: rising while training falls is overfitting), and the gated run's
block-use entropy at its last measured positions (all blocks open).

Usage:
  scripts/budget_report.py RUNS_DIR GATED BASELINE
      GATED, BASELINE: seed-group names (config.json's "group"), e.g. diag-steps16x-proteus-e16; a group's
      runs are its finished ones evaluated per position, one per seed, as `proteus groups` takes them
      (`proteus stats members`, run by scripts/paired_seeds.py: PROTEUS, default build/app/cli/proteus).

Units: training loss is nats per token (a byte for byte runs); held-out is bits per byte (val_bpb)
and the same in nats per byte beside it. The training split is the corpus's documents minus the
held-out ones, chosen as core/data/byte_corpus.cpp chooses them (FNV-1a of the file names).
Needs proteus (above) and the standard library.
"""
import json
import math
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paired_seeds as ps  # noqa: E402  (a seed group's runs by proteus's rule: ps.seeds_of)

ps.PROG = "budget_report"


def fail(message):
    print("budget_report: " + message, file=sys.stderr)
    sys.exit(2)


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for c in data:
        h = ((h ^ c) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def training_split_bytes(path, holdout):
    """Bytes of the training stream (each document followed by two newlines), as ByteCorpus::load."""
    folder = path if os.path.isabs(path) else os.path.join(ROOT, path)
    if not os.path.isdir(folder):
        fail("data.text.path %s: not a folder (only corpus folders are counted)" % path)
    docs = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".txt") and os.path.isfile(os.path.join(folder, name)):
            with open(os.path.join(folder, name), "rb") as f:
                text = f.read()
            if text.strip():
                docs.append((name, len(text)))
    n = len(docs)
    n_val = min(max(int(math.floor(holdout * n + 0.5)), 1), n - 1)
    order = sorted(range(n), key=lambda i: (fnv1a64(docs[i][0].encode()), docs[i][0]))
    held = set(order[:n_val])
    return sum(size + 2 for i, (_, size) in enumerate(docs) if i not in held)


def metrics(run):
    with open(os.path.join(run, "metrics.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def late_entropy(run):
    """mean block-use entropy (nats) over layers and heads at the last measured position."""
    with open(os.path.join(run, "block_use.json")) as f:
        b = json.load(f)
    if not b.get("applicable") or not b.get("mean_entropy"):
        return None
    return b["positions"][-1], b["open_blocks"][-1], b["blocks"], b["mean_entropy"][-1]["mean"]


def main(argv):
    if len(argv) != 4:
        fail("usage: scripts/budget_report.py RUNS_DIR GATED BASELINE")
    runs_dir, gated, baseline = argv[1:]
    if not os.path.isdir(runs_dir):
        fail("RUNS_DIR %s: no such folder" % runs_dir)
    g, b = ps.seeds_of(runs_dir, gated), ps.seeds_of(runs_dir, baseline)
    seeds = sorted(set(g) & set(b))
    if not seeds:
        fail("no seed has finished runs of both %s and %s under %s" % (gated, baseline, runs_dir))
    with open(os.path.join(b[seeds[0]], "config.json")) as f:
        cfg = json.load(f)
    data, train = cfg["data"], cfg["train"]
    tokens = train["steps"] * data["batch"] * data["seq_len"]
    split = training_split_bytes(data["text"]["path"], data["text"]["holdout"])
    unit = "token" if data.get("tokenizer", "bytes") != "bytes" else "byte"
    print("%s against %s, seeds %s" % (gated, baseline, ",".join(map(str, seeds))))
    print()
    print("training: %d steps x %d x %d = %.1f M %ss; the training split holds %.2f M bytes" %
          (train["steps"], data["batch"], data["seq_len"], tokens / 1e6, unit, split / 1e6))
    if unit == "byte":
        print("passes over the training split: %.2f" % (tokens / split))
    print()
    print("| seed | baseline training loss, last 10%% of steps (nats/%s) | held-out at each check (bits/byte) | "
          "held-out, last (nats/byte) | gated: block-use entropy at the last position (nats; log blocks = %.3f) |"
          % (unit, math.log(16)))
    print("|---|---|---|---|---|")
    for s in seeds:
        m = metrics(b[s])
        last = [r["loss"] for r in m if r["step"] > 0.9 * train["steps"]]
        checks = [(r["step"], r["val_bpb"]) for r in m if "val_bpb" in r]
        entropy = late_entropy(g[s])
        ent = "-" if entropy is None else "%.3f at position %d (%d of %d open)" % (entropy[3], entropy[0], entropy[1], entropy[2])
        print("| %d | %.4f | %s | %.4f | %s |" % (
            s, sum(last) / len(last), ", ".join("%.4f @ %d" % (v, st) for st, v in checks),
            checks[-1][1] * math.log(2), ent))


if __name__ == "__main__":
    main(sys.argv)
