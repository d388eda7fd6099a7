// Where the blocks run through the memory (model.mixer.block_axis, math.md section 8), as a picture:
// every element of one layer's memory state (key rows down, each head's value columns across, heads
// side by side) coloured by the position at which it opens. key_rows opens horizontal bands in
// every head at once, value_rows vertical bands, layer whole heads one after another. The
// activation map (run_figures.hpp) says how many blocks are open; this says which elements they are.
#pragma once
#include <cstdint>
#include <string>

#include "core/figures/figure.hpp"
#include "core/memory/block_axis.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::figures {

// The position (1-based) at which element (h, i, j) of a layer with H heads of (d_k, d_v) states
// opens under `schedule`'s unlock positions (its E, not its D: the axis decides the flattening).
int64_t element_opens_at(const memory::Schedule& schedule, memory::BlockAxis axis, int64_t H, int64_t d_k,
                         int64_t d_v, int64_t h, int64_t i, int64_t j);

// The map for one layer. Throws InputError naming H, d_k or d_v when one is < 1, and "E" when the
// schedule has more blocks than the flattened state has elements.
// Cells hold the opening position itself (colour scale 0 to N).
Figure state_opening_figure(const memory::Schedule& schedule, memory::BlockAxis axis, int64_t H, int64_t d_k,
                            int64_t d_v, const std::string& run = "");

}  // namespace proteus::figures
