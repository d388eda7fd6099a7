#!/usr/bin/env python3
"""PyTorch reference timings of the gated delta rule (math.md section 3, E = 1), to set beside
`proteus bench --op memory-rule --device cuda` at the same shapes.

    S_t = a_t S_{t-1} + beta_t k_t (v_t - a_t S_{t-1}^T k_t)^T,   o_t = S_t^T q_t

Two forms, each eager and under torch.compile: the naive recurrent loop over t, and the chunked
WY/UT form (fla's chunk algorithm written in plain PyTorch, chunk 64). Forward alone and forward +
backward (autograd), fp32, CUDA events, median of --reps after --warmup. Also checks that the two
forms agree. usage: memory_rule_bench.py [--shape B T H D] [--reps N] [--device cuda|cpu]
"""
import argparse
import statistics
import torch


def recurrent(q, k, v, beta, a):
    """(B, T, H, d) inputs, beta/a (B, T, H): the definition, one step at a time."""
    B, T, H, dk = k.shape
    dv = v.shape[-1]
    S = q.new_zeros(B, H, dk, dv)
    out = []
    for t in range(T):
        kt, vt, qt = k[:, t], v[:, t], q[:, t]              # (B, H, d)
        at, bt = a[:, t, :, None, None], beta[:, t, :, None]
        pred = torch.einsum("bhkv,bhk->bhv", S, kt)
        corr = vt - a[:, t, :, None] * pred
        S = at * S + torch.einsum("bhk,bhv->bhkv", bt * kt, corr)
        out.append(torch.einsum("bhkv,bhk->bhv", S, qt))
    return torch.stack(out, dim=1)


def chunked(q, k, v, beta, a, C=64):
    """The same rule in chunks of C (WY representation, as fla's chunk_gated_delta_rule)."""
    B, T, H, dk = k.shape
    dv = v.shape[-1]
    assert T % C == 0
    n = T // C
    tr = lambda x: x.transpose(1, 2).reshape(B, H, n, C, *x.shape[3:])  # (B, H, n, C, .)
    q, k, v = tr(q), tr(k), tr(v)
    beta, g = tr(beta), tr(torch.log(a))                                # (B, H, n, C)
    g = g.cumsum(-1)                                                     # log of prod a within the chunk
    kb, vb = k * beta[..., None], v * beta[..., None]
    mask_incl = torch.triu(torch.ones(C, C, dtype=torch.bool, device=q.device), 0)
    decay = (g[..., :, None] - g[..., None, :]).tril().exp().tril()     # (.., C, C) prod a_{j+1..i}
    A = -(kb @ k.transpose(-1, -2)) * decay
    A = A.masked_fill(mask_incl, 0)
    # (I - A)^{-1}: A is strictly lower triangular, so one unit-triangular solve
    eye = torch.eye(C, device=q.device).expand_as(A)
    Tm = torch.linalg.solve_triangular(eye - A, eye, upper=False, unitriangular=True)
    w = Tm @ (kb * g.exp()[..., None])                                   # decayed keys
    u = Tm @ vb
    S = q.new_zeros(B, H, dk, dv)
    o = []
    mask_strict = torch.triu(torch.ones(C, C, dtype=torch.bool, device=q.device), 1)
    for i in range(n):
        qi, ki, gi = q[:, :, i], k[:, :, i], g[:, :, i]
        attn = ((qi @ ki.transpose(-1, -2)) * decay[:, :, i]).masked_fill(mask_strict, 0)
        v_new = u[:, :, i] - w[:, :, i] @ S
        o.append((qi * gi[..., None].exp()) @ S + attn @ v_new)
        S = S * gi[..., -1, None, None].exp() + (ki * (gi[..., -1, None] - gi).exp()[..., None]).transpose(-1, -2) @ v_new
    o = torch.stack(o, 2).reshape(B, H, T, dv).transpose(1, 2)
    return o


def time_ms(fn, warmup, reps, device):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        if device == "cuda":
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e))
        else:
            import time
            t0 = time.perf_counter()
            fn()
            times.append(1e3 * (time.perf_counter() - t0))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", type=int, nargs=4, default=[8, 1024, 8, 64], metavar=("B", "T", "H", "D"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--forms", default="recurrent,chunked")
    ap.add_argument("--no-compile", action="store_true")
    args = ap.parse_args()
    B, T, H, D = args.shape
    dev = args.device
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = False
    mk = lambda *s: torch.randn(*s, device=dev)
    q = torch.nn.functional.normalize(mk(B, T, H, D), dim=-1)
    k = torch.nn.functional.normalize(mk(B, T, H, D), dim=-1)
    v = mk(B, T, H, D)
    beta = torch.rand(B, T, H, device=dev) * 0.8 + 0.1
    a = torch.rand(B, T, H, device=dev) * 0.1 + 0.9
    inputs = [x.requires_grad_() for x in (q, k, v, beta, a)]
    dO = mk(B, T, H, D)

    # The two forms compute the same thing (on a short prefix, to keep the loop cheap).
    with torch.no_grad():
        n = min(T, 256)
        ref = recurrent(*[x[:, :n] for x in inputs])
        chk = chunked(*[x[:, :n] for x in inputs])
        rel = ((ref - chk).abs().max() / ref.abs().max()).item()
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name() if dev == 'cuda' else 'cpu'}, "
          f"shape B,T,H,D = {B},{T},{H},{D}, fp32 (no TF32); chunked vs recurrent max rel diff {rel:.1e}")
    forms = args.forms.split(",")
    if rel > 1e-3:
        print("# the chunked form disagrees with the recurrent one: not timed", flush=True)
        forms = [f for f in forms if f != "chunked"]

    print(f"{'form':<12} {'mode':<8} {'fwd_ms':>9} {'fwd+bwd_ms':>11}")
    for form in forms:
        fn = {"recurrent": recurrent, "chunked": chunked}[form]
        # torch.compile unrolls the recurrent loop's T steps into one graph: only for short T.
        compile_it = not args.no_compile and hasattr(torch, "compile") and (form == "chunked" or T <= 256)
        modes = [("eager", fn)] + ([("compile", torch.compile(fn, dynamic=False))] if compile_it else [])
        for mode, f in modes:
            try:
                def fwd():
                    with torch.no_grad():
                        f(*inputs)

                def fwd_bwd():
                    o = f(*inputs)
                    o.backward(dO)

                tf = time_ms(fwd, args.warmup, args.reps, dev)
                tb = time_ms(fwd_bwd, args.warmup, args.reps, dev)
                print(f"{form:<12} {mode:<8} {tf:9.3f} {tb:11.3f}", flush=True)
            except Exception as e:  # a compile failure is a result too
                print(f"{form:<12} {mode:<8} failed: {type(e).__name__}: {str(e)[:200]}", flush=True)


if __name__ == "__main__":
    main()
