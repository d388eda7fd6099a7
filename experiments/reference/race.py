#!/usr/bin/env python3
"""The end-to-end race (issue 23): one training step (forward + backward + clip + AdamW) of the
same config, same shapes, fp32 on both sides (TF32 off: our cuBLAS calls are plain FP32), in
  - `proteus bench CONFIG --device cuda` (ours; the device column says if it fell back), and
  - the PyTorch reference model (proteus_model.py through bench_model.py) in eager mode and under
    torch.compile, in the form `proteus` runs by default (auto: chunked where it applies).
One row per run and mode, each mode over every config before the next (eager first: a compile
that runs out the clock cannot cost the eager rows). Medians of --steps after --warmup untimed
steps; the first step's time is its own column, so torch.compile's compilation is reported apart
from its steady-state step. Writes one Markdown table, with the date, the GPU and the versions, to
--out (default experiments/results/gpu-race.md, appended), a row as soon as it is measured (a
timeout keeps the rows before it), and prints it. Killed (SIGTERM, as `timeout` does), it stops its
`proteus` child first instead of leaving it running.
Targets (issue 23): ours at least 3x faster than eager, and no slower than torch.compile.

    race.py [CONFIG...] [--proteus build-gpu/app/cli/proteus] [--steps 10] [--warmup 3]
            [--modes eager,compile] [--out FILE] [--rehearse]

Only a run on a GPU writes figures: without one it stops before timing anything, unless
--rehearse (gpu-check.sh's dry run) runs every path on the CPU under a header that says so.
"""
import argparse
import datetime
import os
import signal
import subprocess
import sys

import torch

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_model  # noqa: E402
import proteus_config  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))


def ours(proteus, config_path, steps, warmup):
    """{run name: (device, step ms, tokens/s)} from `proteus bench`'s printed table."""
    cmd = [proteus, "bench", config_path, "--device", "cuda", "--steps", str(steps), "--warmup", str(warmup)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    sys.stderr.write(done.stderr)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()[-300:]}")
    rows = {}
    for line in done.stdout.splitlines():
        f = line.split()
        # run device threads params step_ms fwd_ms bwd_ms opt_ms tokens/s
        if len(f) == 9 and f[1] in ("cuda", "cpu") and f[2].isdigit():
            rows[f[0]] = (f[1], float(f[4]), float(f[8]))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("configs", nargs="*", default=[os.path.join(ROOT, "experiments/gpu/quickstart-gpu.json")])
    ap.add_argument("--proteus", default=os.path.join(ROOT, "build-gpu/app/cli/proteus"))
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3, help="untimed steps (torch.compile compiles here)")
    ap.add_argument("--modes", default="eager,compile")
    ap.add_argument("--out", default=os.path.join(ROOT, "experiments/results/gpu-race.md"))
    ap.add_argument("--rehearse", action="store_true",
                    help="without a GPU, run every path on the CPU (a rehearsal: its table says it is no figure)")
    args = ap.parse_args()
    device = "cuda"
    if not torch.cuda.is_available():
        if not args.rehearse:
            sys.exit("race.py: this torch sees no GPU; nothing is timed (no figure without a measurement)")
        device = "cpu"
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in ("eager", "compile"):
            sys.exit(f"race.py: --modes: unknown mode '{m}' (eager, compile)")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    gpu = torch.cuda.get_device_name() if device == "cuda" else "REHEARSAL on the CPU: not a measurement"
    head = (f"\n## End-to-end race, {day}, {gpu} (torch {torch.__version__}, fp32, TF32 off; "
            f"{args.steps} timed steps after {args.warmup})\n\n"
            "| run | tokens/step | ours device | ours step ms | torch form | torch mode | torch step ms | "
            "torch first step s (compilation included) | ours vs torch | target |\n"
            "|---|---|---|---|---|---|---|---|---|---|\n")
    # subprocess.run kills its child on any exception: SIGTERM becomes one.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("race.py: terminated; the rows measured so far are written"))
    with open(args.out, "a") as f:
        f.write(head)
    mine = {}  # config path -> ours, timed once
    form = "auto"
    for mode in modes:
        if mode == "compile" and not hasattr(torch, "compile"):
            print(f"compile: not available in torch {torch.__version__}", file=sys.stderr)
            continue
        target = 3.0 if mode == "eager" else 1.0
        for path in args.configs:
            if path not in mine:
                mine[path] = ours(args.proteus, path, args.steps, args.warmup)
            for name, config in proteus_config.load_runs(path):
                tokens = config["data"]["batch"] * config["data"]["seq_len"]
                dev, step, _ = mine[path].get(name, ("missing", float("nan"), 0.0))
                try:
                    _, t, _ = bench_model.bench_one(config, form, mode, device, args.steps, args.warmup)
                    theirs, first = t["step"], t["first"] / 1e3
                    vs = theirs / step
                    met = ("yes" if vs >= target else "no") + f" (>= {target:g}x {mode})"
                except Exception as e:  # a compile failure is a result too
                    theirs, first, vs = float("nan"), float("nan"), float("nan")
                    met = f"torch failed: {type(e).__name__}: {str(e)[:120]}"
                if dev != "cuda":
                    met = f"ours ran on {dev}: not comparable"
                line = (f"| {name} | {tokens} | {dev} | {step:.1f} | {form} | {mode} | {theirs:.1f} | {first:.1f} | "
                        f"{vs:.2f}x | {met} |\n")
                with open(args.out, "a") as f:
                    f.write(line)
                print(line, end="", flush=True)
    print(f"race.py: appended to {args.out}")


if __name__ == "__main__":
    main()
