#include "core/memory/checkpointed_rule.hpp"

#include <algorithm>
#include <string>

#include "core/memory/rule_family.hpp"

namespace proteus::memory {
namespace {

// A tape for one range of at most `every` steps, states S_{n0}..S_{n1}.
template <class T>
RuleTape<T> range_tape(Rule rule, int64_t every, int64_t D) {
  RuleTape<T> tape;
  tape.S.assign((every + 1) * D, T(0));
  if (rule_has_momentum(rule)) tape.Z.assign((every + 1) * D, T(0));
  return tape;
}

// Seeds `tape` with range c's checkpoint and recomputes its states (o null: states only).
template <class T>
detail::StepRange recompute_range(Rule rule, const Schedule& s, const RuleInputs<T>& in, const StateCheckpoints<T>& ck,
                          int64_t c, T* o, RuleTape<T>& tape) {
  const int64_t D = in.d_k * in.d_v;
  const detail::StepRange r{c * ck.every, std::min(in.T, (c + 1) * ck.every)};
  tape.first = r.n0;
  std::copy(ck.S.begin() + c * D, ck.S.begin() + (c + 1) * D, tape.S.begin());
  if (rule_has_momentum(rule)) std::copy(ck.Z.begin() + c * D, ck.Z.begin() + (c + 1) * D, tape.Z.begin());
  detail::family_forward(rule, s, in, r, o, tape);
  return r;
}

template <class T>
void check_checkpoints(Rule rule, const RuleInputs<T>& in, const StateCheckpoints<T>& ck) {
  const int64_t D = in.d_k * in.d_v, ranges = ck.every < 1 ? -1 : checkpoint_ranges(in.T, ck.every);
  if (ranges < 0 || static_cast<int64_t>(ck.S.size()) != ranges * D ||
      (rule_has_momentum(rule) && ck.Z.size() != ck.S.size()))
    throw InputError("checkpoints", "do not come from a forward of this rule and these shapes");
}

}  // namespace

template <class T>
void checkpointed_rule_forward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in, int64_t every, T* o,
                               T* S_final, StateCheckpoints<T>* checkpoints) {
  detail::check_rule_inputs(rule, schedule, in);
  if (every < 1) throw InputError("every", "checkpoint spacing must be >= 1, got " + std::to_string(every));
  const int64_t D = in.d_k * in.d_v, ranges = checkpoint_ranges(in.T, every);
  StateCheckpoints<T> local;
  StateCheckpoints<T>& ck = checkpoints ? *checkpoints : local;
  ck.every = every;
  ck.S.assign(ranges * D, T(0));
  ck.Z.assign(rule_has_momentum(rule) ? ranges * D : 0, T(0));
  RuleTape<T> tape = range_tape<T>(rule, every, D);
  if (in.S0) std::copy(in.S0, in.S0 + D, tape.S.begin());
  for (int64_t c = 0; c < ranges; ++c) {
    // The state the range starts from is the last one the previous range wrote (or S_0).
    std::copy(tape.S.begin(), tape.S.begin() + D, ck.S.begin() + c * D);
    if (rule_has_momentum(rule)) std::copy(tape.Z.begin(), tape.Z.begin() + D, ck.Z.begin() + c * D);
    const detail::StepRange r = recompute_range(rule, schedule, in, ck, c, o, tape);
    const int64_t last = r.n1 - r.n0;
    std::copy(tape.S.begin() + last * D, tape.S.begin() + (last + 1) * D, tape.S.begin());
    if (rule_has_momentum(rule)) std::copy(tape.Z.begin() + last * D, tape.Z.begin() + (last + 1) * D, tape.Z.begin());
  }
  if (S_final) std::copy(tape.S.begin(), tape.S.begin() + D, S_final);
}

template <class T>
void checkpointed_rule_backward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in,
                                const StateCheckpoints<T>& checkpoints, const T* dO, const T* dS_final,
                                const RuleGrads<T>& grads) {
  detail::check_rule_inputs(rule, schedule, in);
  check_checkpoints(rule, in, checkpoints);
  const int64_t D = in.d_k * in.d_v;
  detail::GradAccum<T>& g = detail::zero_grads(rule, in, dS_final);
  RuleTape<T> tape = range_tape<T>(rule, checkpoints.every, D);
  for (int64_t c = checkpoint_ranges(in.T, checkpoints.every) - 1; c >= 0; --c) {
    const detail::StepRange r = recompute_range(rule, schedule, in, checkpoints, c, static_cast<T*>(nullptr), tape);
    detail::family_backward(rule, schedule, in, r, tape, dO, g);
  }
  detail::copy_grads(rule, in, g, grads);
}

template <class T>
void replay_rule_states(Rule rule, const Schedule& schedule, const RuleInputs<T>& in,
                        const StateCheckpoints<T>& checkpoints, const std::function<void(int64_t, const T*)>& visit) {
  detail::check_rule_inputs(rule, schedule, in);
  const int64_t D = in.d_k * in.d_v;
  const StateCheckpoints<T>& ck = checkpoints;
  check_checkpoints(rule, in, ck);
  RuleTape<T> tape = range_tape<T>(rule, ck.every, D);
  for (int64_t c = 0; c < checkpoint_ranges(in.T, ck.every); ++c) {
    const detail::StepRange r = recompute_range(rule, schedule, in, ck, c, static_cast<T*>(nullptr), tape);
    for (int64_t n = r.n0 + 1; n <= r.n1; ++n) visit(n, detail::state_at(tape.S, tape, n, D));
  }
}

#define PROTEUS_INSTANTIATE(T)                                                                                   \
  template void checkpointed_rule_forward<T>(Rule, const Schedule&, const RuleInputs<T>&, int64_t, T*, T*,         \
                                             StateCheckpoints<T>*);                                              \
  template void checkpointed_rule_backward<T>(Rule, const Schedule&, const RuleInputs<T>&,                         \
                                              const StateCheckpoints<T>&, const T*, const T*, const RuleGrads<T>&); \
  template void replay_rule_states<T>(Rule, const Schedule&, const RuleInputs<T>&, const StateCheckpoints<T>&,     \
                                      const std::function<void(int64_t, const T*)>&);
PROTEUS_INSTANTIATE(float)
PROTEUS_INSTANTIATE(double)
#undef PROTEUS_INSTANTIATE

}  // namespace proteus::memory
