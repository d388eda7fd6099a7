// proteus-lab: the desktop app. GLFW + OpenGL 3 + Dear ImGui around LabApp; the engine trains on
// its own threads and the loop only reads published snapshots. With script options (see --help)
// it runs unattended: CI drives it under Xvfb, and the README's screenshots come from it.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <stb/stb_image_write.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/gui/state/frame_stats.hpp"
#include "core/common/atomic_file.hpp"
#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/scripted_run.hpp"
#include "core/figures/layout.hpp"

namespace {

// The folder holding experiments/ and assets/: the working directory when it has them, else the
// source tree this binary was built from.
std::filesystem::path source_root() {
  if (std::filesystem::is_directory("experiments") && std::filesystem::is_directory("assets")) return ".";
  return PROTEUS_SOURCE_DIR;
}

bool save_screenshot(const std::string& path, int w, int h) {
  std::vector<unsigned char> pixels(size_t(w) * h * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  std::vector<unsigned char> flipped(pixels.size());  // OpenGL's rows run bottom-up
  for (int y = 0; y < h; ++y)
    std::copy_n(pixels.data() + size_t(h - 1 - y) * w * 4, size_t(w) * 4, flipped.data() + size_t(y) * w * 4);
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  // Encoded in memory, then written by the one writer (a user-named output: see atomic_file.hpp).
  std::string png;
  const auto append = [](void* out, void* data, int size) { static_cast<std::string*>(out)->append(static_cast<char*>(data), size); };
  if (stbi_write_png_to_func(append, &png, w, h, 4, flipped.data(), w * 4) == 0) return false;
  try {
    proteus::common::write_user_file(path, png);
  } catch (const std::exception& e) {
    std::cerr << "proteus-lab: " << e.what() << '\n';
    return false;
  }
  return true;
}

void glfw_error(int code, const char* what) { std::fprintf(stderr, "proteus-lab: GLFW error %d: %s\n", code, what); }

// When the user last did something (mouse, keys, resize): the loop draws at full rate for a
// moment after input and otherwise sleeps in glfwWaitEventsTimeout, so an unattended window does
// not take a core from training. ImGui's GLFW backend chains to these callbacks.
double g_last_input_s = 0;
void mark_input() { g_last_input_s = glfwGetTime(); }
void install_input_marks(GLFWwindow* w) {
  glfwSetCursorPosCallback(w, [](GLFWwindow*, double, double) { mark_input(); });
  glfwSetMouseButtonCallback(w, [](GLFWwindow*, int, int, int) { mark_input(); });
  glfwSetScrollCallback(w, [](GLFWwindow*, double, double) { mark_input(); });
  glfwSetKeyCallback(w, [](GLFWwindow*, int, int, int, int) { mark_input(); });
  glfwSetCharCallback(w, [](GLFWwindow*, unsigned int) { mark_input(); });
  glfwSetWindowSizeCallback(w, [](GLFWwindow*, int, int) { mark_input(); });
  glfwSetWindowFocusCallback(w, [](GLFWwindow*, int) { mark_input(); });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"Proteus Lab: edit E and schedules, train in the background, watch live plots, export them"};
  proteus::gui::ScriptOptions script;
  std::string runs_dir = "runs";
  int width = 1600, height = 1000;
  cli.add_option("--preset", script.preset, "experiment file to open (e.g. experiments/quickstart-cpu.json)");
  cli.add_option("--runs-dir", runs_dir, "where runs are written and browsed (default: runs)");
  cli.add_option("--set", script.sets, "override a config field: PATH=VALUE (e.g. train.steps=20); repeatable");
  cli.add_option("--tab", script.tab, "tab to show: activation, training, runs, explore, teach")
      ->check(CLI::IsMember({"activation", "training", "runs", "explore", "teach"}));
  cli.add_option("--teach-step", script.teach_step, "teaching panel: show this token");
  cli.add_flag("--overlay", script.overlay, "runs browser: overlay every run in the runs folder");
  cli.add_flag("--train", script.train, "start training the experiment at once");
  cli.add_option("--explore", script.explore, "open this run in Explore (\"trained\": the run --train made)");
  cli.add_option("--explore-set", script.explore_sets,
                 "edit the explored schedule: PATH=VALUE (model.mixer.N=1024, or N=x4 for 4 x the training length)");
  cli.add_option("--explore-sequences", script.explore_sequences, "Explore: held-out sequences (0 = the run's)");
  cli.add_option("--explore-positions", script.explore_positions, "Explore: positions per sequence (0 = the run's)");
  cli.add_option("--explore-sweep", script.explore_sweep, "Explore: then an inference sweep over N or E")
      ->check(CLI::IsMember({"N", "E"}));
  cli.add_option("--export", script.export_dir, "export the figures (PNG, SVG, PDF, CSV) here once training is done");
  cli.add_option("--screenshot", script.screenshot, "save a PNG of the window once the steps above are done");
  cli.add_option("--frame-stats", script.frame_stats, "write frame times (p50, p99 while training and idle) as JSON at exit");
  cli.add_flag("--quit", script.quit, "exit when the scripted steps are done");
  cli.add_option("--timeout", script.timeout_s, "scripted run: fail (exit 1) after this many seconds");
  bool continuous = false;
  cli.add_flag("--continuous", continuous,
               "draw at full rate all the time (default: full rate while you interact, 10 frames/s otherwise)");
  cli.add_option("--width", width, "window width in pixels")->check(CLI::Range(640, 7680));
  cli.add_option("--height", height, "window height in pixels")->check(CLI::Range(400, 4320));
  CLI11_PARSE(cli, argc, argv);

  glfwSetErrorCallback(glfw_error);
  if (!glfwInit()) {
    std::cerr << "proteus-lab: cannot open a window (no display?). Without one, use the proteus command: "
                 "proteus train experiments/quickstart-cpu.json\n";
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  GLFWwindow* window = glfwCreateWindow(width, height, "Proteus Lab", nullptr, nullptr);
  if (!window) {
    std::cerr << "proteus-lab: cannot create an OpenGL 3.3 window\n";
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);  // vsync: the loop sleeps in the swap instead of spinning beside the trainer

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is fixed; nothing to remember between sessions
  const char* font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  const char* bold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
  if (std::filesystem::exists(font)) {
    io.Fonts->AddFontFromFileTTF(font, 15.0f);  // the first font is the UI's
    // Figure titles, at the size the figures' scale gives them (plot_view.hpp).
    const float title_px = 15.0f * float(proteus::figures::kTitleSize / proteus::figures::kLabelSize);
    if (std::filesystem::exists(bold)) io.Fonts->AddFontFromFileTTF(bold, title_px);
  }
  ImGui::StyleColorsLight();
  ImGui::GetStyle().FrameRounding = 3;
  install_input_marks(window);  // before the backend, which chains to them
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");

  int exit_code = 0;
  {
    proteus::gui::LabApp app(source_root(), runs_dir);
    if (script.preset.empty() && !script.any())
      app.load_experiment(app.source_root / "experiments" / "quickstart-cpu.json");
    proteus::gui::ScriptedRun run(script);
    // A scripted run's screenshots should not show a hover read-out where Xvfb's pointer rests.
    if (script.any()) glfwSetCursorPos(window, width - 2, height - 2);
    proteus::gui::FrameStats stats;
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    auto last = t0;
    bool first = true;
    double ui_ms = 0;
    while (!glfwWindowShouldClose(window)) {
      // Full rate while the user acts (or drags, or the teaching panel plays), else a sleep that
      // any input ends at once; training snapshots still show within a tenth of a second.
      const bool hot = continuous || first || glfwGetTime() - g_last_input_s < 0.5 || ImGui::IsAnyItemActive() ||
                       app.teaching_playing;
      if (hot) glfwPollEvents();
      else glfwWaitEventsTimeout(0.1);
      const auto frame_start = Clock::now();
      const double now_s = std::chrono::duration<double>(frame_start - t0).count();
      if (!run.step(app, now_s)) {
        exit_code = run.exit_code();
        break;
      }
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      const auto ui_start = Clock::now();
      ImGui::NewFrame();
      app.frame();
      ImGui::Render();
      ui_ms = std::chrono::duration<double, std::milli>(Clock::now() - ui_start).count();
      int w, h;
      glfwGetFramebufferSize(window, &w, &h);
      glViewport(0, 0, w, h);
      glClearColor(0.94f, 0.94f, 0.94f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      if (const auto shot = run.screenshot_due(); !shot.empty()) {
        const bool ok = save_screenshot(shot, w, h);
        if (ok) std::cout << "proteus-lab: screenshot " << shot << '\n';
        run.screenshot_taken(ok);
      }
      glfwSwapBuffers(window);
      const auto frame_end = Clock::now();
      // Xvfb has no vsync: cap at 60 frames per second.
      const auto min_frame = std::chrono::microseconds(16667);
      if (frame_end - frame_start < min_frame) std::this_thread::sleep_for(min_frame - (frame_end - frame_start));
      if (!first)
        stats.add(std::chrono::duration<double, std::milli>(frame_start - last).count(),
                  std::chrono::duration<double, std::milli>(frame_end - frame_start).count(), ui_ms,
                  app.training.active() || (app.explore.is_open() && !app.explore.settled()));
      first = false;
      last = frame_start;
    }
    if (!script.frame_stats.empty()) {
      try {
        proteus::common::write_user_file(script.frame_stats, stats.summary().dump(2) + "\n");
      } catch (const std::exception& e) {
        std::cerr << "proteus-lab: cannot write the frame stats: " << e.what() << '\n';
      }
    }
    app.training.stop();  // the run is checkpointed on the way out: nothing is lost
  }

  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}
