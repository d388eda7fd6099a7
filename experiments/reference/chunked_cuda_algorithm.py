#!/usr/bin/env python3
"""The packed chunked algorithm of kernels/memory_rule_chunked.cu (linear, delta, comba), step for step and by the same
names (Q, K, E, Qg, Kd, Kb, Vb, g, gh, MB, MA, Tinv, Ub, Wk, U, Hc; dU0 = MB^T dO, Y = Qg^T dO, dHe, dKt,
dQd, dMB, dW, dEd0, dA, EH, dPA), in float64 torch, against autograd through the recurrent
definition (SPEC section 3, rows opened by a schedule, S_0 = 0). It checks the GPU kernels' math
(zero padding of a ragged chunk, masks by selection, the reverse state pass with Wk^T dU, the
per-step sums for dlog a and dbeta) on a machine without a GPU; it does not run the CUDA code.

    /usr/bin/python3 experiments/reference/chunked_cuda_algorithm.py     (exit 1 on a mismatch)
"""
import sys

import torch

torch.manual_seed(0)
dt = torch.float64


def recurrent(rule, q, k, v, beta, a, p, rows):
    """The definition, one step at a time: rows past rows[t] locked (per-row decay 1, never written)."""
    T, dk = k.shape
    S = torch.zeros(dk, v.shape[1], dtype=dt)
    out = []
    for t in range(T):
        m = (torch.arange(dk) < rows[t]).to(dt)
        kt, qt = k[t] * m, q[t] * m
        decay = a[t] * m + (1 - m)  # per key row; the zero-state lemma makes it the scalar decay
        if rule == "delta":
            write = v[t] - a[t] * (S.T @ kt)
        elif rule == "comba":
            write = v[t] - S.T @ (p[t] * m)  # erases along p, reading the undecayed S_{t-1}
        else:
            write = v[t]
        S = decay[:, None] * S + beta[t] * torch.outer(kt, write)
        out.append(S.T @ qt)
    return torch.stack(out)


def chunked(rule, q, k, v, beta, a, p, rows, C, dO):
    """(o, dq, dk, dv, dbeta, da, dp) as the CUDA kernels compute them: packed (chunks, C, width), padded."""
    T, dk = k.shape
    dv = v.shape[1]
    NC = (T + C - 1) // C
    P = NC * C
    erases, comba = rule in ("delta", "comba"), rule == "comba"

    def pad(x):
        return torch.cat([x, torch.zeros((P - T,) + x.shape[1:], dtype=dt)])

    mask = torch.stack([(torch.arange(dk) < rows[t]).to(dt) for t in range(T)])
    Q, K, V = pad(q * mask).view(NC, C, dk), pad(k * mask).view(NC, C, dk), pad(v).view(NC, C, dv)
    E = pad(p * mask).view(NC, C, dk) if comba else K  # the erase direction
    bt = pad(beta).view(NC, C)
    g = pad(torch.log(a)).view(NC, C).cumsum(1)
    gh = torch.cat([torch.zeros(NC, 1, dtype=dt), g[:, :-1]], 1) if comba else g  # the erase's log-decay
    gL = g[:, -1:]
    Qg, Kd = torch.exp(g)[..., None] * Q, torch.exp(gL - g)[..., None] * K
    Kb, Vb = (bt * torch.exp(gh))[..., None] * E, bt[..., None] * V
    lower, strict = torch.tril(torch.ones(C, C, dtype=dt)), torch.tril(torch.ones(C, C, dtype=dt), -1)
    GB = torch.exp((g[:, :, None] - g[:, None, :]).clamp(max=0)) * lower
    GA = torch.exp((gh[:, :, None] - g[:, None, :]).clamp(max=0)) * strict
    MB, MA = (Q @ K.transpose(1, 2)) * GB, (E @ K.transpose(1, 2)) * GA
    Tinv = torch.linalg.inv(torch.eye(C, dtype=dt) + bt[..., None] * MA)
    Ub, Wk = (Tinv @ Vb, Tinv @ Kb) if erases else (Vb.clone(), torch.zeros(NC, C, dk, dtype=dt))
    H, Hc, U = torch.zeros(dk, dv, dtype=dt), [], torch.zeros(NC, C, dv, dtype=dt)
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
    through, qd, ZB = (Kd * dKt).sum(-1), (Qg * dQd).sum(-1), dMB * MB
    dg = -through + qd + ZB.sum(2) - ZB.sum(1)
    dgh = torch.zeros(NC, C, dtype=dt)
    dEd0 = torch.zeros(NC, C, dk, dtype=dt)
    if erases:
        dW = Tinv.transpose(1, 2) @ dU
        dEd0, dA = dW @ Hc.transpose(1, 2), -(dW @ U.transpose(1, 2)) * strict
        EH = E @ Hc
        dbeta = (dW * (V - torch.exp(gh)[..., None] * EH)).sum(-1) + (dA * MA).sum(-1)
        ZA = bt[..., None] * dA * MA
        dgh = -bt * torch.exp(gh) * (E * dEd0).sum(-1) + ZA.sum(2)
        dg = dg - ZA.sum(1)
        dPA = bt[..., None] * dA * GA
    else:
        dbeta, dPA = (dU * V).sum(-1), torch.zeros(NC, C, C, dtype=dt)
    if comba:
        dg[:, :-1] += dgh[:, 1:]  # gh_t = g_{t-1}
    else:
        dg = dg + dgh
    dg[:, -1] += through.sum(1) + torch.exp(gL[:, 0]) * (Hc * dHe).sum((1, 2))
    dlog_a = dg.flip(1).cumsum(1).flip(1)
    dE = -(bt * torch.exp(gh))[..., None] * dEd0 + dPA @ K
    dq = torch.exp(g)[..., None] * dQd + (GB * dMB) @ K
    dk_ = torch.exp(gL - g)[..., None] * dKt + (GB * dMB).transpose(1, 2) @ Q + dPA.transpose(1, 2) @ E
    if rule == "delta":
        dk_ = dk_ + dE
    dv_ = bt[..., None] * (dW if erases else dU)

    def f(x):
        return x.reshape(P, -1)[:T]

    return O, f(dq) * mask, f(dk_) * mask, f(dv_), f(dbeta)[:, 0], f(dlog_a)[:, 0] / a, f(dE) * mask


def main():
    worst = 0.0
    for rule in ("linear", "delta", "comba"):
        for C in (5, 16, 64):
            T, dk, dv = 37, 8, 6
            q = torch.randn(T, dk, dtype=dt) * 0.5
            k = torch.randn(T, dk, dtype=dt) * 0.5
            v = torch.randn(T, dv, dtype=dt)
            beta = torch.rand(T, dtype=dt) * 0.8 + 0.1
            a = torch.rand(T, dtype=dt) * 0.4 + 0.6
            p = torch.randn(T, dk, dtype=dt) * 0.5
            dO = torch.randn(T, dv, dtype=dt)
            rows = [min(dk, 2 + t // 8) for t in range(T)]  # the open key rows grow, as under a schedule
            xs = [x.clone().requires_grad_() for x in (q, k, v, beta, a, p)]
            o = recurrent(rule, *xs, rows)
            (o * dO).sum().backward()
            got = chunked(rule, q, k, v, beta, a, p, rows, C, dO)
            pairs = list(zip(got[1:], xs)) if rule == "comba" else list(zip(got[1:6], xs[:5]))
            errs = [(got[0] - o).abs().max().item()] + [(x - y.grad).abs().max().item() for x, y in pairs]
            worst = max(worst, *errs)
            print(f"{rule:<6} C={C:<3} max |error| o dq dk dv dbeta da{' dp' if rule == 'comba' else ''}:",
                  " ".join(f"{e:.1e}" for e in errs))
    print(f"worst {worst:.1e}")
    sys.exit(0 if worst < 1e-12 else 1)


if __name__ == "__main__":
    main()
