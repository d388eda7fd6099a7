// The pictures of the teaching panel: the state as a grid of cells (locked hatched, written
// outlined), the active blocks over every token, and the inputs at token t.
#pragma once
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/state/teaching_stepper.hpp"

namespace proteus::gui {

// rows x cols cells of `cell` pixels, coloured blue (negative) to red (positive) by value / scale;
// mask: 0 = locked (hatched); written: 1 = changed at this token (outlined).
void draw_cell_grid(const char* id, int rows, int cols, float cell, const std::vector<double>& values,
                    const std::vector<uint8_t>* mask, const std::vector<uint8_t>* written, double scale);
// The example's schedule over tokens 1..T, token `current` marked.
void draw_block_strip(const TeachingExample& e, int current);
// q_t, k_t, v_t, ... of the memory-op input at token t >= 1.
void draw_token_inputs(const nlohmann::json& input, int t);

}  // namespace proteus::gui
