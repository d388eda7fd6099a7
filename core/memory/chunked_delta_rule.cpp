// The chunked row-aligned form of the linear and delta rules (SPEC section 3 fast path).
// Within a chunk starting from state H, with masked keys k~_t = m_t ⊙ k_t, queries q~_t = m_t ⊙ q_t
// and per-key cumulative log-decay g_t[i] = sum_{s<=t in chunk} m_s[i] log a_s:
//   u_t = beta_t (v_t - H^T (e^{g_t} ⊙ k~_t) - sum_{s<t} A_ts u_s)   (delta; linear: u_t = beta_t v_t)
//   o_t = H^T (e^{g_t} ⊙ q~_t) + sum_{s<=t} B_ts u_s
//   H'  = diag(e^{g_C}) H + sum_s diag(e^{g_C - g_s}) k~_s u_s^T
// with A_ts = sum_i k~_s[i] k~_t[i] e^{g_t[i]-g_s[i]} and B_ts = sum_i k~_s[i] q~_t[i] e^{g_t[i]-g_s[i]}.
#include "core/memory/chunked_delta_rule.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace proteus::memory {
namespace {

template <class T>
void check_chunked_inputs(Rule rule, const Schedule& schedule, const RuleInputs<T>& in, int64_t chunk_size) {
  if (rule != Rule::linear && rule != Rule::delta)
    throw InputError("rule", "the chunked form covers linear and delta only, got " + std::string(rule_name(rule)));
  if (chunk_size < 1) throw InputError("chunk_size", "must be >= 1, got " + std::to_string(chunk_size));
  if (in.T < 0) throw InputError("T", "must be >= 0, got " + std::to_string(in.T));
  if (in.d_k < 1 || in.d_v < 1) throw InputError("d_k", "key and value widths must be >= 1");
  if (schedule.D() != in.d_k * in.d_v)
    throw InputError("D", "schedule is for D = " + std::to_string(schedule.D()) + " elements but d_k * d_v = " +
                              std::to_string(in.d_k * in.d_v));
  if (!schedule.row_aligned(in.d_v))
    throw InputError("E", "E = " + std::to_string(schedule.E()) + " puts a block boundary inside a row of d_v = " +
                              std::to_string(in.d_v) + " elements; the chunked form needs row-aligned blocks");
  if (!in.q) throw InputError("q", "required");
  if (!in.k) throw InputError("k", "required");
  if (!in.v) throw InputError("v", "required");
  if (!in.beta) throw InputError("beta", "required by rule " + std::string(rule_name(rule)));
}

// w (d_v) = H^T x over the first R rows of H (d_k, d_v).
template <class T>
void read_rows(const T* H, const T* x, int64_t R, int64_t d_v, T* w) {
  std::fill(w, w + d_v, T(0));
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < d_v; ++j) w[j] += H[i * d_v + j] * x[i];
}

}  // namespace

template <class T>
void chunked_rule_forward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in, int64_t chunk_size, T* o,
                          T* S_final) {
  check_chunked_inputs(rule, schedule, in, chunk_size);
  const int64_t d_k = in.d_k, d_v = in.d_v, D = d_k * d_v;
  // A chunk never needs more room than the sequence has tokens (chunk_size may be T + 5).
  const int64_t C = std::min<int64_t>(chunk_size, std::max<int64_t>(in.T, 1));

  std::vector<T> H(D, T(0));  // (d_k, d_v) the state at the current chunk's start
  if (in.S0) std::copy(in.S0, in.S0 + D, H.begin());

  std::vector<int64_t> rows(C);  // (C)        active key rows of each token in the chunk
  std::vector<T> log_a(C);       // (C)        log retention of each token
  std::vector<T> g(C * d_k);     // (C, d_k)   cumulative log-decay inside the chunk
  std::vector<T> A(C * C);       // (C, C)     strictly lower: sum_i k~_s k~_t e^{g_t - g_s}
  std::vector<T> B(C * C);       // (C, C)     lower with diagonal: sum_i k~_s q~_t e^{g_t - g_s}
  std::vector<T> u(C * d_v);     // (C, d_v)   the chunk's write values
  std::vector<T> x(d_k);         // (d_k)      a key or query decayed from the chunk start
  std::vector<T> w(d_v);         // (d_v)      H^T x

  for (int64_t n0 = 0; n0 < in.T; n0 += C) {
    const int64_t len = std::min(C, in.T - n0);

    // Active rows and cumulative log-decay; rows >= R are neither read nor written below.
    int64_t R = 0;
    for (int64_t c = 0; c < len; ++c) {
      rows[c] = schedule.active_rows(n0 + c + 1, d_v);  // positions are 1-based
      R = std::max(R, rows[c]);
      log_a[c] = in.a ? std::log(in.a[n0 + c]) : T(0);
    }
    for (int64_t c = 0; c < len; ++c)
      for (int64_t i = 0; i < R; ++i) {
        const T prev = c == 0 ? T(0) : g[(c - 1) * d_k + i];
        g[c * d_k + i] = i < rows[c] ? prev + log_a[c] : prev;  // locked rows do not decay
      }

    // Pairwise decayed dot products; a locked row has k~ = q~ = 0, so min(rows) bounds the sum.
    for (int64_t t = 0; t < len; ++t) {
      const T* k_t = in.k + (n0 + t) * d_k;
      const T* q_t = in.q + (n0 + t) * d_k;
      for (int64_t s = 0; s <= t; ++s) {
        const T* k_s = in.k + (n0 + s) * d_k;
        const int64_t shared = std::min(rows[s], rows[t]);
        T a_ts = 0, b_ts = 0;
        for (int64_t i = 0; i < shared; ++i) {
          const T decay = std::exp(g[t * d_k + i] - g[s * d_k + i]);  // gamma_t / gamma_s without dividing
          a_ts += k_s[i] * k_t[i] * decay;
          b_ts += k_s[i] * q_t[i] * decay;
        }
        A[t * C + s] = s < t ? a_ts : T(0);
        B[t * C + s] = b_ts;
      }
    }

    // Write values: forward substitution through the unit lower-triangular system of the delta rule.
    for (int64_t t = 0; t < len; ++t) {
      const T beta = in.beta[n0 + t];
      const T* v_t = in.v + (n0 + t) * d_v;
      T* u_t = &u[t * d_v];
      if (rule == Rule::linear) {
        for (int64_t j = 0; j < d_v; ++j) u_t[j] = beta * v_t[j];
        continue;
      }
      const T* k_t = in.k + (n0 + t) * d_k;
      for (int64_t i = 0; i < rows[t]; ++i) x[i] = std::exp(g[t * d_k + i]) * k_t[i];
      read_rows(H.data(), x.data(), rows[t], d_v, w.data());  // what the decayed start state predicts
      for (int64_t j = 0; j < d_v; ++j) u_t[j] = v_t[j] - w[j];
      for (int64_t s = 0; s < t; ++s) {
        const T a_ts = A[t * C + s];
        for (int64_t j = 0; j < d_v; ++j) u_t[j] -= a_ts * u[s * d_v + j];
      }
      for (int64_t j = 0; j < d_v; ++j) u_t[j] *= beta;
    }

    // Outputs from the chunk's start state plus the intra-chunk writes.
    for (int64_t t = 0; t < len; ++t) {
      const T* q_t = in.q + (n0 + t) * d_k;
      T* o_t = o + (n0 + t) * d_v;
      for (int64_t i = 0; i < rows[t]; ++i) x[i] = std::exp(g[t * d_k + i]) * q_t[i];
      read_rows(H.data(), x.data(), rows[t], d_v, o_t);
      for (int64_t s = 0; s <= t; ++s) {
        const T b_ts = B[t * C + s];
        for (int64_t j = 0; j < d_v; ++j) o_t[j] += b_ts * u[s * d_v + j];
      }
    }

    // One state update per chunk, on the first R rows only.
    const T* g_last = &g[(len - 1) * d_k];
    for (int64_t i = 0; i < R; ++i) {
      T* H_i = &H[i * d_v];
      const T carry = std::exp(g_last[i]);
      for (int64_t j = 0; j < d_v; ++j) H_i[j] *= carry;
      for (int64_t s = 0; s < len; ++s) {
        if (i >= rows[s]) continue;  // k~_s[i] = 0
        const T coef = std::exp(g_last[i] - g[s * d_k + i]) * in.k[(n0 + s) * d_k + i];
        for (int64_t j = 0; j < d_v; ++j) H_i[j] += coef * u[s * d_v + j];
      }
    }
  }

  if (S_final) std::copy(H.begin(), H.end(), S_final);
}

template void chunked_rule_forward<float>(Rule, const Schedule&, const RuleInputs<float>&, int64_t, float*, float*);
template void chunked_rule_forward<double>(Rule, const Schedule&, const RuleInputs<double>&, int64_t, double*,
                                           double*);

}  // namespace proteus::memory
