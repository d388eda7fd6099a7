// `proteus export RUN [RUN...]`: every standard figure of the given runs (overlaid when several
// are given, baseline vs Proteus) as PNG, SVG, PDF and the figure's data as CSV.
#pragma once

namespace CLI {
class App;
}

namespace proteus::cli {

// Registers the export subcommand on the `proteus` app.
void add_export_command(CLI::App& app);

}  // namespace proteus::cli
