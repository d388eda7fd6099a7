// proteus-lab: the desktop app. GLFW + OpenGL 3 + Dear ImGui around LabApp; the engine trains on
// its own threads and the loop only reads published snapshots. With script options (see --help)
// it runs unattended: CI drives it under Xvfb, and the README's screenshots come from it.
// The UI scale comes from --ui-scale, else the settings file, else the monitor's content scale;
// the scale, the window's size and the tab are saved in the user's config folder at exit.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <stb/stb_image_write.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/gui/state/frame_stats.hpp"
#include "app/gui/state/tabs.hpp"
#include "app/gui/state/ui_settings.hpp"
#include "app/gui/view/lab_app.hpp"
#include "app/gui/script/scripted_run.hpp"
#include "app/gui/view/content_check.hpp"
#include "app/gui/view/text_check.hpp"
#include "app/gui/view/ui_scale.hpp"
#include "app/cli/version.hpp"
#include "core/common/data_root.hpp"
#include "core/common/json_fields.hpp"
#include "app/gui/view/ui_settings_handler.hpp"
#include "core/common/atomic_file.hpp"

namespace {

using proteus::gui::LabApp;

struct Options {
  proteus::gui::ScriptOptions script;
  std::string runs_dir = "runs";
  int width = 1600, height = 1000;
  bool size_given = false;      // --width or --height: beats the remembered size
  std::optional<float> ui_scale;  // --ui-scale
  bool continuous = false;
};

// The folder holding experiments/ and assets/: the working directory when it has them, else the
// data root (the installed share/proteus-lab, or the source tree this binary was built from).
std::filesystem::path source_root() {
  if (std::filesystem::is_directory("experiments") && std::filesystem::is_directory("assets")) return ".";
  return proteus::common::data_root();
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

// The command line into `o`; an exit status when the program should stop here (--help, bad input).
std::optional<int> parse_options(int argc, char** argv, Options& o) {
  CLI::App cli{"Proteus Lab: edit E and schedules, train in the background, watch live plots, export them"};
  auto& script = o.script;
  cli.set_version_flag("--version", proteus::cli::version_line("proteus-lab"), "Print the version (and git commit) and exit");
  // The guide's page where this program finds it: the installed docs folder, or the checkout's docs/.
  cli.footer("The full guide: " + (proteus::common::docs_root() / "app.md").string());
  cli.add_option("--preset", script.preset,
                 "experiment file to open (e.g. experiments/quickstart-cpu.json; a name not in this folder is "
                 "looked up as proteus train does)");
  cli.add_option("--save", script.save,
                 "save the opened experiment as Save does (a relative name goes to the user's experiments "
                 "folder, $XDG_DATA_HOME/proteus-lab/experiments) and say where");
  cli.add_option("--runs-dir", o.runs_dir, "where runs are written and browsed (default: runs)");
  cli.add_option("--set", script.sets, "override a config field: PATH=VALUE (e.g. train.steps=20); repeatable");
  cli.add_option("--tab", script.tab, "tab to show: " + proteus::common::join(proteus::gui::tab_names()))
      ->check(CLI::IsMember(proteus::gui::tab_names()));
  cli.add_option("--teach-step", script.teach_step, "teaching panel: show this token");
  cli.add_flag("--overlay", script.overlay, "runs browser: overlay every run in the runs folder");
  cli.add_option("--runs-filter", script.runs_filter, "runs browser: the filter box's text (rule=delta E=16 name-part)");
  cli.add_option("--runs-sort", script.runs_sort,
                 "runs browser: sort by this column (run, state, step, bpb, effect, model or a dotted config path; "
                 "a trailing - sorts descending)");
  cli.add_flag("--runs-ungrouped", script.runs_ungrouped, "runs browser: every run as its own row (no seed-group rows)");
  cli.add_option("--frames", script.frames, "with --quit: draw this many more frames once the steps are done");
  cli.add_flag("--train", script.train, "start training the experiment at once");
  cli.add_option("--explore", script.explore, "open this run in Explore (\"trained\": the run --train made)");
  cli.add_option("--explore-set", script.explore_sets,
                 "edit the explored schedule: PATH=VALUE (model.mixer.N=1024, or N=x4 for 4 x the training length)");
  cli.add_option("--explore-sequences", script.explore_sequences, "Explore: held-out sequences (0 = the run's)");
  cli.add_option("--explore-positions", script.explore_positions, "Explore: positions per sequence (0 = the run's)");
  cli.add_option("--explore-sweep", script.explore_sweep, "Explore: then an inference sweep over N or E")
      ->check(CLI::IsMember({"N", "E"}));
  cli.add_option("--export", script.export_dir, "export the figures (PNG, SVG, PDF, CSV) here once training is done");
  cli.add_option("--present", script.present,
                 "then the presentation view (F11): \"teach\", or a figure of the tab (per_position, loss, ...)");
  cli.add_flag("--help-overlay", script.help, "then open the keyboard shortcuts overlay (F1)");
  cli.add_option("--screenshot", script.screenshot, "save a PNG of the window once the steps above are done");
  cli.add_flag("--check-text", script.check_text, "fail (exit 1) when the screenshot's frame has text that is cut off");
  cli.add_flag("--check-content", script.check_content,
               "fail (exit 1) when the screenshot's frame has a grid, plot or colour bar cut by a window's edge "
               "(one that cannot scroll to it) or squeezed below a readable size (cells 12 px, plots 120 px)");
  cli.add_option("--frame-stats", script.frame_stats, "write frame times (p50, p99 while training, while the runs folder is scanned, and idle) as JSON at exit");
  cli.add_flag("--quit", script.quit, "exit when the scripted steps are done");
  cli.add_option("--timeout", script.timeout_s, "scripted run: fail (exit 1) after this many seconds");
  cli.add_flag("--continuous", o.continuous,
               "draw at full rate all the time (default: full rate while you interact, 10 frames/s otherwise)");
  std::string ui_scale;
  cli.add_option("--ui-scale", ui_scale,
                 "size of text and controls: 1 = normal, 2 = twice as large, in [0.5, 4] (default: the remembered "
                 "scale, else the monitor's); remembered for the next start");
  auto* w = cli.add_option("--width", o.width, "window width in pixels (default: the remembered size, else 1600)")
                ->check(CLI::Range(640, 7680));
  auto* h = cli.add_option("--height", o.height, "window height in pixels (default: the remembered size, else 1000)")
                ->check(CLI::Range(400, 4320));
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  o.size_given = w->count() > 0 || h->count() > 0;
  if (!ui_scale.empty()) {
    try {
      o.ui_scale = proteus::gui::parse_ui_scale(ui_scale);
    } catch (const std::exception& e) {
      std::cerr << "proteus-lab: " << e.what() << '\n';
      return 2;
    }
  }
  return std::nullopt;
}

GLFWwindow* open_window(const Options& o, const proteus::gui::UiSettings& saved) {
  glfwSetErrorCallback(glfw_error);
  if (!glfwInit()) {
    std::cerr << "proteus-lab: cannot open a window (no display?). Without one, use the proteus command: "
                 "proteus train experiments/quickstart-cpu.json\n";
    return nullptr;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  const bool remembered = !o.size_given && saved.window_width > 0 && saved.window_height > 0;
  GLFWwindow* window = glfwCreateWindow(remembered ? saved.window_width : o.width,
                                        remembered ? saved.window_height : o.height, "Proteus Lab", nullptr, nullptr);
  if (!window) {
    std::cerr << "proteus-lab: cannot create an OpenGL 3.3 window\n";
    glfwTerminate();
    return nullptr;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);  // vsync: the loop sleeps in the swap instead of spinning beside the trainer
  return window;
}

// The fonts and style at `scale`, and the font texture uploaded again (between frames only).
void apply_scale(LabApp& app, float scale, bool texture_exists) {
  if (texture_exists) ImGui_ImplOpenGL3_DestroyFontsTexture();
  app.fonts = proteus::gui::apply_ui_scale(scale);
  app.display.ui_scale = scale;
  if (texture_exists) ImGui_ImplOpenGL3_CreateFontsTexture();
}

// What is saved at exit (and on the way, when it changes): ImGui writes it with its own layout.
void update_settings(proteus::gui::UiSettings& s, const LabApp& app, GLFWwindow* window) {
  proteus::gui::UiSettings now = s;
  now.ui_scale = app.display.ui_scale;
  glfwGetWindowSize(window, &now.window_width, &now.window_height);
  now.tab = proteus::gui::tab_name(app.current_tab());
  if (now == s) return;
  s = now;
  proteus::gui::mark_ui_settings_changed();
}

// One frame: the script's step, the UI, the screenshot and its text check. False when the loop
// should end (the script is done or failed).
bool draw_frame(GLFWwindow* window, LabApp& app, proteus::gui::ScriptedRun& run, double now_s, double& ui_ms) {
  using Clock = std::chrono::steady_clock;
  if (!run.step(app, now_s)) return false;
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
    if (ok) std::cout << "proteus-lab: screenshot " << shot << " (UI scale " << app.display.ui_scale << ")\n";
    if (run.text_check_due()) {
      std::vector<std::string> cut;
      for (const auto& c : proteus::gui::find_cut_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts))
        cut.push_back(proteus::gui::describe_cut_text(c));
      run.text_checked(cut);
    }
    if (run.content_check_due()) run.content_checked(proteus::gui::find_content_problems(proteus::gui::drawn_content()));
    run.screenshot_taken(ok);
  }
  glfwSwapBuffers(window);
  return true;
}

// The render loop until the window closes or the script ends; the script's exit status.
int run_loop(GLFWwindow* window, LabApp& app, const Options& o, proteus::gui::UiSettings& settings,
             const std::string& ini) {
  proteus::gui::ScriptedRun run(o.script);
  // A scripted run's screenshots should not show a hover read-out where Xvfb's pointer rests.
  if (o.script.any()) {
    int w, h;
    glfwGetWindowSize(window, &w, &h);
    glfwSetCursorPos(window, w - 2, h - 2);
  }
  proteus::gui::FrameStats stats;
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto last = t0;
  bool first = true;
  double ui_ms = 0;
  while (!glfwWindowShouldClose(window)) {
    // Full rate while the user acts (or drags, or the teaching panel plays), else a sleep that
    // any input ends at once; training snapshots still show within a tenth of a second.
    const bool hot = o.continuous || first || glfwGetTime() - g_last_input_s < 0.5 || ImGui::IsAnyItemActive() ||
                     app.teach.playing;
    if (hot) glfwPollEvents();
    else glfwWaitEventsTimeout(0.1);
    if (const auto s = app.take_ui_scale_request()) apply_scale(app, *s, true);  // between frames
    const auto frame_start = Clock::now();
    if (!draw_frame(window, app, run, std::chrono::duration<double>(frame_start - t0).count(), ui_ms)) break;
    if (!ini.empty()) proteus::gui::save_settings_file(ini, false);  // when ImGui asks, after a change
    update_settings(settings, app, window);
    const auto frame_end = Clock::now();
    // Xvfb has no vsync: cap at 60 frames per second.
    const auto min_frame = std::chrono::microseconds(16667);
    if (frame_end - frame_start < min_frame) std::this_thread::sleep_for(min_frame - (frame_end - frame_start));
    if (!first)
      stats.add(std::chrono::duration<double, std::milli>(frame_start - last).count(),
                std::chrono::duration<double, std::milli>(frame_end - frame_start).count(), ui_ms,
                app.training.active() || (app.explore.session.is_open() && !app.explore.session.settled()),
                app.runs.browser.scanning());
    first = false;
    last = frame_start;
  }
  if (!o.script.frame_stats.empty()) {
    auto summary = stats.summary();
    summary["ui_scale"] = app.display.ui_scale;
    if (const auto* scan = app.runs.browser.last_scan())  // the runs folder's last scan (on its worker)
      summary["runs_scan"] = {{"runs", scan->entries.size()}, {"seconds", scan->seconds}, {"reread", scan->reread}};
    try {
      proteus::common::write_user_file(o.script.frame_stats, summary.dump(2) + "\n");
    } catch (const std::exception& e) {
      std::cerr << "proteus-lab: cannot write the frame stats: " << e.what() << '\n';
    }
  }
  return run.exit_code();
}

// The settings file's path (its folder made), or "" when there is no config folder.
std::string settings_path() {
  const auto file = proteus::gui::ui_settings_file();
  if (file.empty()) return "";
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) {
    std::cerr << "proteus-lab: cannot make " << file.parent_path().string() << " (" << ec.message()
              << "): the scale and layout will not be remembered\n";
    return "";
  }
  return file.string();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (const auto stop = parse_options(argc, argv, o)) return *stop;

  // The settings are read before the window opens: they hold its size and the UI scale.
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  proteus::gui::UiSettings settings;
  proteus::gui::register_ui_settings_handler(&settings);
  const std::string ini = settings_path();
  ImGui::GetIO().IniFilename = nullptr;  // read and written by us, never opened by ImGui (a FIFO would hang it)
  if (!ini.empty()) proteus::gui::load_settings_file(ini);

  GLFWwindow* window = open_window(o, settings);
  if (!window) {
    ImGui::DestroyContext();
    return 1;
  }
  install_input_marks(window);  // before the backend, which chains to them
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");

  int exit_code = 0;
  {
    LabApp app(source_root(), o.runs_dir);
    float content_scale = 1, unused = 1;
    glfwGetWindowContentScale(window, &content_scale, &unused);
    app.display.default_ui_scale = proteus::gui::ui_scale_from_content_scale(content_scale);
    apply_scale(app, o.ui_scale.value_or(settings.ui_scale.value_or(app.display.default_ui_scale)), false);
    if (const auto tab = proteus::gui::tab_from_name(settings.tab); tab && o.script.tab.empty()) app.show(*tab);
    exit_code = run_loop(window, app, o, settings, ini);
    update_settings(settings, app, window);
    if (!ini.empty()) proteus::gui::save_settings_file(ini, true);
    app.training.stop();  // the run is checkpointed on the way out: nothing is lost
  }

  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}
