// The `proteus` command: a thin dispatcher. Each subcommand registers itself from its own file
// (add_<name>_command) and runs in its CLI11 callback; main parses and turns errors into statuses.
#include <exception>
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "app/cli/bench_command.hpp"
#include "app/cli/command_support.hpp"
#include "app/cli/config_reference_command.hpp"
#include "app/cli/experiment_commands.hpp"
#include "app/cli/job_commands.hpp"
#if PROTEUS_HAVE_FIGURES
#include "app/cli/export_command.hpp"
#endif
#include "app/cli/groups_command.hpp"
#include "app/cli/memory_op_command.hpp"
#include "app/cli/stats_command.hpp"
#include "app/cli/version.hpp"
#include "core/common/data_root.hpp"

namespace {

// "proteus train": the subcommand a message is from.
std::string program_of(const CLI::App& app) {
  std::string program = "proteus";
  const auto selected = app.get_subcommands();
  if (!selected.empty()) program += " " + selected.front()->get_name();
  return program;
}

// Help and version go to stdout with status 0; a subcommand's own failure has printed its line
// already; any other parse error is a usage error: one line on stderr and exit_bad_input.
int exit_status(const CLI::App& app, const CLI::ParseError& e) {
  const std::string kind = e.get_name();
  if (kind == "CallForHelp" || kind == "CallForAllHelp" || kind == "CallForVersion" || kind == "RuntimeError")
    return app.exit(e);
  const std::string program = program_of(app);
  // CLI11 says "--in is required"; the report names the field first, like every other error line.
  std::string message = e.what();
  const std::string required = " is required";
  if (message.starts_with("-") && message.ends_with(required))
    message = message.substr(0, message.size() - required.size()) + ": required";
  proteus::cli::print_error(program, message + " (see '" + program + " --help')");
  return proteus::cli::exit_bad_input;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Proteus Lab: gated memory rules, their schedules and the models around them.", "proteus"};
  app.require_subcommand(1);
  app.set_version_flag("--version", proteus::cli::version_line("proteus"), "Print the version (and git commit) and exit");
  // The guide's page where this program finds it: the installed docs folder, or the checkout's docs/.
  app.footer("Run 'proteus <command> --help' for a command's options. The full guide: " +
             (proteus::common::docs_root() / "cli.md").string());
  proteus::cli::add_train_command(app);
  proteus::cli::add_eval_command(app);
  proteus::cli::add_sweep_command(app);
  proteus::cli::add_groups_command(app);
  proteus::cli::add_jobs_command(app);
  proteus::cli::add_job_task_command(app);
  proteus::cli::add_job_merge_command(app);
  proteus::cli::add_memory_op_command(app);
  proteus::cli::add_bench_command(app);
  proteus::cli::add_config_reference_command(app);
  proteus::cli::add_stats_command(app);
#if PROTEUS_HAVE_FIGURES
  proteus::cli::add_export_command(app);
#endif
  proteus::cli::set_command_line(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return exit_status(app, e);
  } catch (const std::filesystem::filesystem_error& e) {
    // A path given that cannot be read (too long, a symlink loop): bad input, named, never an abort.
    proteus::cli::print_error(program_of(app), e.path1().string() + ": cannot read it (" + e.code().message() + ")");
    return proteus::cli::exit_bad_input;
  } catch (const std::exception& e) {
    proteus::cli::print_error(program_of(app), e.what());
    return proteus::cli::exit_failure;
  }
  return proteus::cli::exit_ok;
}
