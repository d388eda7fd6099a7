// Blocks and schedules against math.md section 2: the formula, N < E, t > N, the remainder block,
// the named schedules' unlock positions, and refused custom lists.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/memory/schedule.hpp"
#include "tests/support/input_error_field.hpp"

namespace {

using proteus::InputError;
using proteus::memory::Schedule;
using proteus::memory::ScheduleSpec;
using proteus::memory::ScheduleType;

// math.md section 2's uniform formula, written out independently of the unlock-list implementation.
int64_t uniform_k(int64_t t, int64_t E, int64_t N) {
  if (t > N) return E;
  const int64_t delta = std::max<int64_t>(1, N / E);
  return std::min<int64_t>(E, 1 + (t - 1) / delta);
}

TEST(Schedule, UniformMatchesTheFormula) {
  for (int64_t E : {1, 2, 3, 4, 7, 16, 32})
    for (int64_t N : {1, 5, 16, 17, 100, 8192}) {
      if (E > 64) continue;
      const auto s = Schedule::uniform(64, E, N);
      for (int64_t t = 1; t <= N + 10; ++t)
        ASSERT_EQ(s.active_blocks(t), uniform_k(t, E, N)) << "E=" << E << " N=" << N << " t=" << t;
    }
}

TEST(Schedule, UniformPaperExample) {
  // E = 4 over N = 16: Delta = 4, blocks unlock at 1, 5, 9, 13.
  const auto s = Schedule::uniform(16, 4, 16);
  EXPECT_EQ(s.unlock(), (std::vector<int64_t>{1, 5, 9, 13}));
  const std::vector<int64_t> want = {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4};
  for (int64_t t = 1; t <= 17; ++t) EXPECT_EQ(s.active_blocks(t), want[t - 1]) << "t=" << t;
  EXPECT_EQ(s.active_elements(1), 4);
  EXPECT_EQ(s.active_elements(13), 16);
}

TEST(Schedule, HorizonShorterThanE) {
  // N < E: Delta = 1, so block j unlocks at t = j, and past N everything is active at once.
  const auto s = Schedule::uniform(32, 8, 3);
  EXPECT_EQ(s.active_blocks(1), 1);
  EXPECT_EQ(s.active_blocks(2), 2);
  EXPECT_EQ(s.active_blocks(3), 3);
  EXPECT_EQ(s.active_blocks(4), 8);
  EXPECT_EQ(s.active_elements(4), 32);
}

TEST(Schedule, PastTheHorizonEverythingIsActive) {
  for (ScheduleType type : {ScheduleType::uniform, ScheduleType::geometric, ScheduleType::power}) {
    ScheduleSpec spec;
    spec.type = type;
    spec.power = 3.0;
    const auto s = Schedule::make(spec, 100, 10, 50);
    for (int64_t t = 51; t < 200; t += 7) EXPECT_EQ(s.active_elements(t), 100) << proteus::memory::schedule_type_name(type);
  }
  const auto late = Schedule::custom(10, 2, 20, {1, 1000});  // an unlock past N never waits
  EXPECT_EQ(late.active_blocks(20), 1);
  EXPECT_EQ(late.active_blocks(21), 2);
}

TEST(Schedule, RemainderBlock) {
  // D = 10, E = 3: d = 3, blocks [0,3), [3,6), [6,10).
  const auto s = Schedule::uniform(10, 3, 9);
  EXPECT_EQ(s.block_size(), 3);
  EXPECT_EQ(s.block_begin(2), 6);
  EXPECT_EQ(s.block_end(1), 6);
  EXPECT_EQ(s.block_end(2), 10);
  EXPECT_EQ(s.end(1), 3);
  EXPECT_EQ(s.end(2), 6);
  EXPECT_EQ(s.end(3), 10);
  const auto g = s.mask(4);  // two blocks active
  EXPECT_EQ(std::count(g.begin(), g.end(), 1), 6);
  EXPECT_EQ(g[5], 1);
  EXPECT_EQ(g[6], 0);
  // E = D: one element per block.
  const auto fine = Schedule::uniform(5, 5, 5);
  for (int64_t t = 1; t <= 5; ++t) EXPECT_EQ(fine.active_elements(t), t);
}

TEST(Schedule, EqualsOneIsAlwaysFull) {
  const auto s = Schedule::uniform(12, 1, 4);
  for (int64_t t = 1; t < 10; ++t) EXPECT_EQ(s.active_elements(t), 12);
}

TEST(Schedule, GeometricUnlocksEvenlyInLogPosition) {
  // N = 4096 = 2^12, E = 4: u_j = 4096^((j-1)/4) = 1, 8, 64, 512.
  const auto s = Schedule::geometric(64, 4, 4096);
  EXPECT_EQ(s.unlock(), (std::vector<int64_t>{1, 8, 64, 512}));
  EXPECT_EQ(s.active_blocks(7), 1);
  EXPECT_EQ(s.active_blocks(8), 2);
  EXPECT_EQ(s.active_blocks(600), 4);
}

TEST(Schedule, PowerOneIsUniformAndLargerPowersWaitLonger) {
  const auto p1 = Schedule::power(64, 8, 64, 1.0);
  EXPECT_EQ(p1.unlock(), Schedule::uniform(64, 8, 64).unlock());
  const auto p2 = Schedule::power(64, 4, 64, 2.0);  // 1 + 64 (j/4)^2 = 1, 5, 17, 37
  EXPECT_EQ(p2.unlock(), (std::vector<int64_t>{1, 5, 17, 37}));
  EXPECT_THROW(Schedule::power(64, 4, 64, 0.0), InputError);
}

TEST(Schedule, NamedSchedulesAreMonotoneAndStartAtOne) {
  for (ScheduleType type : {ScheduleType::uniform, ScheduleType::geometric, ScheduleType::power})
    for (int64_t E : {1, 2, 5, 16, 64})
      for (int64_t N : {1, 3, 64, 1000}) {
        ScheduleSpec spec;
        spec.type = type;
        spec.power = 0.5;
        const auto s = Schedule::make(spec, 64, E, N);
        ASSERT_EQ(s.unlock().front(), 1);
        ASSERT_TRUE(std::is_sorted(s.unlock().begin(), s.unlock().end()));
        for (int64_t t = 1; t < N + 3; ++t) ASSERT_LE(s.active_blocks(t), s.active_blocks(t + 1));
      }
}

TEST(Schedule, CustomList) {
  const auto s = Schedule::custom(16, 4, 16, {1, 2, 2, 10});
  EXPECT_EQ(s.active_blocks(1), 1);
  EXPECT_EQ(s.active_blocks(2), 3);  // two blocks unlock together
  EXPECT_EQ(s.active_blocks(9), 3);
  EXPECT_EQ(s.active_blocks(10), 4);
}

using proteus::test_support::field_of;

TEST(Schedule, RefusesBadInput) {
  EXPECT_EQ(field_of([] { Schedule::custom(16, 4, 16, {2, 5, 9, 13}); }), "unlock[0]");
  EXPECT_EQ(field_of([] { Schedule::custom(16, 4, 16, {1, 9, 5, 13}); }), "unlock[2]");
  EXPECT_EQ(field_of([] { Schedule::custom(16, 4, 16, {1, 5, 9}); }), "unlock");
  EXPECT_EQ(field_of([] { Schedule::uniform(16, 0, 16); }), "E");
  EXPECT_EQ(field_of([] { Schedule::uniform(16, 17, 16); }), "E");
  EXPECT_EQ(field_of([] { Schedule::uniform(16, 4, 0); }), "N");
  ScheduleSpec bad;
  bad.type = static_cast<ScheduleType>(99);  // a value outside the enum's table (names are the readers' to refuse)
  EXPECT_EQ(field_of([&] { Schedule::make(bad, 16, 4, 16); }), "type");
  try {
    Schedule::custom(16, 4, 16, {1, 9, 5, 13});
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.under("schedule").what()).rfind("schedule.unlock[2]: ", 0), 0u) << e.what();
  }
}

TEST(Schedule, RowAlignment) {
  // d_k = 8, d_v = 4: E dividing d_k gives whole rows; E = 3 cuts rows.
  EXPECT_TRUE(Schedule::uniform(32, 4, 8).row_aligned(4));
  EXPECT_TRUE(Schedule::uniform(32, 8, 8).row_aligned(4));
  EXPECT_TRUE(Schedule::uniform(32, 1, 8).row_aligned(4));
  EXPECT_FALSE(Schedule::uniform(32, 3, 8).row_aligned(4));
  EXPECT_FALSE(Schedule::uniform(32, 16, 8).row_aligned(4));
  const auto s = Schedule::uniform(32, 4, 8);
  EXPECT_EQ(s.active_rows(1, 4), 2);
  EXPECT_EQ(s.active_rows(3, 4), 4);
  EXPECT_EQ(s.active_rows(9, 4), 8);
}

}  // namespace
