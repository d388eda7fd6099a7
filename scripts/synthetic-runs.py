#!/usr/bin/env python3
"""A synthetic runs folder for the runs browser's frame times (issue 38): N run folders made from a
real one, as `proteus train` leaves them (config.json, status.json, metrics.jsonl, per_position.json
and the rest of its files), with the config varied over rules, E, d_model and seeds so that the
folder has seed groups, E = 1 baselines to pair with, and fields that differ. The numbers in them
are made up (held-out loss drawn around the template's): for timing the window, never for results.

  scripts/synthetic-runs.py TEMPLATE_RUN OUT_DIR [--runs 1000]

TEMPLATE_RUN: a finished run folder, e.g. from
  build/app/cli/proteus train experiments/quickstart-cpu.json --set train.steps=2 ... --runs-dir /tmp/rb-real
"""
import argparse
import json
import os
import random
import shutil
import sys

RULES = ["delta", "comba", "linear", "swla", "titans"]
ES = [1, 2, 4, 8, 16]
D_MODELS = [64, 128, 256, 512]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("template")
    ap.add_argument("out")
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    if os.path.exists(a.out):
        sys.exit(f"synthetic-runs: {a.out} exists; name a new folder")
    cfg = json.load(open(os.path.join(a.template, "config.json")))
    pp_path = os.path.join(a.template, "per_position.json")
    pp = json.load(open(pp_path)) if os.path.exists(pp_path) else None
    skip = {"config.json", "status.json", "per_position.json", "run.lock", ".lock"}
    # The template's other files, but checkpoints and files over 100 kB (occupancy.json): the browser
    # reads neither, and a thousand copies would fill the disk.
    others = [f for f in os.listdir(a.template)
              if os.path.isfile(os.path.join(a.template, f)) and f not in skip and not f.endswith(".safetensors")
              and os.path.getsize(os.path.join(a.template, f)) <= 100_000]
    rng = random.Random(1)
    os.makedirs(a.out)
    made = 0
    # Cells (rule, d_model, E) in turn, each with `seeds` seeds: about runs / seeds seed groups.
    cells = [(r, d, e) for r in RULES for d in D_MODELS for e in ES]
    while made < a.runs:
        rule, d, E = cells[(made // a.seeds) % len(cells)]
        seed = made % a.seeds + 1
        c = json.loads(json.dumps(cfg))
        group = f"syn-{rule}-d{d}-e{E}-c{(made // a.seeds) // len(cells)}"
        c["name"] = f"{group}-s{seed}"
        c["group"] = group
        c["seed"] = seed
        c["model"]["d_model"] = d
        c["model"]["mixer"]["rule"] = rule
        c["model"]["mixer"]["E"] = E
        c["train"]["lr"] = [0.004, 0.002][(made // a.seeds // len(cells)) % 2]
        run = os.path.join(a.out, c["name"])
        os.makedirs(run)
        for f in others:
            shutil.copyfile(os.path.join(a.template, f), os.path.join(run, f))
        json.dump(c, open(os.path.join(run, "config.json"), "w"), indent=2)
        json.dump({"state": "finished", "message": "synthetic", "step": c["train"]["steps"],
                   "updated": "2026-11-26T00:00:00Z"}, open(os.path.join(run, "status.json"), "w"))
        if pp is not None:
            p = json.loads(json.dumps(pp))
            shift = rng.gauss(0, 0.05) - 0.01 * (E > 1)
            for key in ("heldout_bits_per_byte_interval", "heldout_nll_interval"):
                ti = p.get(key) or {}
                for k in ("mean", "lo", "hi"):
                    if isinstance(ti.get(k), (int, float)):
                        ti[k] = ti[k] + shift
            json.dump(p, open(os.path.join(run, "per_position.json"), "w"))
        made += 1
    print(f"synthetic-runs: {made} runs in {a.out}")


if __name__ == "__main__":
    main()
