// The pictures of the teaching panel: the state as a grid of cells (locked hatched, written
// outlined), the active blocks over every token, the recall errors (bars at this step, a strip
// per association over every step) and the inputs at token t. They draw the engine's numbers.
#pragma once
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/state/teaching_stepper.hpp"

namespace proteus::gui {

// rows x cols cells of `cell` pixels (registered for the content check under `id`), coloured blue (negative) to red (positive) by value / scale;
// mask: 0 = locked (hatched); written: 1 = changed at this token (outlined).
void draw_cell_grid(const char* id, int rows, int cols, float cell, const std::vector<double>& values,
                    const std::vector<uint8_t>* mask, const std::vector<uint8_t>* written, double scale);
// The gated memory's active blocks k(t) (memory-op's active_blocks) over tokens 1..T, of E;
// token `current` marked.
void draw_block_strip(const nlohmann::json& active_blocks, int E, int current);
// The height draw_block_strip takes (with the item spacing after it), at the current font.
float block_strip_height(int E);
// The colour of a recall error: green (0) through yellow to red (1: nothing recalled) and darker
// past it.
unsigned recall_colour(double error);
// One bar per association 1..T: the error at this step (recall holds associations 1..t; the
// rest are not written yet and drawn empty), a dashed line at kRecalledBelow.
void draw_recall_bars(const char* id, const std::vector<double>& recall, int T, float width, float height);
// One row per association i, one column per step t (memory-op's recall_error: row t-1 holds
// e_1(t)..e_t(t)), so a row shows how long association i survives; step `current` outlined.
void draw_recall_history(const char* id, const nlohmann::json& recall_error, int T, int current, float cell);
// q_t, k_t, v_t, ... of the memory-op input at token t >= 1.
void draw_token_inputs(const nlohmann::json& input, int t);

}  // namespace proteus::gui
