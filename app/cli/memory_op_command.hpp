// `proteus memory-op --in IN.json --out OUT.json` (math.md section 4): one head of one gated memory
// rule in float64 on the CPU reference, for teaching and for checking other implementations.
#pragma once

namespace CLI {
class App;
}

namespace proteus::cli {

// Registers the memory-op subcommand on the `proteus` app.
void add_memory_op_command(CLI::App& app);

}  // namespace proteus::cli
