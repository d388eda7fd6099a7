#!/usr/bin/env python3
"""Self-checks of the reference's kda (experiments/reference/memory_rules.py), in float64, with no
C++ involved (tests/reference/test_reference_kda.cpp runs this; exit 1 on any failed check):

  chunked     kda's chunked form against its recurrent form, outputs, over E in {1, 2, 4}, two
              schedules, chunk sizes 1, 3, 4, 16 and 64 (one chunk), a in [1e-3, 1]      <= 1e-12
  gradients   autograd through the chunked form against autograd through the recurrent form, every
              input, relative to each one's largest gradient: q, k, v, beta <= 1e-12, a <= 1e-11
  fd          torch.autograd.gradcheck (finite differences) of both forms, every input (tiny case)
  block axes  the recurrent form under open widths (value_columns: block_axis value_rows; key_rows:
              layer) against the chunked form at E = 1 on inputs masked by those widths (the
              zero-state lemma: v's closed columns, or q's and k's closed rows, zeroed)  <= 1e-12
  delta       a row of equal retentions a_t 1 gives the delta rule with that scalar decay: the
              recurrent form for row-aligned and unaligned E, the chunked form for E 1, 2, 4 <= 1e-12
  plain       at E = 1 both forms equal fla's recurrence written out below in 5 lines    <= 1e-12
  gated       at unaligned E (3, 5, 32) the recurrent form equals math.md's gated row written out
              elementwise below                                                           <= 1e-12
  tiny a      a in [1e-6, 1e-5] with chunks of 64 (e^{-Gc} would reach e^{+800}, past double):
              the chunked form is finite and equals the recurrent one; a = 0 in places (log a floored
              at -30) gives finite outputs and gradients
  controls    the checks can fail: kda differs from gla, from delta with the mean retention, and
              from the rule with an undecayed prediction, by far more than the tolerances

    /usr/bin/python3 tests/reference/kda_reference_check.py
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "experiments", "reference"))
import torch  # noqa: E402

import memory_rules as mr  # noqa: E402

dt = torch.float64
TOL = 1e-12
failures = []


def check(name, err, tol=TOL):
    ok = err <= tol
    print(f"{'ok  ' if ok else 'FAIL'} {name:<58} {err:.1e} (bound {tol:.0e})")
    if not ok:
        failures.append(name)


def control(name, diff, least=1e-3):
    ok = diff >= least
    print(f"{'ok  ' if ok else 'FAIL'} {name:<58} {diff:.1e} (must be >= {least:.0e})")
    if not ok:
        failures.append(name)


def rel(x, y):
    return ((x - y).abs().max() / y.abs().max().clamp(min=1e-300)).item()


def inputs(B, T, H, d_k, d_v, lo=1e-3, hi=1.0, seed=0):
    """Unit q and k, beta in [0, 2], a log-uniform in [lo, hi] per key row."""
    g = torch.Generator().manual_seed(seed)
    unit = lambda x: x / x.norm(dim=-1, keepdim=True)
    q = unit(torch.randn(B, T, H, d_k, generator=g, dtype=dt))
    k = unit(torch.randn(B, T, H, d_k, generator=g, dtype=dt))
    v = torch.randn(B, T, H, d_v, generator=g, dtype=dt)
    beta = 2 * torch.rand(B, T, H, generator=g, dtype=dt)
    la, lb = torch.log(torch.tensor(lo, dtype=dt)), torch.log(torch.tensor(hi, dtype=dt))
    a = torch.exp(la + (lb - la) * torch.rand(B, T, H, d_k, generator=g, dtype=dt))
    return q, k, v, beta, a


def plain_kda(q, k, v, beta, a):
    """fla's recurrence: S_t = (I - beta_t k_t k_t^T) diag(a_t) S_{t-1} + beta_t k_t v_t^T, o_t = S_t^T q_t."""
    S, out = v.new_zeros(k.shape[0], k.shape[2], k.shape[3], v.shape[3]), []
    for t in range(k.shape[1]):
        S = a[:, t, :, :, None] * S
        S = S + beta[:, t, :, None, None] * k[:, t, :, :, None] * (v[:, t, :, None, :] - (k[:, t, :, :, None] * S).sum(2, keepdim=True))
        out.append((q[:, t, :, :, None] * S).sum(2))
    return torch.stack(out, 1)


def gated_kda(schedule, q, k, v, beta, a, decayed_prediction=True):
    """math.md's gated row, elementwise: Ŝ = G ⊙ S, S_t = S + G ⊙ ((diag(a) - I) S + beta k (v -
    (diag(a) Ŝ)^T k)^T), o_t = (G ⊙ S_t)^T q (decayed_prediction False: the control's (Ŝ^T k))."""
    B, T, H, d_k = k.shape
    d_v = v.shape[-1]
    S, out = v.new_zeros(B, H, d_k, d_v), []
    for t in range(T):
        G = (torch.arange(d_k * d_v) < schedule.active_elements(t + 1)).view(d_k, d_v).to(dt)
        at = a[:, t, :, :, None]
        Sh = G * S
        pred = ((at if decayed_prediction else 1.0) * Sh * k[:, t, :, :, None]).sum(2, keepdim=True)
        S = S + G * ((at - 1) * S + beta[:, t, :, None, None] * k[:, t, :, :, None] * (v[:, t, :, None, :] - pred))
        out.append(((G * S) * q[:, t, :, :, None]).sum(2))
    return torch.stack(out, 1)


def main():
    torch.manual_seed(0)
    B, T, H, d_k, d_v, N = 2, 37, 2, 8, 4, 24  # D = 32; E 2 and 4 are row-aligned, T runs past N
    x = inputs(B, T, H, d_k, d_v)

    # chunked against recurrent, outputs and every gradient
    dO = torch.randn(B, T, H, d_v, dtype=dt)
    worst_o = worst_g = worst_a = 0.0
    for kind in ("uniform", "geometric"):
        for E in (1, 2, 4):
            s = mr.Schedule.make({"type": kind}, d_k * d_v, E, N)
            xs = [y.clone().requires_grad_() for y in x]
            o_rec = mr.recurrent_rule("kda", s, *xs[:3], beta=xs[3], a=xs[4])
            g_rec = torch.autograd.grad((o_rec * dO).sum(), xs)
            for C in (1, 3, 4, 16, 64):
                xc = [y.clone().requires_grad_() for y in x]
                o_chk = mr.chunked_rule("kda", s, *xc, chunk=C)
                worst_o = max(worst_o, rel(o_chk, o_rec))
                if C in (3, 16, 64):
                    g_chk = torch.autograd.grad((o_chk * dO).sum(), xc)
                    worst_g = max(worst_g, *(rel(a_, b_) for a_, b_ in zip(g_chk[:4], g_rec[:4])))
                    worst_a = max(worst_a, rel(g_chk[4], g_rec[4]))
    check("chunked == recurrent, o (E 1 2 4, uniform/geometric, C 1-64)", worst_o)
    check("chunked == recurrent, d q k v beta (C 3 16 64)", worst_g)
    # da: the cumulative log-decays' gradient is a suffix sum of terms that cancel, divided by a
    # (down to 1e-3); measured 1.7e-13 at C 64, growing with C
    check("chunked == recurrent, d a (C 3 16 64)", worst_a, 1e-11)

    # finite differences of every input, both forms (tiny: gradcheck is O(inputs) forwards)
    xt = [y.clone().requires_grad_() for y in inputs(1, 7, 2, 4, 2, lo=0.05, seed=3)]
    s2 = mr.Schedule.make({"type": "uniform"}, 8, 2, 4)
    ok_r = torch.autograd.gradcheck(lambda *z: mr.recurrent_rule("kda", s2, *z[:3], beta=z[3], a=z[4]), xt, raise_exception=False)
    ok_c = torch.autograd.gradcheck(lambda *z: mr.chunked_rule("kda", s2, *z, chunk=3), xt, raise_exception=False)
    print(f"{'ok  ' if ok_r and ok_c else 'FAIL'} gradcheck (finite differences): recurrent {ok_r}, chunked {ok_c}")
    if not (ok_r and ok_c):
        failures.append("gradcheck")

    # block axes: open widths (value columns, key rows) = the chunked form at E = 1 on masked inputs
    s1 = mr.Schedule.make({"type": "uniform"}, d_k * d_v, 1, N)
    q, k, v, beta, a = x
    g = torch.Generator().manual_seed(7)
    for of, d in (("value_columns", d_v), ("key_rows", d_k)):
        widths = torch.randint(1, d + 1, (T, H), generator=g).sort(dim=0).values
        widths[N:] = d                                              # every head whole past the horizon
        o_rec = mr.recurrent_rule("kda", s1, q, k, v, beta, a, open_widths=widths.tolist(), widths_of=of)
        m = (torch.arange(d)[None, None, None, :] < widths[None, :, :, None]).to(dt)  # (1, T, H, d)
        if of == "value_columns":
            o_chk = mr.chunked_rule("kda", s1, q, k, v * m, beta, a, chunk=5)
        else:
            o_chk = mr.chunked_rule("kda", s1, q * m, k * m, v, beta, a, chunk=5)
        check(f"open widths ({of}) == chunked E 1 on masked inputs", rel(o_rec, o_chk))

    # a row of equal retentions is the delta rule with that scalar decay
    a1 = a[..., 0]
    arow = a1[..., None].expand(-1, -1, -1, d_k).contiguous()
    worst = 0.0
    for E in (1, 2, 3, 4, 5, 32):
        s = mr.Schedule.make({"type": "uniform"}, d_k * d_v, E, N)
        o_kda = mr.recurrent_rule("kda", s, q, k, v, beta, arow)
        worst = max(worst, rel(o_kda, mr.recurrent_rule("delta", s, q, k, v, beta, a1)))
    check("equal retentions == delta, recurrent (E 1 2 3 4 5 32)", worst)
    worst = 0.0
    for E in (1, 2, 4):
        s = mr.Schedule.make({"type": "uniform"}, d_k * d_v, E, N)
        for C in (3, 16):
            worst = max(worst, rel(mr.chunked_rule("kda", s, q, k, v, beta, arow, C), mr.chunked_rule("delta", s, q, k, v, beta, a1, C)))
    check("equal retentions == delta, chunked (E 1 2 4, C 3 16)", worst)

    # E = 1: fla's recurrence, written out
    o_plain = plain_kda(*x)
    check("E 1 recurrent == the 5-line recurrence", rel(mr.recurrent_rule("kda", s1, *x[:3], beta=x[3], a=x[4]), o_plain))
    check("E 1 chunked (C 16) == the 5-line recurrence", rel(mr.chunked_rule("kda", s1, *x, chunk=16), o_plain))

    # unaligned E: the gated row of math.md, elementwise
    worst = 0.0
    for E in (3, 5, 32):
        s = mr.Schedule.make({"type": "uniform"}, d_k * d_v, E, N)
        worst = max(worst, rel(mr.recurrent_rule("kda", s, *x[:3], beta=x[3], a=x[4]), gated_kda(s, *x)))
    check("recurrent == the gated row written out (E 3 5 32)", worst)

    # tiny retentions over a whole chunk: no exponent may be positive
    xt = inputs(1, 128, 2, d_k, d_v, lo=1e-6, hi=1e-5, seed=5)
    s4 = mr.Schedule.make({"type": "uniform"}, d_k * d_v, 4, 64)
    o_chk = mr.chunked_rule("kda", s4, *xt, chunk=64)
    finite = bool(torch.isfinite(o_chk).all())
    check("a in [1e-6, 1e-5], C 64: chunked finite and == recurrent",
          rel(o_chk, mr.recurrent_rule("kda", s4, *xt[:3], beta=xt[3], a=xt[4])) if finite else float("inf"))
    xz = [y.clone() for y in x]
    xz[4][:, ::5, :, ::3] = 0.0                                     # a = 0 in places: log a floored at -30
    xz = [y.requires_grad_() for y in xz]
    s = mr.Schedule.make({"type": "uniform"}, d_k * d_v, 2, N)
    o_chk = mr.chunked_rule("kda", s, *xz, chunk=16)
    grads = torch.autograd.grad((o_chk * dO).sum(), xz)
    finite = bool(torch.isfinite(o_chk).all()) and all(bool(torch.isfinite(y).all()) for y in grads)
    o_rec = mr.recurrent_rule("kda", s, *[y.detach() for y in xz[:3]], beta=xz[3].detach(), a=xz[4].detach())
    check("a = 0 in places: chunked finite (o, grads), == recurrent", rel(o_chk.detach(), o_rec) if finite else float("inf"), 1e-10)

    # controls: the checks above would see a wrong rule
    s = mr.Schedule.make({"type": "uniform"}, d_k * d_v, 2, N)
    o_kda = mr.recurrent_rule("kda", s, *x[:3], beta=x[3], a=x[4])
    control("control: kda != gla", rel(mr.recurrent_rule("gla", s, *x[:3], beta=x[3], a=x[4]), o_kda))
    control("control: kda != delta with the mean retention", rel(mr.recurrent_rule("delta", s, *x[:3], beta=x[3], a=x[4].mean(-1)), o_kda))
    control("control: kda != kda with an undecayed prediction", rel(gated_kda(s, *x, decayed_prediction=False), o_kda))

    print("all passed" if not failures else f"{len(failures)} failed: {', '.join(failures)}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
