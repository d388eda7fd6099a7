#!/usr/bin/env python3
"""The packed chunked algorithm of kernels/memory_rule_chunked.cu (linear, delta, comba, swla), step for step and by
the same names (Q, K, E, Qg, Kd, Kb, Vb, g, gh, bt, MB, MA, Tinv, Ub, Wk, U, Hc; dU0 = MB^T dO, Y = Qg^T dO, dHe,
dKt, dQd, dMB, dW, dEd0, dA, EH, dPA), in float64 torch, against autograd through the recurrent
definition (math.md section 3, rows opened by a schedule, S_0 = 0). It checks the GPU kernels' math
(zero padding of a ragged chunk, masks by selection, the reverse state pass with Wk^T dU, the
per-step sums for dlog a, dbeta and dgamma) on a machine without a GPU; it does not run the CUDA code.

Writes: a chunk of C steps makes Cw = W C writes, write w = j C + t at step t (W = 1 but for swla, whose
write j of step t is gamma_t[j] k_{t-j} v_{t-j}^T with the key masked by m_t). K, Kd, V, Vb, bt, U, dU, dKt
are over writes; a write reads a token of an earlier chunk when t < j, so the kernels gather each
token's dk and dv from the writes that read it (token n: write j at step n + j, in its own chunk or a
later one) instead of scattering.

    /usr/bin/python3 experiments/reference/chunked_cuda_algorithm.py     (exit 1 on a mismatch)
"""
import sys

import torch

torch.manual_seed(0)
dt = torch.float64


def recurrent(rule, q, k, v, beta, a, p, gamma, rows):
    """The definition, one step at a time: rows past rows[t] locked (per-row decay 1, never written)."""
    T, dk = k.shape
    S = torch.zeros(dk, v.shape[1], dtype=dt)
    out = []
    for t in range(T):
        m = (torch.arange(dk) < rows[t]).to(dt)
        kt, qt = k[t] * m, q[t] * m
        decay = a[t] * m + (1 - m)  # per key row; the zero-state lemma makes it the scalar decay
        if rule == "swla":  # the window's earlier keys under this step's mask; terms before t = 0 left out
            write = sum(gamma[t, j] * torch.outer(k[t - j] * m, v[t - j]) for j in range(min(gamma.shape[1], t + 1)))
            S = decay[:, None] * S + write
            out.append(S.T @ qt)
            continue
        if rule == "delta":
            write = v[t] - a[t] * (S.T @ kt)
        elif rule == "comba":
            write = v[t] - S.T @ (p[t] * m)  # erases along p, reading the undecayed S_{t-1}
        else:
            write = v[t]
        S = decay[:, None] * S + beta[t] * torch.outer(kt, write)
        out.append(S.T @ qt)
    return torch.stack(out)


def pack_writes(rule, k, v, beta, gamma, mask, NC, C, W):
    """K, V (NC, Cw, width) and bt (NC, Cw): write w = j C + t of chunk c is step c C + t's lag j, zero when
    that step is padding or reads before the first token (pack_chunks_kernel)."""
    T, dk = k.shape
    K = torch.zeros(NC, W * C, dk, dtype=dt)
    V = torch.zeros(NC, W * C, v.shape[1], dtype=dt)
    bt = torch.zeros(NC, W * C, dtype=dt)
    for c in range(NC):
        for j in range(W):
            for t in range(C):
                tok, w = c * C + t, j * C + t
                if tok >= T or tok - j < 0:
                    continue
                K[c, w] = k[tok - j] * mask[tok]
                V[c, w] = v[tok - j]
                bt[c, w] = gamma[tok, j] if rule == "swla" else beta[tok]
    return K, V, bt


def gather_writes(dKw, dUw, bt, mask, T, C, W):
    """dk, dv (T, width): token n's writes are lag j at step n + j (chunk_assemble_kernel's gather)."""
    dk = torch.zeros(T, dKw.shape[2], dtype=dt)
    dv = torch.zeros(T, dUw.shape[2], dtype=dt)
    for n in range(T):
        for j in range(W):
            step = n + j
            if step >= T:
                break
            c, w = step // C, j * C + step % C
            dk[n] += dKw[c, w] * mask[step]  # selected to the rows open at the write's step
            dv[n] += bt[c, w] * dUw[c, w]
    return dk, dv


def chunked(rule, q, k, v, beta, a, p, gamma, rows, C, dO):
    """(o, dq, dk, dv, dbeta, da, dp, dgamma) as the CUDA kernels compute them: packed (chunks, C, width), padded."""
    T, dk = k.shape
    dv = v.shape[1]
    NC = (T + C - 1) // C
    P = NC * C
    erases, comba = rule in ("delta", "comba"), rule == "comba"
    W = gamma.shape[1] if rule == "swla" else 1
    Cw = W * C

    def pad(x):
        return torch.cat([x, torch.zeros((P - T,) + x.shape[1:], dtype=dt)])

    mask = torch.stack([(torch.arange(dk) < rows[t]).to(dt) for t in range(T)])
    Q = pad(q * mask).view(NC, C, dk)
    K, V, bt = pack_writes(rule, k, v, beta, gamma, mask, NC, C, W)
    E = pad(p * mask).view(NC, C, dk) if comba else K  # the erase direction (W = 1 where it erases)
    g = pad(torch.log(a)).view(NC, C).cumsum(1)
    gh = torch.cat([torch.zeros(NC, 1, dtype=dt), g[:, :-1]], 1) if comba else g  # the erase's log-decay
    gL = g[:, -1:]
    gw = g.repeat(1, W)  # each write's step log-decay
    Qg, Kd = torch.exp(g)[..., None] * Q, torch.exp(gL - gw)[..., None] * K
    Vb = bt[..., None] * V
    Kb = (bt * torch.exp(gh))[..., None] * E if erases else None
    lower, strict = torch.tril(torch.ones(C, C, dtype=dt)), torch.tril(torch.ones(C, C, dtype=dt), -1)
    GB = (torch.exp((g[:, :, None] - g[:, None, :]).clamp(max=0)) * lower).repeat(1, 1, W)  # (NC, C, Cw)
    MB = (Q @ K.transpose(1, 2)) * GB
    if erases:
        GA = torch.exp((gh[:, :, None] - g[:, None, :]).clamp(max=0)) * strict
        MA = (E @ K.transpose(1, 2)) * GA
        Tinv = torch.linalg.inv(torch.eye(C, dtype=dt) + bt[..., None] * MA)
        Ub, Wk = Tinv @ Vb, Tinv @ Kb
    else:
        Ub, Wk = Vb.clone(), torch.zeros(NC, Cw, dk, dtype=dt)
    H, Hc, U = torch.zeros(dk, dv, dtype=dt), [], torch.zeros(NC, Cw, dv, dtype=dt)
    for c in range(NC):  # the forward state pass
        Hc.append(H.clone())
        U[c] = Ub[c] - Wk[c] @ H
        H = torch.exp(gL[c, 0]) * H + Kd[c].T @ U[c]
    Hc = torch.stack(Hc)
    O = (Qg @ Hc + MB @ U).reshape(P, dv)[:T]

    dOp = pad(dO).view(NC, C, dv)
    dU, Y = MB.transpose(1, 2) @ dOp, Qg.transpose(1, 2) @ dOp
    dH, dHe = torch.zeros(dk, dv, dtype=dt), torch.zeros(NC, dk, dv, dtype=dt)
    for c in reversed(range(NC)):  # the backward state pass
        dHe[c] = dH
        dU[c] = dU[c] + Kd[c] @ dH
        dH = torch.exp(gL[c, 0]) * dH + Y[c] - Wk[c].T @ dU[c]
    dKt, dQd, dMB = U @ dHe.transpose(1, 2), dOp @ Hc.transpose(1, 2), dOp @ U.transpose(1, 2)
    through, qd, ZB = (Kd * dKt).sum(-1), (Qg * dQd).sum(-1), dMB * MB  # through: per write

    def by_step(x):  # (NC, Cw) per write -> (NC, C) per step: a step's W writes summed
        return x.view(NC, W, C).sum(1)

    dg = -by_step(through) + qd + ZB.sum(2) - by_step(ZB.sum(1))
    dgh = torch.zeros(NC, C, dtype=dt)
    dweight = (dU * V).sum(-1)  # (NC, Cw): dbeta (linear) or dgamma (swla)
    if erases:
        dW = Tinv.transpose(1, 2) @ dU
        dEd0, dA = dW @ Hc.transpose(1, 2), -(dW @ U.transpose(1, 2)) * strict
        EH = E @ Hc
        dweight = (dW * (V - torch.exp(gh)[..., None] * EH)).sum(-1) + (dA * MA).sum(-1)
        ZA = bt[..., None] * dA * MA
        dgh = -bt * torch.exp(gh) * (E * dEd0).sum(-1) + ZA.sum(2)
        dg = dg - ZA.sum(1)
        dPA = bt[..., None] * dA * GA
        dE = -(bt * torch.exp(gh))[..., None] * dEd0 + dPA @ K
    else:
        dPA, dE = torch.zeros(NC, C, C, dtype=dt), torch.zeros(NC, C, dk, dtype=dt)
    if comba:
        dg[:, :-1] += dgh[:, 1:]  # gh_t = g_{t-1}
    else:
        dg = dg + dgh
    dg[:, -1] += through.sum(1) + torch.exp(gL[:, 0]) * (Hc * dHe).sum((1, 2))
    dlog_a = dg.flip(1).cumsum(1).flip(1)
    dq = torch.exp(g)[..., None] * dQd + (GB * dMB) @ K
    dKw = torch.exp(gL - gw)[..., None] * dKt + (GB * dMB).transpose(1, 2) @ Q
    if erases:
        dKw = dKw + dPA.transpose(1, 2) @ E
    if rule == "delta":
        dKw = dKw + dE
    dk_, dv_ = gather_writes(dKw, dW if erases else dU, bt, mask, T, C, W)

    def f(x):
        return x.reshape(P, -1)[:T]

    dgamma = torch.stack([dweight[n // C, j * C + n % C] for n in range(T) for j in range(W)]).view(T, W)
    return (O, f(dq) * mask, dk_, dv_, f(dweight[:, :C])[:, 0], f(dlog_a)[:, 0] / a, f(dE) * mask, dgamma)


def main():
    worst = 0.0
    cases = [(rule, C, 1) for rule in ("linear", "delta", "comba") for C in (5, 16, 64)]
    cases += [("swla", C, W) for W in (2, 3) for C in (1, 5, 16, 64)]  # C = 1 < W: writes two chunks back
    for rule, C, W in cases:
        T, dk, dv = 37, 8, 6
        q = torch.randn(T, dk, dtype=dt) * 0.5
        k = torch.randn(T, dk, dtype=dt) * 0.5
        v = torch.randn(T, dv, dtype=dt)
        beta = torch.rand(T, dtype=dt) * 0.8 + 0.1
        a = torch.rand(T, dtype=dt) * 0.4 + 0.6
        p = torch.randn(T, dk, dtype=dt) * 0.5
        gamma = torch.rand(T, W, dtype=dt) * 0.8 + 0.1
        dO = torch.randn(T, dv, dtype=dt)
        rows = [min(dk, 2 + t // 8) for t in range(T)]  # the open key rows grow, as under a schedule
        xs = [x.clone().requires_grad_() for x in (q, k, v, beta, a, p, gamma)]
        o = recurrent(rule, *xs, rows)
        (o * dO).sum().backward()
        got = chunked(rule, q, k, v, beta, a, p, gamma, rows, C, dO)
        grads = {"dq": 0, "dk": 1, "dv": 2, "dbeta": 3, "da": 4, "dp": 5, "dgamma": 6}
        names = ["dq", "dk", "dv", "da"] + {"comba": ["dbeta", "dp"], "swla": ["dgamma"]}.get(rule, ["dbeta"])
        errs = [(got[0] - o).abs().max().item()]
        for name in names:
            want = xs[grads[name]].grad
            errs.append((got[1 + grads[name]] - want).abs().max().item())
        worst = max(worst, *errs)
        print(f"{rule:<6} C={C:<3} W={W} max |error| o {' '.join(names)}:", " ".join(f"{e:.1e}" for e in errs))
    print(f"worst {worst:.1e}")
    sys.exit(0 if worst < 1e-12 else 1)


if __name__ == "__main__":
    main()
