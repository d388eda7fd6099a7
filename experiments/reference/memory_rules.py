"""The gated memory rules of math.md sections 2 and 3 in PyTorch, batched over (B, H): the schedule,
the recurrent definition (elementwise mask, any E, every rule) and the chunked row-aligned form
(linear, delta, gla and kda, E = 1 or blocks on row boundaries). A mirror of core/memory/ for the
reference model (proteus_model.py); gradients come from autograd.

Shapes: q, k, p (B, T, H, d_k); v (B, T, H, d_v); beta, eta (B, T, H); gamma (B, T, H, c);
a (B, T, H), one retention per step and head, or (B, T, H, d_k) for gla and kda (PER_KEY_RULES), one
per key row: diag(a_t) S, key row i of the state decays by a_t[i].
Positions are 1-based as in math.md (t = n + 1 for the n-th token).
"""
import math

import torch

RULES = ("linear", "delta", "comba", "titans", "swla", "gla", "kda")
# The rules whose retention is a row of d_k numbers per step and head (rule_traits' per_key_retention).
PER_KEY_RULES = ("gla", "kda")
# The rules with a chunked form (row-aligned blocks).
CHUNKED_RULES = ("linear", "delta", "gla", "kda")
# The chunked forms carry log a floored here (core/memory/log_retention.hpp's kLogRetentionFloor), so
# that a retention that underflows to 0 gives e^-30, not log 0 = -inf and then inf - inf.
# (floored on a itself, so that a = 0 has gradient 0, as retention_grad gives, and not 0 / 0).
LOG_RETENTION_FLOOR = -30.0
RETENTION_FLOOR = 9.357622968840175e-14  # e^LOG_RETENTION_FLOOR


class Schedule:
    """k(t) for D elements in E blocks over horizon N (core/memory/schedule.cpp, same formulas)."""

    def __init__(self, D, E, N, unlock):
        self.D, self.E, self.N, self.unlock = D, E, N, list(unlock)

    @staticmethod
    def make(spec, D, E, N):
        """spec: the config's {"type", "power", "unlock"}."""
        if D < 1 or not 1 <= E <= D or N < 1:
            raise ValueError(f"schedule: need D >= 1, 1 <= E <= D and N >= 1, got D={D} E={E} N={N}")
        kind = spec.get("type", "uniform")
        if kind == "uniform":
            delta = max(1, N // E)
            u = [j * delta + 1 for j in range(E)]
        elif kind == "geometric":
            u = [1]
            for j in range(1, E):  # the epsilon keeps exact powers from rounding down, as in C++
                u.append(max(u[-1], math.floor(N ** (j / E) + 1e-9)))
        elif kind == "power":
            p = float(spec.get("power", 2.0))
            u = []
            for j in range(E):
                x = 1 + math.floor(N * (j / E) ** p + 1e-9)
                u.append(max(x, u[-1]) if u else x)
        elif kind == "custom":
            u = [int(x) for x in spec.get("unlock", [])]
            if len(u) != E or u[0] != 1 or any(b < a for a, b in zip(u, u[1:])):
                raise ValueError(f"schedule.unlock: need E = {E} non-decreasing positions from 1, got {u}")
        else:
            raise ValueError(f"schedule.type: unknown schedule '{kind}'")
        return Schedule(D, E, N, u)

    def block_size(self):
        return self.D // self.E

    def end(self, k):
        return self.D if k >= self.E else k * self.block_size()

    def active_blocks(self, t):
        if t > self.N:  # past the horizon the whole memory is active
            return self.E
        return sum(1 for u in self.unlock if u <= t)

    def active_elements(self, t):
        return self.end(self.active_blocks(t))

    def row_aligned(self, d_v):
        return self.D % d_v == 0 and (self.E == 1 or self.block_size() % d_v == 0)

    def active_rows(self, t, d_v):
        return -(-self.active_elements(t) // d_v)


def _masks(schedule, T, d_k, d_v, device):
    """ends[n] = end(k(n + 1)) for n < T, and a function giving G_t (d_k, d_v) as booleans."""
    ends = [schedule.active_elements(n + 1) for n in range(T)]
    flat = torch.arange(d_k * d_v, device=device)
    cache = {}

    def mask(end):
        if end not in cache:
            cache[end] = (flat < end).view(d_k, d_v)
        return cache[end]

    return ends, mask


def _gated(G, x):
    """G ⊙ x; G None = all active."""
    return x if G is None else x.masked_fill(~G, 0)


def _keep(G, new, old):
    """new on active elements, old (its exact values) on locked ones."""
    return new if G is None else torch.where(G, new, old)


def open_widths_mask(widths, of, d_k, d_v, device):
    """The gate of the open widths at one step (block_axis value_rows / layer, math.md section 8):
    widths (H) ints, head h's open value columns ("value_columns") or key rows ("key_rows"), as
    booleans (H, d_k, d_v)."""
    w = torch.as_tensor(widths, device=device)[:, None, None]
    if of == "value_columns":
        return (torch.arange(d_v, device=device)[None, None, :] < w).expand(-1, d_k, -1)
    return (torch.arange(d_k, device=device)[None, :, None] < w).expand(-1, -1, d_v)


def recurrent_rule(rule, schedule, q, k, v, beta=None, a=None, p=None, eta=None, gamma=None,
                   open_widths=None, widths_of="value_columns"):
    """The definition (math.md section 3), one step at a time, elementwise gate G_t, any E.
    Returns o (B, T, H, d_v). Active elements take the ungated update and locked ones keep their
    exact values (torch.where, as the C++ writes only the active prefix); where the whole memory
    is active (end = D) the gate is skipped: the ungated rule, as E = 1 must be. open_widths
    (T, H) ints (block_axis value_rows / layer) lock the columns (rows) past them too, at every
    step, swla's window included. gla is the linear rule with a (B, T, H, d_k): S_t = S +
    G_t ⊙ ((diag(a_t) - I) S + beta_t k_t v_t^T); kda is the delta rule with it: S_t = S +
    G_t ⊙ ((diag(a_t) - I) S + beta_t k_t (v_t - (diag(a_t) (G_t ⊙ S))^T k_t)^T)."""
    if rule not in RULES:
        raise ValueError(f"rule: unknown rule '{rule}' (expected one of {', '.join(RULES)})")
    B, T, H, d_k = k.shape
    d_v = v.shape[-1]
    if schedule.D != d_k * d_v:
        raise ValueError(f"schedule is for D = {schedule.D} elements but d_k * d_v = {d_k * d_v}")
    per_key = rule in PER_KEY_RULES
    _check_retention(rule, a, (B, T, H, d_k))
    ends, mask = _masks(schedule, T, d_k, d_v, v.device)
    # Per-step slices, taken once: indexing x[:, n] inside the loop would cost a full-size
    # gradient buffer per step in the backward (T^2 work).
    steps = lambda x, *tail: [None] * T if x is None else [y[(...,) + tail] for y in x.unbind(1)]
    qs, ks, vs, ps = steps(q), steps(k), steps(v), steps(p)
    betas, etas = steps(beta, None), steps(eta, None, None)     # (B, H, 1), (B, H, 1, 1)
    # delta's prediction is scaled by a: (B, H, 1); kda's reads diag(a) Ŝ, i.e. Ŝ^T (a ⊙ k): (B, H, d_k)
    a_pred = steps(a) if per_key else steps(a, None)
    # (B, H, 1, 1): a S; or (B, H, d_k, 1) for a per-key retention: diag(a) S, over the value columns
    a_state = steps(a, None) if per_key else steps(a, None, None)
    gammas = steps(gamma, None)                                 # (B, H, c, 1)
    S = v.new_zeros(B, H, d_k, d_v)
    Z = v.new_zeros(B, H, d_k, d_v) if rule == "titans" else None
    c = gamma.shape[-1] if rule == "swla" else 0
    out = []
    for n in range(T):
        full = ends[n] == schedule.D
        G = None if full else mask(ends[n])
        if open_widths is not None:
            W = open_widths_mask(open_widths[n], widths_of, d_k, d_v, v.device)
            G = W if G is None else G & W
        kt, vt, qt, bt = ks[n], vs[n], qs[n], betas[n]              # (B, H, d), beta (B, H, 1)
        decayed = S if a is None else a_state[n] * S                # a S
        if rule in ("linear", "gla"):
            new = decayed + torch.einsum("bhk,bhv->bhkv", bt * kt, vt)
        elif rule in ("delta", "comba", "kda"):
            e = ps[n] if rule == "comba" else kt
            if rule == "kda" and a is not None:
                e = a_pred[n] * kt                                  # (diag(a) Ŝ)^T k = Ŝ^T (a ⊙ k)
            pred = torch.einsum("bhkv,bhk->bhv", _gated(G, S), e)   # (G ⊙ S)^T e
            if rule == "delta" and a is not None:
                pred = a_pred[n] * pred                             # delta scales the prediction by a
            new = decayed + torch.einsum("bhk,bhv->bhkv", bt * kt, vt - pred)
        elif rule == "titans":
            err = torch.einsum("bhkv,bhk->bhv", _gated(G, S), kt) - vt  # the surprise Sg^T k - v
            et = 0.0 if eta is None else etas[n]
            Z = _keep(G, et * Z - torch.einsum("bhk,bhv->bhkv", bt * kt, err), Z)
            new = decayed + Z
        else:  # swla: sum_j gamma_t[j] k_{t-j} v_{t-j}^T, terms before t = 1 left out
            write = 0
            for j in range(min(c, n + 1)):
                write = write + torch.einsum("bhk,bhv->bhkv", gammas[n][:, :, j] * ks[n - j], vs[n - j])
            new = decayed + write
        S = _keep(G, new, S)
        out.append(torch.einsum("bhkv,bhk->bhv", _gated(G, S), qt))
    return torch.stack(out, dim=1)                                  # (B, T, H, d_v)


def _check_retention(rule, a, shape):
    """a's shape: (B, T, H) for a scalar retention, (B, T, H, d_k) for a per-key one."""
    if a is None:
        return
    want = tuple(shape) if rule in PER_KEY_RULES else tuple(shape[:3])
    if tuple(a.shape) != want:
        kind = "a row of d_k per step and head" if rule in PER_KEY_RULES else "one per step and head"
        raise ValueError(f"rule {rule}: the retention a is {kind}, shape {list(want)}, got {list(a.shape)}")


def chunked_applies(rule, schedule, d_v):
    """The chunked form covers linear, delta, gla and kda with row-aligned blocks (math.md section 3 fast path)."""
    return rule in CHUNKED_RULES and schedule.row_aligned(d_v)


def _per_key_chunked(rule, q, k, v, beta, log_a, S, C):
    """gla or kda ungated on one segment, in chunks of C, with a retention per key row. log_a is
    already floored. Within a chunk, Gc (C, R) is the cumulative log-decay; every pairwise factor is
    e^{Gc[t,i] - Gc[s,i]} with s <= t, formed per pair and masked before the exp, so no exponent is
    positive (fla's secondary chunking reaches the same end with sub-chunk products).
      gla (fla's chunk_gla): U = diag(beta) V.
      kda (fla's chunk_kda, the WY form with a per-key decay): U = (I + diag(beta) A_kk)^-1 diag(beta)
        (V - (K ⊙ e^Gc) H), A_kk[t, s] = sum_i k_t[i] k_s[i] e^{Gc[t,i] - Gc[s,i]} for s < t.
      O = (Q ⊙ e^Gc) H + B U,  B[t, s] = sum_i q_t[i] k_s[i] e^{Gc[t,i] - Gc[s,i]} for s <= t;
      H' = diag(e^{Gc_L}) H + (K ⊙ e^{Gc_L - Gc})^T U.
    q, k, log_a (B, H, L, R); v (B, H, L, d_v); beta (B, H, L); S (B, H, R, d_v), the state at the
    segment's start. Returns o (B, H, L, d_v) and the state at the segment's end."""
    B, H, L, R = k.shape
    d_v = v.shape[-1]
    C = min(C, L)
    n = -(-L // C)
    pad = n * C - L
    if pad:  # padded tokens (k = v = q = 0, beta = 0, log a = 0) neither write nor decay
        q, k, v, log_a = (torch.nn.functional.pad(x, (0, 0, 0, pad)) for x in (q, k, v, log_a))
        beta = torch.nn.functional.pad(beta, (0, pad))
    split = lambda x: x.reshape(B, H, n, C, *x.shape[3:])
    q, k, v, beta, g = split(q), split(k), split(v), split(beta), split(log_a).cumsum(3)  # g: (B, H, n, C, R)
    lower = torch.ones(C, C, dtype=torch.bool, device=q.device).tril()
    diff = (g[..., :, None, :] - g[..., None, :, :]).masked_fill(~lower[..., None], float("-inf"))
    decay = diff.exp()                                              # (B, H, n, C, C, R), 0 above the diagonal
    attn = torch.einsum("bhnti,bhnsi,bhntsi->bhnts", q, k, decay)  # B: (B, H, n, C, C), lower with diagonal
    u = v * beta[..., None]
    w = None
    if rule == "kda":
        strict = torch.ones(C, C, dtype=torch.bool, device=q.device).tril(-1)
        A = (beta[..., None] * torch.einsum("bhnti,bhnsi,bhntsi->bhnts", k, k, decay)).masked_fill(~strict, 0)
        eye = torch.eye(C, dtype=q.dtype, device=q.device).expand_as(A)
        Tm = torch.linalg.solve_triangular(eye + A, eye, upper=False, unitriangular=True)  # (I + diag(beta) A_kk)^-1
        u = Tm @ u                                                  # U = u - w H per chunk
        w = Tm @ (k * beta[..., None] * g.exp())
    out = []
    qs, ks, gs, us, attns = q.unbind(2), k.unbind(2), g.unbind(2), u.unbind(2), attn.unbind(2)
    ws = w.unbind(2) if w is not None else None
    for i in range(n):
        qi, ki, gi = qs[i], ks[i], gs[i]
        ui = us[i] if ws is None else us[i] - ws[i] @ S
        out.append((qi * gi.exp()) @ S + attns[i] @ ui)
        g_last = gi[..., -1:, :]                                    # (B, H, 1, R)
        S = S * g_last.transpose(-1, -2).exp() + (ki * (g_last - gi).exp()).transpose(-1, -2) @ ui
    o = torch.stack(out, dim=2).reshape(B, H, n * C, d_v)[:, :, :L]
    return o, S


def _plain_chunked(rule, q, k, v, beta, log_a, S, C):
    """The ungated rule with scalar decay on one segment, in chunks of C (fla's WY/UT form).
    q, k (B, H, L, R); v (B, H, L, d_v); beta, log_a (B, H, L); S (B, H, R, d_v), the state at the
    segment's start. Returns o (B, H, L, d_v) and the state at its end."""
    B, H, L, R = k.shape
    d_v = v.shape[-1]
    C = min(C, L)  # a short segment is one chunk of its own length, not a padded one
    n = -(-L // C)
    pad = n * C - L
    if pad:  # padded tokens (k = v = q = 0, beta = 0, a = 1) neither write nor decay
        q, k, v = (torch.nn.functional.pad(x, (0, 0, 0, pad)) for x in (q, k, v))
        beta, log_a = (torch.nn.functional.pad(x, (0, pad)) for x in (beta, log_a))
    split = lambda x: x.reshape(B, H, n, C, *x.shape[3:])
    q, k, v, beta, g = split(q), split(k), split(v), split(beta), split(log_a).cumsum(-1)  # g: (B, H, n, C)
    lower = torch.ones(C, C, dtype=torch.bool, device=q.device).tril()
    diff = (g[..., :, None] - g[..., None, :]).masked_fill(~lower, float("-inf"))
    decay = diff.exp()                                              # (.., C, C) prod a_{s+1..t}, 0 above
    kb = k * beta[..., None]
    if rule == "delta":
        strict = torch.ones(C, C, dtype=torch.bool, device=q.device).tril(-1)
        A = ((kb @ k.transpose(-1, -2)) * decay).masked_fill(~strict, 0)  # beta_t (k_t . k_s) e^{g_t - g_s}, s < t
        eye = torch.eye(C, dtype=q.dtype, device=q.device).expand_as(A)
        Tm = torch.linalg.solve_triangular(eye + A, eye, upper=False, unitriangular=True)  # (I + A)^-1
        u = Tm @ (v * beta[..., None])
        w = Tm @ (kb * g.exp()[..., None])
    else:
        u, w = v * beta[..., None], None
    out = []
    # Per-chunk slices taken once (as in recurrent_rule: no full-size gradient buffer per chunk).
    qs, ks, gs, us, decays = q.unbind(2), k.unbind(2), g.unbind(2), u.unbind(2), decay.unbind(2)
    ws = w.unbind(2) if w is not None else None
    for i in range(n):
        qi, ki, gi = qs[i], ks[i], gs[i]
        v_new = us[i] if ws is None else us[i] - ws[i] @ S
        attn = (qi @ ki.transpose(-1, -2)) * decays[i]               # (B, H, C, C), lower with diagonal
        out.append((qi * gi.exp()[..., None]) @ S + attn @ v_new)
        g_last = gi[..., -1:]                                       # (B, H, 1)
        S = S * g_last.exp()[..., None] + (ki * (g_last - gi).exp()[..., None]).transpose(-1, -2) @ v_new
    o = torch.stack(out, dim=2).reshape(B, H, n * C, d_v)[:, :, :L]
    return o, S


def chunked_rule(rule, schedule, q, k, v, beta, a=None, chunk=64):
    """The row-aligned form (KERNELS.md): split time where the number of active key rows changes;
    each piece is the plain rule on its active rows, in chunks of `chunk`. Rows past them are
    neither read nor written. Returns o (B, T, H, d_v), as recurrent_rule."""
    B, T, H, d_k = k.shape
    d_v = v.shape[-1]
    if not chunked_applies(rule, schedule, d_v):
        raise ValueError(f"chunked form: needs rule {', '.join(CHUNKED_RULES)} and blocks on row boundaries "
                         f"(rule {rule}, E = {schedule.E}, D = {schedule.D}, d_v = {d_v})")
    if schedule.D != d_k * d_v:
        raise ValueError(f"schedule is for D = {schedule.D} elements but d_k * d_v = {d_k * d_v}")
    per_key = rule in PER_KEY_RULES
    _check_retention(rule, a, (B, T, H, d_k))
    rows = [schedule.active_rows(n + 1, d_v) for n in range(T)]
    # Segments of constant active rows: (rows, length), in order.
    segments = []
    for r in rows:
        if segments and segments[-1][0] == r:
            segments[-1][1] += 1
        else:
            segments.append([r, 1])
    lengths = [length for _, length in segments]
    pieces = lambda x: torch.split(x.transpose(1, 2), lengths, dim=2)  # (B, H, length, .) each
    if a is not None:
        lah = a.clamp(min=RETENTION_FLOOR).log()
    else:
        lah = beta.new_zeros(B, T, H, d_k) if per_key else torch.zeros_like(beta)
    qs, ks, vs, bs, las = pieces(q), pieces(k), pieces(v), pieces(beta), pieces(lah)
    S = v.new_zeros(B, H, d_k, d_v)
    out = []
    for i, (R, _) in enumerate(segments):
        if per_key:  # the retentions of the open rows only
            o, S_R = _per_key_chunked(rule, qs[i][..., :R], ks[i][..., :R], vs[i], bs[i], las[i][..., :R], S[:, :, :R], chunk)
        else:
            o, S_R = _plain_chunked(rule, qs[i][..., :R], ks[i][..., :R], vs[i], bs[i], las[i], S[:, :, :R], chunk)
        S = S_R if R == d_k else torch.cat([S_R, S[:, :, R:]], dim=2)
        out.append(o)
    return torch.cat(out, dim=2).transpose(1, 2)                    # (B, T, H, d_v)
