// Editing a custom schedule's unlock positions by hand (the window's handles under the
// activation map): re-spreading them over another E, the limits of a drag, and pulling them in
// under a shorter horizon. Each edit keeps the list a valid custom schedule (Schedule::custom):
// u_1 = 1, non-decreasing, within [1, N].
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace proteus::memory {

// The unlock positions u re-spread over E blocks with the same shape: the fraction of blocks
// unlocked, k(t) / E, follows the same curve over t in [1, N]. Empty u gives empty.
std::vector<int64_t> respread_unlocks(const std::vector<int64_t>& u, int64_t E, int64_t N);

// Where unlock point j (j >= 1) may be dragged: from its left neighbour to its right neighbour,
// the last one to the horizon N. {1, 1} for j = 0 (u_1 = 1 is fixed) or out of range.
std::pair<int64_t, int64_t> unlock_drag_range(const std::vector<int64_t>& u, int j, int64_t N);

// Moves u_j to `position` clamped to unlock_drag_range; returns where it landed (1 for j = 0,
// -1 when j is out of range, which changes nothing).
int64_t drag_unlock(std::vector<int64_t>& u, int j, int64_t position, int64_t N);

// Points past the horizon N are pulled back to N.
void clamp_unlocks(std::vector<int64_t>& u, int64_t N);

}  // namespace proteus::memory
