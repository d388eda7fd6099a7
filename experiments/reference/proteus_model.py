#!/usr/bin/env python3
"""The language model of math.md section 5 in PyTorch, exactly as core/model/ computes it, for
interoperability checks against the C++ engine and for the GPU benchmarks (bench_model.py):

    x = embed[tokens]
    per layer:  x += Mixer(RMSNorm(x));  x += SwiGLU(RMSNorm(x))
    logits = RMSNorm(x) @ embed^T                      (the LM head is tied to the embedding)

The memory mixer (fla's layer conventions, core/model/memory_mixer.cpp): q, k, v from linear maps,
a short causal depthwise convolution + SiLU, q and k L2-normalised per head (eps 1e-6 inside the
square root), beta = sigmoid(W_b x) (all rules but swla), a = exp(-exp(A_log) softplus(W_a x +
dt_bias)) when model.mixer.decay (gla: a row of d_k per head, log a = logsigmoid(W_2 W_1 x + b) / 16,
fla's GLA gate gk_proj; kda: a row of d_k per head, log a = -exp(A_log[h]) softplus(W_2 W_1 x + dt_bias),
fla's KDA gate f_proj of rank d_head, A_log per head, dt_bias per key dimension), comba's p = k and q <- q - d_h p, titans' eta = sigmoid(W_eta x),
swla's gamma = sigmoid(W_gamma x); the gated rule (memory_rules.py) with E blocks on the
schedule; per-head RMSNorm; the output map. The attention mixer: causal softmax attention, scale
1/sqrt(d), no positional encoding. Parameter names are the checkpoint's (core/model tables).

The readings of math.md section 8: model.mixer.block_axis value_rows / layer gate the rule by each
head's open value columns / key rows (the recurrent definition with that gate on top of an
ungated schedule); model.mixer.output_gate swish / sigmoid multiplies the normed read by
act(W_g x) (g_proj); model.mlp.chain puts chain blocks i >= 1 (mlp_chain.i: a norm gain and a
SwiGLU) after the one MLP, each a pre-norm residual step (core/model/model.cpp).

The memory rule runs in one of two forms: "recurrent" (the definition, any rule and E) or
"chunked" (linear, delta, gla and kda with E = 1 or row-aligned blocks, key_rows); "auto" takes the
chunked form where it applies.

    proteus_model.py nll RUN_DIR --tokens TOKENS.json --out OUT.json [--dtype float64]
                         [--forms recurrent,chunked] [--chunk 64] [--grads GRADS.safetensors]

reads RUN_DIR/config.json and RUN_DIR/checkpoint.safetensors, evaluates the sequences of
TOKENS.json ({"tokens": [[t_0, ..., t_T], ...]}, inputs t_0..t_{T-1}, next-token targets
t_1..t_T) and writes {"nll": {form: [[per-position NLL, nats] per sequence]}, "loss": {form: mean}}.
With --grads it also writes the gradient of the mean loss for every parameter (the first form).
`nll-jobs JOBS.json` runs a list of such jobs in one process (tests/reference does).
"""
import argparse
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True  # no __pycache__ in the source tree when the tests run this
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memory_rules  # noqa: E402
import proteus_config  # noqa: E402
import safetensors_io  # noqa: E402

FORMS = ("recurrent", "chunked", "auto")
# gla's retention (core/model/per_key_retention.hpp, fla's GLA): rank of W_2 W_1 and the normaliser of
# log a = logsigmoid(z) / normaliser.
RETENTION_RANK = 16
RETENTION_NORMALIZER = 16.0


class RMSNorm(torch.nn.Module):
    """y = x / sqrt(mean(x^2) + eps) * w over the last dimension."""

    def __init__(self, width, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(width))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class CausalConv(torch.nn.Module):
    """Depthwise causal convolution of width K + SiLU over (B, T, channels); weight (channels, K),
    tap K-1 on the current token (core/backend: pre[t] = sum_j w[j] x[t - (K-1-j)])."""

    def __init__(self, channels, K):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(channels, K))

    def forward(self, x):
        K = self.weight.shape[1]
        y = F.conv1d(F.pad(x.transpose(1, 2), (K - 1, 0)), self.weight.unsqueeze(1), groups=x.shape[-1])
        return F.silu(y.transpose(1, 2))


def l2_normalise(x, eps=1e-6):
    """x / sqrt(sum x^2 + eps) over the last dimension (core/backend l2norm)."""
    return x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + eps)


NORMALIZE = ("normalize_then_mask", "mask_then_normalize", "capped_renormalize")
BLOCK_AXES = ("key_rows", "value_rows", "layer")
OUTPUT_GATES = ("none", "swish", "sigmoid")


def renormalise_open_rows(x, schedule, d, capped, eps=1e-6):
    """model.mixer.normalize's re-normalising forms (core/memory/key_normalize.hpp): at position t
    the first r(t) key rows (those the active prefix of the state touches) are divided by their own
    norm, floored at sqrt(r/d) when capped (else at eps); the other rows are kept; r(t) = d keeps
    the row as it is. x: (B, T, H, d)."""
    T = x.shape[1]
    rows = torch.tensor([schedule.active_rows(t + 1, d) for t in range(T)], device=x.device)
    open_ = torch.arange(d, device=x.device)[None, :] < rows[:, None]        # (T, d)
    partial = (rows < d)[:, None]                                             # (T, 1)
    floor = torch.sqrt(rows.to(x.dtype) / d) if capped else torch.full((T,), eps, dtype=x.dtype, device=x.device)
    norm = torch.sqrt((x * open_[None, :, None, :]).pow(2).sum(-1, keepdim=True))  # (B, T, H, 1)
    scaled = x / torch.maximum(norm, floor[None, :, None, None])
    return torch.where((open_ & partial)[None, :, None, :], scaled, x)


class MemoryMixer(torch.nn.Module):
    def __init__(self, C, mixer, horizon, norm_eps, form="recurrent", chunk=64):
        super().__init__()
        self.rule, self.H, self.d_head = mixer["rule"], mixer["heads"], mixer["d_head"]
        if self.rule not in memory_rules.RULES:
            raise ValueError(f"model.mixer.rule: unknown rule '{self.rule}'")
        if form not in FORMS:
            raise ValueError(f"form: expected one of {', '.join(FORMS)}, got '{form}'")
        H, d, K = self.H, self.d_head, mixer["conv"]
        self.decay, self.window = mixer["decay"], mixer["window"]
        self.normalize = mixer.get("normalize", "normalize_then_mask")
        if self.normalize not in NORMALIZE:
            raise ValueError(f"model.mixer.normalize: expected one of {', '.join(NORMALIZE)}, got '{self.normalize}'")
        self.schedule = memory_rules.Schedule.make(mixer["schedule"], d * d, mixer["E"], horizon)
        self.block_axis = mixer.get("block_axis", "key_rows")
        if self.block_axis not in BLOCK_AXES:
            raise ValueError(f"model.mixer.block_axis: expected one of {', '.join(BLOCK_AXES)}, got '{self.block_axis}'")
        self.widths = None  # value_rows / layer with E > 1: (T) -> (H) open widths, the rule ungated
        if self.block_axis != "key_rows" and mixer["E"] > 1:
            self.widths = self.schedule
            self.schedule = memory_rules.Schedule.make({"type": "uniform"}, d * d, 1, horizon)
        self.output_gate = mixer.get("output_gate", "none")
        if self.output_gate not in OUTPUT_GATES:
            raise ValueError(f"model.mixer.output_gate: expected one of {', '.join(OUTPUT_GATES)}, got '{self.output_gate}'")
        chunked_ok = memory_rules.chunked_applies(self.rule, self.schedule, d) and self.widths is None
        if form == "chunked" and not chunked_ok:
            raise ValueError(f"form chunked: needs rule {' or '.join(memory_rules.CHUNKED_RULES)} with E = 1 or blocks on rows, "
                             f"block_axis key_rows (rule {self.rule}, E = {mixer['E']}, d_head = {d}, "
                             f"block_axis {self.block_axis})")
        self.form = "chunked" if form == "chunked" or (form == "auto" and chunked_ok) else "recurrent"
        self.chunk = chunk
        lin = lambda out: torch.nn.Linear(C, out, bias=False)
        # Registration order = the C++ table's order (for reading; names are what matter).
        self.q_proj = lin(H * d)
        self.q_conv = CausalConv(H * d, K) if K > 0 else None
        self.k_proj = lin(H * d)
        self.k_conv = CausalConv(H * d, K) if K > 0 else None
        self.v_proj = lin(H * d)
        self.v_conv = CausalConv(H * d, K) if K > 0 else None
        self.b_proj = lin(H) if self.rule != "swla" else None
        self.per_key = self.decay and self.rule in memory_rules.PER_KEY_RULES
        if self.per_key and self.rule == "kda":
            # fla's KDA gate: f_proj.0.weight (d, C), f_proj.1.weight (H d, d) (low rank = head_v_dim = d),
            # A_log (H), one per head, and dt_bias (H d), one per key dimension.
            self.f_proj = torch.nn.Sequential(lin(d), torch.nn.Linear(d, H * d, bias=False))
            self.A_log = torch.nn.Parameter(torch.zeros(H))
            self.dt_bias = torch.nn.Parameter(torch.zeros(H * d))
        elif self.per_key:  # gk_proj.0.weight (16, C), gk_proj.1.weight (H d, 16), gk_proj.1.bias (H d)
            self.gk_proj = torch.nn.Sequential(lin(RETENTION_RANK), torch.nn.Linear(RETENTION_RANK, H * d, bias=True))
        elif self.decay:
            self.a_proj = lin(H)
            self.A_log = torch.nn.Parameter(torch.zeros(H))
            self.dt_bias = torch.nn.Parameter(torch.zeros(H))
        self.eta_proj = lin(H) if self.rule == "titans" else None
        self.gamma_proj = lin(H * self.window) if self.rule == "swla" else None
        self.d = torch.nn.Parameter(torch.zeros(H)) if self.rule == "comba" else None  # comba's d_h
        self.o_norm = RMSNorm(d, norm_eps)
        self.g_proj = lin(H * d) if self.output_gate != "none" else None
        self.o_proj = torch.nn.Linear(H * d, C, bias=False)

    def open_widths(self, T):
        """(T, H) open value columns (value_rows) or key rows (layer) per step and head."""
        s, H, d = self.widths, self.H, self.d_head
        rows = []
        for n in range(T):
            k = s.active_blocks(n + 1)
            if self.block_axis == "value_rows":
                rows.append([s.active_elements(n + 1) // d] * H)
            else:  # layer: r_h = clamp(k H d / E - h d, 0, d)
                rows.append([min(max(k * H * d // s.E - h * d, 0), d) for h in range(H)])
        return rows

    def stream(self, proj, conv, x):
        y = proj(x)
        y = conv(y) if conv is not None else y
        B, T, _ = y.shape
        return y.view(B, T, self.H, self.d_head)

    def forward(self, x):
        B, T, _ = x.shape
        q = l2_normalise(self.stream(self.q_proj, self.q_conv, x))
        k = l2_normalise(self.stream(self.k_proj, self.k_conv, x))
        if self.normalize != "normalize_then_mask":
            capped = self.normalize == "capped_renormalize"
            q = renormalise_open_rows(q, self.schedule, self.d_head, capped)
            k = renormalise_open_rows(k, self.schedule, self.d_head, capped)
        v = self.stream(self.v_proj, self.v_conv, x)
        p = eta = gamma = beta = a = None
        if self.rule == "comba":
            p = k
            q = q - self.d[:, None] * k
        if self.b_proj is not None:
            beta = torch.sigmoid(self.b_proj(x))
        if self.per_key and self.rule == "kda":  # log a = -exp(A_log[h]) softplus(z + dt_bias), (B, T, H, d)
            z = (self.f_proj(x) + self.dt_bias).view(B, T, self.H, self.d_head)
            a = torch.exp(-torch.exp(self.A_log)[:, None] * F.softplus(z))
        elif self.per_key:  # log a = logsigmoid(z) / 16, one per key row: (B, T, H, d)
            a = torch.exp(F.logsigmoid(self.gk_proj(x)) / RETENTION_NORMALIZER).view(B, T, self.H, self.d_head)
        elif self.decay:
            a = torch.exp(-torch.exp(self.A_log) * F.softplus(self.a_proj(x) + self.dt_bias))
        if self.eta_proj is not None:
            eta = torch.sigmoid(self.eta_proj(x))
        if self.gamma_proj is not None:
            gamma = torch.sigmoid(self.gamma_proj(x)).view(B, T, self.H, self.window)
        if self.form == "chunked":
            o = memory_rules.chunked_rule(self.rule, self.schedule, q, k, v, beta, a, self.chunk)
        else:
            widths = self.open_widths(T) if self.widths is not None else None
            of = "value_columns" if self.block_axis == "value_rows" else "key_rows"
            o = memory_rules.recurrent_rule(self.rule, self.schedule, q, k, v, beta, a, p, eta, gamma, widths, of)
        o = self.o_norm(o).reshape(B, T, self.H * self.d_head)
        if self.g_proj is not None:
            g = self.g_proj(x)
            o = o * (F.silu(g) if self.output_gate == "swish" else torch.sigmoid(g))
        return self.o_proj(o)


class AttentionMixer(torch.nn.Module):
    """Causal softmax attention over H heads of width d, no positional encoding."""

    def __init__(self, C, mixer):
        super().__init__()
        self.H, self.d = mixer["heads"], mixer["d_head"]
        HD = self.H * self.d
        self.q_proj = torch.nn.Linear(C, HD, bias=False)
        self.k_proj = torch.nn.Linear(C, HD, bias=False)
        self.v_proj = torch.nn.Linear(C, HD, bias=False)
        self.o_proj = torch.nn.Linear(HD, C, bias=False)

    def forward(self, x):
        B, T, _ = x.shape
        heads = lambda y: y.view(B, T, self.H, self.d).transpose(1, 2)  # (B, H, T, d)
        q, k, v = heads(self.q_proj(x)), heads(self.k_proj(x)), heads(self.v_proj(x))
        if hasattr(F, "scaled_dot_product_attention"):  # torch >= 2.0: the fused kernels
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            scores = (q @ k.transpose(-1, -2)) / math.sqrt(self.d)
            future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
            o = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1) @ v
        return self.o_proj(o.transpose(1, 2).reshape(B, T, self.H * self.d))


class SwigluMlp(torch.nn.Module):
    def __init__(self, C, F_):
        super().__init__()
        self.w1 = torch.nn.Linear(C, F_, bias=False)
        self.w3 = torch.nn.Linear(C, F_, bias=False)
        self.w2 = torch.nn.Linear(F_, C, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class ChainBlock(torch.nn.Module):
    """Block i >= 1 of the MLP chain: x += SwiGLU_i(RMSNorm_i(x)) (names mlp_chain.i.*)."""

    def __init__(self, C, F_, eps):
        super().__init__()
        self.norm = RMSNorm(C, eps)
        self.w1 = torch.nn.Linear(C, F_, bias=False)
        self.w3 = torch.nn.Linear(C, F_, bias=False)
        self.w2 = torch.nn.Linear(F_, C, bias=False)

    def forward(self, x):
        h = self.norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Layer(torch.nn.Module):
    def __init__(self, model_cfg, horizon, form, chunk):
        super().__init__()
        C, eps, mixer = model_cfg["d_model"], model_cfg["norm_eps"], model_cfg["mixer"]
        self.mixer_norm = RMSNorm(C, eps)
        if mixer["type"] == "attention":
            self.mixer = AttentionMixer(C, mixer)
        elif mixer["type"] == "memory":
            self.mixer = MemoryMixer(C, mixer, horizon, eps, form, chunk)
        else:
            raise ValueError(f"model.mixer.type: unknown mixer '{mixer['type']}'")
        self.mlp_norm = RMSNorm(C, eps)
        self.mlp = SwigluMlp(C, model_cfg["d_hidden"])
        chain = model_cfg.get("mlp", {}).get("chain", [{"every": 1}])
        # Update periods only matter to training; the forward is the chain of blocks.
        self.mlp_chain = torch.nn.ModuleDict({str(i): ChainBlock(C, model_cfg["d_hidden"], eps) for i in range(1, len(chain))})

    def forward(self, x):
        x = x + self.mixer(self.mixer_norm(x))
        x = x + self.mlp(self.mlp_norm(x))
        for i in range(1, len(self.mlp_chain) + 1):
            x = self.mlp_chain[str(i)](x)
        return x


class ProteusModel(torch.nn.Module):
    def __init__(self, config, form="recurrent", chunk=64):
        """config: a resolved run config (proteus_config.load_run)."""
        super().__init__()
        m = config["model"]
        self.config = config
        horizon = m["mixer"]["N"]
        self.embed = torch.nn.Embedding(m["vocab"], m["d_model"])
        self.layers = torch.nn.ModuleList(Layer(m, horizon, form, chunk) for _ in range(m["layers"]))
        self.norm = RMSNorm(m["d_model"], m["norm_eps"])
        self.init_weights(config.get("seed", 1))

    def forward(self, tokens):
        """tokens (B, T) -> logits (B, T, V)."""
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) @ self.embed.weight.t()

    def position_nll(self, tokens, targets):
        """Next-token NLL in nats at every position, (B, T)."""
        logits = self(tokens)
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none").view(targets.shape)

    def decays(self, name):
        """Weight decay applies to the matrices the C++ table marks (projections, MLP, embedding)."""
        return name.endswith(".weight") and not any(s in name for s in ("norm.", "_conv."))

    @torch.no_grad()
    def init_weights(self, seed):
        """The C++ initialisers (model.cpp), drawn from torch's generator: same laws, other bits."""
        g = torch.Generator().manual_seed(int(seed))
        m = self.config["model"]
        std = m["init_std"]
        blocks = len(m.get("mlp", {}).get("chain", [{"every": 1}]))
        out_std = std / math.sqrt((1.0 + blocks) * m["layers"])  # one term per residual branch
        for name, p in dict(self.named_parameters()).items():
            shape = p.shape
            if name.endswith("o_proj.weight") or name.endswith("w2.weight"):
                x = torch.randn(shape, generator=g, dtype=torch.float64) * out_std
            elif name.endswith("_conv.weight"):
                bound = 1.0 / math.sqrt(shape[1])
                x = (2 * torch.rand(shape, generator=g, dtype=torch.float64) - 1) * bound
            elif name.endswith("A_log"):
                x = torch.log(1 + 15 * torch.rand(shape, generator=g, dtype=torch.float64))
            elif name.endswith("dt_bias"):  # per head (the scalar gate) or per key dimension (kda)
                lo, hi = math.log(1e-3), math.log(1e-1)
                dt = torch.exp(lo + torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo))
                dt = dt.clamp(min=1e-4)  # Mamba's / fla's dt_init_floor (never binds above 1e-3)
                x = dt + torch.log(-torch.expm1(-dt))  # softplus^-1(dt)
            elif name.endswith("mixer.d"):
                x = torch.zeros(shape, dtype=torch.float64)
            elif name.endswith("gk_proj.1.bias"):  # gla's retention starts at 0.5^(1/16)
                x = torch.zeros(shape, dtype=torch.float64)
            elif "norm." in name:
                x = torch.ones(shape, dtype=torch.float64)
            else:
                x = torch.randn(shape, generator=g, dtype=torch.float64) * std
            p.copy_(x.to(p.dtype))

    @torch.no_grad()
    def load_checkpoint(self, path):
        """Loads a checkpoint.safetensors (optimizer.* tensors ignored); every parameter must be
        there with its shape, and nothing else of the model's kind may be left over."""
        tensors = safetensors_io.load(path)
        params = dict(self.named_parameters())
        for name, p in params.items():
            if name not in tensors:
                raise ValueError(f"{path}: tensor '{name}' is missing (the checkpoint is of another model)")
            t = tensors[name]
            if tuple(t.shape) != tuple(p.shape):
                raise ValueError(f"{path}: tensor '{name}' has shape {list(t.shape)}, the model's is {list(p.shape)}")
            p.copy_(t.to(p.dtype))
        extra = [n for n in tensors if n not in params and not n.startswith("optimizer.")]
        if extra:
            raise ValueError(f"{path}: tensors the model does not have: {', '.join(sorted(extra)[:5])}")


def load_run_model(run_dir, form="recurrent", chunk=64, dtype=torch.float64, device="cpu"):
    """The model of a run directory, its checkpoint loaded, in `dtype` on `device`."""
    config = proteus_config.load_run(run_dir)
    model = ProteusModel(config, form, chunk).to(dtype)
    model.load_checkpoint(os.path.join(run_dir, "checkpoint.safetensors"))
    return model.to(device)


def evaluate_nll(run, tokens, out, dtype="float64", forms="recurrent", chunk=64, grads=None):
    """One `nll` job: see the module's docstring."""
    dtype = {"float64": torch.float64, "float32": torch.float32}[dtype]
    with open(tokens) as f:
        seqs = torch.tensor(json.load(f)["tokens"], dtype=torch.long)
    tokens, targets = seqs[:, :-1], seqs[:, 1:]
    result = {"nll": {}, "loss": {}, "torch": torch.__version__, "dtype": str(dtype)}
    for i, form in enumerate(forms.split(",")):
        model = load_run_model(run, form, chunk, dtype)
        want_grads = grads is not None and i == 0
        with torch.set_grad_enabled(want_grads):
            nll = model.position_nll(tokens, targets)
            loss = nll.mean()
            if want_grads:
                loss.backward()
                safetensors_io.save(grads, {name: p.grad for name, p in model.named_parameters()})
        result["nll"][form] = nll.detach().double().tolist()
        result["loss"][form] = loss.item()
    with open(out, "w") as f:
        json.dump(result, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    nll = sub.add_parser("nll", help="per-position NLL of a run's checkpoint on given sequences")
    nll.add_argument("run", help="run directory (config.json + checkpoint.safetensors)")
    nll.add_argument("--tokens", required=True, help='JSON {"tokens": [[...T+1 ids], ...]}')
    nll.add_argument("--out", required=True, help="JSON file written with the NLL of every form")
    nll.add_argument("--dtype", default="float64", choices=("float64", "float32"))
    nll.add_argument("--forms", default="recurrent", help="comma-separated: recurrent, chunked, auto")
    nll.add_argument("--chunk", type=int, default=64, help="chunk length of the chunked form")
    nll.add_argument("--grads", help="also write d(mean NLL)/d(parameter) of the first form here (safetensors)")
    jobs = sub.add_parser("nll-jobs", help="several nll jobs in one process (one torch import)")
    jobs.add_argument("jobs", help='JSON [{"run", "tokens", "out", "dtype", "forms", "chunk", "grads"}, ...]')
    args = ap.parse_args()
    try:
        if args.command == "nll":
            evaluate_nll(args.run, args.tokens, args.out, args.dtype, args.forms, args.chunk, args.grads)
        else:
            with open(args.jobs) as f:
                for job in json.load(f):
                    evaluate_nll(**job)
    except (ValueError, OSError, KeyError, TypeError) as e:
        print(f"proteus_model.py: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
