#include "app/gui/state/teaching_playback.hpp"

namespace proteus::gui {

void TeachState::toggle_play(double now_s) {
  playing = !playing;
  if (playing && stepper.t() >= stepper.T()) stepper.go_to(0);
  next_step_s = now_s + 1.0 / steps_per_s;
}

void TeachState::go_to(int t) {
  playing = false;
  stepper.go_to(t);
}

void TeachState::advance(double now_s) {
  if (!playing || now_s < next_step_s) return;
  stepper.step();
  next_step_s = now_s + 1.0 / steps_per_s;
  if (stepper.t() >= stepper.T()) playing = false;
}

}  // namespace proteus::gui
