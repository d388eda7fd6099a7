// `proteus export`: reads run directories through RunReader, builds their figure set and writes
// it with the export loop the window uses (figure_export.hpp) into one folder.
#include "app/cli/export_command.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/cli/command_support.hpp"
#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"
#include "core/engine/edited_evaluation.hpp"
#include "core/figures/figure_export.hpp"
#include "core/figures/figure_set.hpp"
#include "core/runs/run_dir.hpp"
#include "core/runs/staged_folder.hpp"

namespace proteus::cli {
namespace {

constexpr const char* program = "proteus export";

constexpr const char* export_help = R"(Figures, each when the runs have its data (NAME.png, .svg, .pdf, .csv):
  loss, val_bpb                    training loss and held-out bits per byte over steps
  per_position, ppl_ratio          perplexity by position (log x); ratio to the first run
  niah_<task>_<run>                NIAH accuracy, depth x context length
  occupancy_<run>_l0_h0            block state norms over position, layer 0, head 0
  activation_map_<run>             the schedule's active blocks over position
  e_ablation                       final bits per byte against E (runs of several E)
  gating_effect_nll_<range>        gated minus its E = 1 baseline (same seed, same other fields) in
                                   mean NLL against the swept field (--effect-x; train.tokens for a
                                   budget), ranges first-N16, N16-N, N-4N, all (--effect-ranges
                                   diagnosis: 1-2, 3-16, 17-256, 257-N, N-4N, all); one line per value
                                   of the other swept fields (a sweep's or seed groups' runs, each
                                   gated point with its baseline given too)
  gating_effect_needle, _mqar      the same in accuracy points
  gating_effect_needle_by_length   the token needle effect against the context length asked, a line
                                   per form, its trend per doubling (gated runs with their baselines)
  gating_effect_by_variant         a forest plot: a row per gated seed group paired by seed with its
                                   E = 1 group, mean NLL with its 95% t interval over the seeds, lines
                                   at 0 and at the reference row (--effect-reference), the paper's
                                   band (per word) where the unit allows; _<range>: positions 1-2,
                                   3-16, 17-256, 257-N, N-4N
An evaluation folder RUN/evals/NAME (`proteus eval --as NAME`) reads as a run: give it as RUN,
or give RUN with --evals. Several runs are drawn on the same axes in the order given (the first is the reference of
ppl_ratio). The CSV holds each figure's data: series,x,y rows, or one row per heatmap cell;
a gating_effect CSV is x,range,mean,lo,hi,n (and line, when there are several lines); beside it,
NAME_trend.csv holds the least-squares trend of each line with three or more x values (slope per
doubling of x on a log axis, its 95% t interval, where it crosses zero). gating_effect_by_variant.csv
is variant,range,mean,lo,hi,n,unit for every row and range (n = the paired seeds).
Exit status: 0 done; 2 bad input (not a run directory, unknown format, size out of range);
1 a file could not be written.)";

// {"png", "svg"} -> "png,svg"
std::string comma_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

struct ExportOptions {
  std::vector<std::string> runs;
  std::string out;
  std::string formats = comma_list(figures::export_formats());
  double width = 480;
  double height = 320;
  double dpi = 300;
  bool evals = false;  // each run's RUN/evals/NAME folders too, after it
  std::string effect_x;  // the gating-effect maps' x field; empty: chosen
  std::string effect_ranges = "map";  // the gating-effect maps' position ranges (figures::EffectRanges)
  std::string effect_reference;  // gating_effect_by_variant's reference row; empty: the first
};

// "png,svg" -> {"png", "svg"}, each once; the names are checked with the other settings.
std::vector<std::string> split_formats(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string f = list.substr(start, comma - start);
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
    start = comma + 1;
  }
  return out;
}

void run(const ExportOptions& o) {
  std::vector<runs::RunReader> readers;
  figures::ExportSettings settings{split_formats(o.formats), o.width, o.height, o.dpi};
  std::vector<figures::NamedFigure> figs;
  try {
    // Settings are checked before anything is read or written, under the option names a user typed.
    try {
      figures::check_export_settings(settings);
    } catch (const InputError& e) {
      throw InputError("--" + e.field(), e.reason());
    }
    const auto ranges = common::choice_from_name<figures::EffectRanges>(o.effect_ranges);
    if (!ranges)
      throw InputError("--effect-ranges", "unknown value '" + o.effect_ranges.substr(0, 32) + "' (" +
                                              common::choice_alternatives<figures::EffectRanges>(", ") + ")");
    for (const auto& r : o.runs) {
      readers.push_back(runs::RunReader::open(r));
      std::vector<std::string> unreadable;
      if (o.evals)
        for (const auto& name : runs::list_runs(std::filesystem::path(r) / engine::kEvalsFolder, &unreadable))
          readers.push_back(runs::RunReader::open(std::filesystem::path(r) / engine::kEvalsFolder / name));
      for (const auto& u : unreadable) print_error(program, u);  // named, and the rest still drawn
    }
    try {
      figs = figures::standard_figures(
          readers, {.effect_x = o.effect_x, .effect_ranges = *ranges, .effect_reference = o.effect_reference});
    } catch (const InputError& e) {
      if (e.field() != "x" && e.field() != "reference") throw;
      throw InputError(e.field() == "x" ? "--effect-x" : "--effect-reference", e.reason());
    }
  } catch (const InputError& e) {
    fail(program, e.what(), exit_bad_input);
  } catch (const std::exception& e) {
    fail(program, std::string("cannot read the runs: ") + e.what(), exit_bad_input);
  }
  const std::filesystem::path out = o.out.empty() ? readers.front().dir() / "figures" : std::filesystem::path(o.out);
  if (figs.empty()) {
    std::cout << program << ": the runs have nothing to draw yet\n";
    return;
  }
  // A folder this command makes appears whole or not at all: the files are drawn into a hidden
  // staging folder beside it and renamed into place at the end. Into a folder that exists already,
  // each file is replaced on its own (atomically).
  std::error_code ec;
  const bool make_folder = !std::filesystem::exists(out, ec);
  std::unique_ptr<runs::StagedFolder> staged;
  try {
    if (make_folder) staged = std::make_unique<runs::StagedFolder>(out.parent_path().empty() ? "." : out.parent_path(),
                                                                   out.filename().string());
  } catch (const std::exception& e) {
    fail(program, "--out: cannot make the folder " + out.string() + ": " + e.what(), exit_failure);
  }
  if (!make_folder && !std::filesystem::is_directory(out))
    fail(program, "--out: " + out.string() + " exists and is not a folder", exit_failure);
  const std::filesystem::path target = staged ? staged->path() : out;
  size_t written = 0;
  try {
    written = figures::export_figures(figs, target, settings, [&](const std::string& file) {
                std::cout << (staged ? (out / std::filesystem::path(file).filename()).string() : file) << '\n';
                return true;
              }).size();
    if (staged && !staged->commit_as(out.filename().string()))
      throw std::runtime_error(out.string() + " appeared while drawing: run again to draw into it");
  } catch (const std::exception& e) {
    fail(program,
         std::string(e.what()) + (staged ? " (nothing was written: " + out.string() + " was not made; run again once fixed)"
                                         : " (the files listed above were written; run again once fixed)"),
         exit_failure);
  }
  std::cout << program << ": " << figs.size() << " figures, " << written << " files in " << out.string() << '\n';
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto options = std::make_shared<ExportOptions>();
  CLI::App* command = app.add_subcommand("export", "Draw the runs' figures to PNG, SVG, PDF and CSV (runs compared when several)");
  command->add_option("runs", options->runs, "run directories (runs/<name>)")->required()->option_text("RUN [RUN...]");
  auto* out = command->add_option("--out", options->out, "output folder (default: the first run's folder + /figures)")
                  ->option_text("DIR");
  command->add_option("--formats", options->formats,
                      "comma-separated: " + common::join(figures::export_formats()) + " (default: all four)")
      ->option_text("LIST");
  command->add_option("--width", options->width, "figure width in points (default 480)")->option_text("PT");
  command->add_option("--height", options->height, "figure height in points (default 320)")->option_text("PT");
  command->add_option("--dpi", options->dpi, "PNG resolution in pixels per inch (default 300)")->option_text("N");
  command->add_flag("--evals", options->evals,
                    "also draw each run's evaluations under other schedules (RUN/evals/NAME, from `proteus eval --as`)");
  command->add_option("--effect-x", options->effect_x,
                      std::string("the gating_effect figures' x axis: a swept config field (default: the first numeric one "
                                  "but E), or ") + figures::kTrainingTokensX + " (train.steps x data.batch x data.seq_len)")
      ->option_text("PATH");
  command->add_option("--effect-ranges", options->effect_ranges,
                      "the gating_effect_nll figures' position ranges: map (first N/16, N/16-N, N-4N, all; by "
                      "buckets) or diagnosis (1-2, 3-16, 17-256, 257-N, N-4N, all; position by position); default map")
      ->option_text("SET");
  command->add_option("--effect-reference", options->effect_reference,
                      "gating_effect_by_variant's reference row: a gated seed group (default: the first row)")
      ->option_text("GROUP");
  command->footer(export_help);
  command->callback([options, out] {
    // `--out ''` names no folder: a bad value, never "no --out" (which writes into the run's folder).
    if (out->count() > 0 && options->out.empty()) fail(program, "--out: must name a folder, got \"\"", exit_bad_input);
    run(*options);
  });
}

}  // namespace proteus::cli
