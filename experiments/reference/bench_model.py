#!/usr/bin/env python3
"""Training-step throughput of a config's runs in PyTorch (proteus_model.py), to set beside
`proteus bench CONFIG`: one step = forward + backward + gradient clipping + AdamW, timed per phase
after untimed warm-up steps; medians. Each run in each memory-rule form ("auto": chunked where it
applies, else recurrent; "recurrent": the definition) and each mode (eager; `torch.compile` where
this torch has it: 2.x). fp32 (TF32 off, as our cuBLAS calls), random byte batches of the config's
(batch, seq_len), the config's learning rate, betas, eps, weight decay (matrices only, as ours) and
clip.

    bench_model.py [CONFIG] [--device cuda|cpu] [--threads N] [--steps 10] [--warmup 2]
                   [--forms auto,recurrent] [--modes eager,compile] [--variant NAME] [--out FILE.md]

Prints the date, the machine, torch's version, the device and the BLAS in use, then a table like
`proteus bench`'s; --out appends the rows as Markdown. On a CPU that other processes keep busy,
run with OMP_WAIT_POLICY=passive: torch's spinning OpenMP workers were 4-13x slower there
(experiments/results/reference-cpu.md).
"""
import argparse
import datetime
import os
import platform
import statistics
import sys
import time

import torch

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import proteus_config  # noqa: E402
import proteus_model  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def blas_in_use(device):
    """What does torch's matrix products here: cuBLAS on a GPU; on the CPU, the BLAS library
    mapped into this process (Debian's torch links libblas.so.3, whichever alternative it is)."""
    if device == "cuda":
        return f"cuBLAS (TF32 {'on' if torch.backends.cuda.matmul.allow_tf32 else 'off'})"
    torch.ones(64, 64) @ torch.ones(64, 64)  # make sure the library is loaded
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1] if line.strip() else ""
            name = os.path.basename(path)
            if any(s in name for s in ("blas", "mkl_core", "mkl_rt", "libmkl")):
                libs.add(os.path.realpath(path))
    config = torch.__config__.show()
    if not libs:
        return "MKL (in torch)" if "MKL" in config and "BLAS_INFO=mkl" in config else "unknown"
    names = []
    for lib in sorted(libs):
        if "openblas" in lib:
            names.append(f"OpenBLAS ({lib})")
        elif "mkl" in lib:
            names.append(f"MKL ({lib})")
        elif "/blas/" in lib:
            names.append(f"reference BLAS ({lib})")
        else:
            names.append(lib)
    return ", ".join(names)


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def make_optimizer(model, train):
    decay = [p for n, p in model.named_parameters() if model.decays(n)]
    rest = [p for n, p in model.named_parameters() if not model.decays(n)]
    groups = [{"params": decay, "weight_decay": train["weight_decay"]}, {"params": rest, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=train["lr"], betas=(train["beta1"], train["beta2"]), eps=train["eps"])


def bench_one(config, form, mode, device, steps, warmup):
    """Median step and phase times (ms) of one run in one form and mode, and "first": the first
    step's (ms), compilation included under torch.compile."""
    torch.manual_seed(config["seed"])
    model = proteus_model.ProteusModel(config, form).to(device)
    opt = make_optimizer(model, config["train"])
    forward = model.position_nll
    if mode == "compile":
        forward = torch.compile(model.position_nll, dynamic=False)
    B, T, V = config["data"]["batch"], config["data"]["seq_len"], config["model"]["vocab"]
    g = torch.Generator(device="cpu").manual_seed(config["seed"])
    batch = torch.randint(0, V, (B, T + 1), generator=g).to(device)
    tokens, targets = batch[:, :-1], batch[:, 1:]
    clip = config["train"]["grad_clip"]
    times = {"step": [], "fwd": [], "bwd": [], "opt": []}
    first_ms = float("nan")  # the first step: torch.compile compiles in it
    for i in range(warmup + steps):
        sync(device)
        t0 = time.perf_counter()
        loss = forward(tokens, targets).mean()
        sync(device)
        t1 = time.perf_counter()
        loss.backward()
        sync(device)
        t2 = time.perf_counter()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        opt.zero_grad(set_to_none=True)
        sync(device)
        t3 = time.perf_counter()
        if not torch.isfinite(loss):
            raise RuntimeError(f"loss is {loss.item()} at step {i + 1}")
        if i == 0:
            first_ms = 1e3 * (t3 - t0)
        if i >= warmup:
            for key, dt in (("step", t3 - t0), ("fwd", t1 - t0), ("bwd", t2 - t1), ("opt", t3 - t2)):
                times[key].append(1e3 * dt)
    params = sum(p.numel() for p in model.parameters())
    medians = {k: statistics.median(v) for k, v in times.items()}
    medians["first"] = first_ms
    return params, medians, B * T


def forms_agree(config, device):
    """max |loss(chunked) - loss(recurrent)| / loss on one batch, or None when only one form applies."""
    mixer = config["model"]["mixer"]
    if mixer["type"] != "memory":
        return None
    probe = proteus_model.ProteusModel(config, "auto")
    if all(layer.mixer.form == "recurrent" for layer in probe.layers):
        return None
    losses = []
    for form in ("recurrent", "chunked"):
        torch.manual_seed(config["seed"])
        model = proteus_model.ProteusModel(config, form).to(device)
        B, T, V = min(2, config["data"]["batch"]), min(256, config["data"]["seq_len"]), config["model"]["vocab"]
        g = torch.Generator(device="cpu").manual_seed(7)
        batch = torch.randint(0, V, (B, T + 1), generator=g).to(device)
        with torch.no_grad():
            losses.append(model.position_nll(batch[:, :-1], batch[:, 1:]))
    return ((losses[0] - losses[1]).abs().max() / losses[0].abs().max()).item()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("config", nargs="?", default=os.path.join(ROOT, "experiments/quickstart-cpu.json"))
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=("cpu", "cuda"))
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (torch.set_num_threads); 0 = torch's default")
    ap.add_argument("--steps", type=int, default=10, help="timed steps")
    ap.add_argument("--warmup", type=int, default=2, help="untimed steps first (compilation happens here)")
    ap.add_argument("--forms", default="auto,recurrent", help="memory-rule forms: auto, recurrent, chunked")
    ap.add_argument("--modes", default="eager,compile", help="eager, compile")
    ap.add_argument("--variant", action="append", help="only this variant (repeatable)")
    ap.add_argument("--out", help="append the results as Markdown rows to this file")
    args = ap.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("bench_model.py: --device cuda: this torch sees no GPU")
    if args.steps < 1:
        sys.exit("bench_model.py: --steps: must be >= 1")
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    runs = proteus_config.load_runs(args.config)
    if args.variant:
        runs = [(n, c) for n, c in runs if any(n.endswith("-" + v) for v in args.variant)]
        if not runs:
            sys.exit(f"bench_model.py: --variant: none of {args.variant} in {args.config}")
    device = args.device
    day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    machine = (torch.cuda.get_device_name() + " + " if device == "cuda" else "") + f"{cpu_model()}, {os.cpu_count()} cores"
    threads = torch.get_num_threads()
    has_compile = hasattr(torch, "compile")
    print(f"{day}, {machine}")
    print(f"torch {torch.__version__}, device {device}, threads {threads}, BLAS: {blas_in_use(device)}, fp32")
    if not has_compile:
        print(f"torch.compile: not available in torch {torch.__version__} (2.x only); eager alone")
    for name, config in runs:
        rel = forms_agree(config, device)
        if rel is not None:
            print(f"{name}: chunked vs recurrent loss, max relative difference {rel:.1e} (fp32)")

    header = f"{'run':<28} {'form':<10} {'mode':<8} {'device':<6} {'threads':>7} {'params':>9} {'step_ms':>9} " \
             f"{'fwd_ms':>9} {'bwd_ms':>9} {'opt_ms':>8} {'tokens/s':>10}"
    print(header)
    rows = []
    for name, config in runs:
        seen_forms = set()
        for form in args.forms.split(","):
            probe = proteus_model.ProteusModel(config, form if form != "chunked" else "auto")
            resolved = "attention" if config["model"]["mixer"]["type"] == "attention" else \
                ",".join(sorted({layer.mixer.form for layer in probe.layers}))
            if form == "chunked" and resolved != "chunked":
                print(f"{name:<28} {form:<10} skipped: the chunked form does not apply to this mixer")
                continue
            if resolved in seen_forms:  # "auto" resolved to a form already timed
                continue
            seen_forms.add(resolved)
            for mode in args.modes.split(","):
                label = f"{name:<28} {resolved:<10} {mode:<8}"
                if mode == "compile" and not has_compile:
                    print(f"{label} not available (torch {torch.__version__})")
                    continue
                if mode == "compile" and resolved == "recurrent" and config["data"]["seq_len"] > 256:
                    print(f"{label} not run: compiling the recurrent loop unrolls seq_len steps")
                    continue
                try:
                    params, t, tokens = bench_one(config, resolved if resolved != "attention" else "recurrent",
                                                  mode, device, args.steps, args.warmup)
                except Exception as e:  # a compile failure is a result too
                    print(f"{label} failed: {type(e).__name__}: {str(e)[:200]}")
                    continue
                tps = tokens / (t["step"] / 1e3)
                print(f"{label} {device:<6} {threads:>7} {params:>9} {t['step']:9.1f} {t['fwd']:9.1f} "
                      f"{t['bwd']:9.1f} {t['opt']:8.1f} {tps:10.0f}", flush=True)
                rows.append(f"| {day} | {machine} | {name} | {tokens} | torch {torch.__version__} {resolved} {mode} | "
                            f"{device} | {threads} | {params} | {t['step']:.1f} | {t['fwd']:.1f} | {t['bwd']:.1f} | "
                            f"{t['opt']:.1f} | {tps:.0f} |")
    if args.out and rows:
        with open(args.out, "a") as f:
            f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
