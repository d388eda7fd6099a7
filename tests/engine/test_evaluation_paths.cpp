// Which fields an evaluation of a trained run may change (engine::is_evaluation_path): every field
// the schedule owns, by the one list a baseline may differ in (eval::schedule_owned_field), so the
// two never disagree again; the fields the weights fix stay refused.
#include <gtest/gtest.h>

#include "core/engine/trained_run.hpp"
#include "core/eval/baseline.hpp"

namespace {

using namespace proteus;

TEST(EvaluationPaths, EveryFieldTheScheduleOwnsAndNothingTheWeightsFix) {
  for (const char* p : {"model.mixer.E", "model.mixer.N", "model.mixer.schedule", "model.mixer.schedule.type",
                        "model.mixer.normalize", "model.mixer.form", "model.mixer.block_axis"}) {
    EXPECT_TRUE(eval::schedule_owned_field(p)) << p;
    EXPECT_TRUE(engine::is_evaluation_path(p)) << p;
  }
  for (const char* p : {"eval.per_position.seq_len", "data.text.path", "data.mqar.pairs", "device", "threads"})
    EXPECT_TRUE(engine::is_evaluation_path(p)) << p;
  for (const char* p : {"model.d_model", "model.mixer.rule", "model.mixer.heads", "model.mixer.output_gate", "model.vocab",
                        "data.seq_len", "seed"})
    EXPECT_FALSE(engine::is_evaluation_path(p)) << p;
}

}  // namespace
