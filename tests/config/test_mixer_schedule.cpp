// The one function that makes a mixer's Schedule from a config (and the one that gives D): its
// D, E and horizon are the config's, the schedule type and its unlock list are honoured, a bad E
// is refused as Schedule::make refuses it, and the block axis changes only the rule's schedule.
#include <gtest/gtest.h>

#include "core/common/input_error.hpp"
#include "core/config/mixer_schedule.hpp"
#include "core/memory/block_axis.hpp"

namespace {

using namespace proteus;
using namespace proteus::config;

TEST(MixerSchedule, StateSizeIsDHeadSquared) {
  MixerConfig m;
  m.d_head = 32;
  EXPECT_EQ(mixer_state_size(m), 1024);
  m.d_head = 3;
  EXPECT_EQ(mixer_state_size(m), 9);
}

TEST(MixerSchedule, MadeFromTheConfigAtTheRunsHorizon) {
  RunConfig c;
  c.model.mixer.d_head = 8;
  c.model.mixer.E = 4;
  c.data.seq_len = 64;
  const auto s = schedule_from_config(c);
  EXPECT_EQ(s.D(), 64);
  EXPECT_EQ(s.E(), 4);
  EXPECT_EQ(s.N(), 64);  // N = 0: data.seq_len
  EXPECT_EQ(s.unlock(), memory::Schedule::uniform(64, 4, 64).unlock());
  c.model.mixer.N = 32;
  EXPECT_EQ(schedule_from_config(c).N(), 32);
  EXPECT_EQ(schedule_from_config(c.model.mixer, 100).N(), 100);

  c.model.mixer.schedule.type = memory::ScheduleType::custom;
  c.model.mixer.schedule.unlock = {1, 2, 3, 30};
  EXPECT_EQ(schedule_from_config(c).unlock(), (std::vector<int64_t>{1, 2, 3, 30}));
}

TEST(MixerSchedule, ABadERefusedAsScheduleMakeRefusesIt) {
  MixerConfig m;
  m.d_head = 2;
  m.E = 5;  // > D = 4
  EXPECT_THROW(schedule_from_config(m, 16), InputError);
}

TEST(MixerSchedule, ParamScheduleOverTheHiddenUnitsAndTrainingSteps) {
  RunConfig c;
  c.model.d_hidden = 96;
  c.model.param_schedule.E = 3;
  c.train.steps = 30;
  const auto s = param_schedule_from_config(c);
  EXPECT_EQ(s.D(), 96);
  EXPECT_EQ(s.E(), 3);
  EXPECT_EQ(s.N(), 30);
}

TEST(MixerSchedule, TheBlockAxisChangesOnlyTheRulesSchedule) {
  MixerConfig m;
  m.d_head = 4;
  m.E = 4;
  const auto s = schedule_from_config(m, 8);
  EXPECT_EQ(memory::rule_schedule(memory::BlockAxis::key_rows, s).unlock(), s.unlock());
  for (auto axis : {memory::BlockAxis::value_rows, memory::BlockAxis::layer}) {
    const auto r = memory::rule_schedule(axis, s);
    EXPECT_EQ(r.E(), 1);
    EXPECT_EQ(r.D(), s.D());
    EXPECT_EQ(r.N(), s.N());
  }
}

}  // namespace
