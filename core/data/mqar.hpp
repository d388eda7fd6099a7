// Multi-query associative recall (math.md section 6, after Zoology's multiquery_ar.py): a synthetic
// token task with its own vocabulary. Leaves out Zoology's extras: several passes over the pairs
// and random tokens in place of the filler (token 0 stays 0 here, as math.md section 6 says).
//
// One sequence of T = seq_len inputs, in one of two layouts:
//   keys   : `pairs` distinct tokens from [1, vocab/2)       (the lower half, 0 excluded)
//   values : `pairs` distinct tokens from [vocab/2, vocab)   (the upper half)
//   "pairs-first" (Zoology's, the standard):
//     context: k1 v1 k2 v2 ... kn vn                          (positions 0 .. 2n-1)
//     queries: each key once, at position 2n + 2 g, with the gaps g distinct in [0, S), S =
//              floor((T - 2n) / 2), drawn one after another without replacement with
//              p(g) ~ (g + 1)^(alpha - 1); the gaps' draw order is the query order, so the keys
//              are asked in random order.
//     Every pair is written in the first 2n positions, where a gated memory has the fewest
//     blocks active.
//   "spread" (pairs and queries interleaved over the whole sequence):
//     the sequence is floor(T / 2) two-token slots; 2n distinct slots are drawn uniformly and
//     paired at random; in each couple the earlier slot holds the pair (k v) and the later one
//     its query (k 0), so every query comes after its own pair. alpha is not used.
//   Every other position is 0.
//   targets: the value of the key at a query position; elsewhere the next input token.
//   mask   : 1 only at query positions (the positions whose next-token target is a value).
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace proteus::data::mqar {

const std::vector<std::string>& layouts();  // "pairs-first", "spread"

struct MqarSample {
  std::vector<int32_t> inputs;   // (T)
  std::vector<int32_t> targets;  // (T)
  std::vector<float> mask;       // (T) 1 on answers, 0 elsewhere
};

// Throws InputError: vocab <= seq_len ("data.mqar.vocab"); pairs < 1 or 4 * pairs > seq_len
// (the context and the query slots do not fit: "data.mqar.pairs"); alpha <= 0 ("data.mqar.alpha");
// an unknown layout ("data.mqar.layout").
void check(int seq_len, int vocab, int pairs, double alpha, const std::string& layout = "pairs-first");

MqarSample generate(std::mt19937_64& rng, int seq_len, int vocab, int pairs, double alpha,
                    const std::string& layout = "pairs-first");

}  // namespace proteus::data::mqar
