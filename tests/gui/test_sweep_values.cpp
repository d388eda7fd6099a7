// The sweep field's text read into the values a sweep trains (state/sweep_values.hpp), and the
// values shown back as the field's text, without a window.
#include <gtest/gtest.h>

#include "app/gui/state/sweep_values.hpp"

namespace {

using namespace proteus;

TEST(SweepValues, TheFieldsTextIsReadIntoValues) {
  const auto numbers = gui::parse_sweep_values("16, 32,64");
  ASSERT_TRUE(numbers);
  EXPECT_EQ(*numbers, (std::vector<nlohmann::json>{16, 32, 64}));
  const auto words = gui::parse_sweep_values("key_rows, value_rows, 0.5, true");
  ASSERT_TRUE(words);
  EXPECT_EQ(*words, (std::vector<nlohmann::json>{"key_rows", "value_rows", 0.5, true}));
  EXPECT_FALSE(gui::parse_sweep_values(""));
  EXPECT_FALSE(gui::parse_sweep_values("16, , 32")) << "a blank entry";
  EXPECT_EQ(gui::parse_sweep_E("1, 4, 16"), (std::vector<int>{1, 4, 16}));
  EXPECT_FALSE(gui::parse_sweep_E("1, 4.5")) << "E is whole";
  EXPECT_FALSE(gui::parse_sweep_E("1, many"));
  EXPECT_EQ(gui::sweep_values_text(*words), "key_rows, value_rows, 0.5, true");
  EXPECT_EQ(gui::sweep_values_text(std::vector<int>{1, 4, 16}), "1, 4, 16");
}

}  // namespace
