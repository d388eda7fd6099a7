// The Teach stream and its playback: the buttons, the keys and the frame loop all drive it through
// these, with the time passed in (seconds on the window's clock), so it is tested without a window.
#pragma once
#include "app/gui/state/teaching_stepper.hpp"

namespace proteus::gui {

struct TeachState {
  TeachingStepper stepper;
  bool playing = false;
  double next_step_s = 0;  // the time of the next step while playing
  float steps_per_s = 2.0f;

  // Play from the start when at the end; pause when playing.
  void toggle_play(double now_s);
  // Token t (clamped by the stepper); stops playback.
  void go_to(int t);
  // One step when playing and its time has come; playback stops at the last token.
  void advance(double now_s);
};

}  // namespace proteus::gui
