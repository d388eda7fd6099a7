#include "app/cli/memory_op_command.hpp"

#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "app/cli/command_support.hpp"
#include "core/common/atomic_file.hpp"
#include "core/common/json_read.hpp"
#include "core/memory/memory_op.hpp"

namespace proteus::cli {
namespace {

constexpr const char* program = "proteus memory-op";

// The lines that depend on the rules come from their table (core/memory/rule_descriptor.cpp).
std::string rule_fields_help() {
  using memory::rules_where;
  std::string rules;
  for (memory::Rule r : memory::all_rules())
    rules += (rules.empty() ? "\"" : " | \"") + std::string(memory::rule_name(r)) + "\"";
  const auto padded = [](std::string text, size_t width) {
    return text + std::string(text.size() < width ? width - text.size() : 2, ' ');
  };
  return padded("  rule      " + rules, 74) + "(required)\n" +
         "  q, k      T rows of d_k numbers                                          (required)\n"
         "  v         T rows of d_v numbers                                          (required)\n"
         "  beta      T write strengths in [0, 2]            (required; " +
         rules_where([](memory::Rule r) { return !memory::rule_uses_beta(r); }) + " ignores it)\n" +
         "  a         T retentions in (0, 1]                 (default 1: no decay; " +
         rules_where([](memory::Rule r) { return memory::rule_traits(r).per_key_retention; }, "or") +
         ": T rows of d_k)\n" +
         "  p         T rows of d_k numbers                  (" + rules_where(memory::rule_uses_p, "or") +
         " only; required there)\n" +
         "  eta       T momentum factors in [0, 1)           (" + rules_where(memory::rule_uses_eta, "or") +
         " only; default 0)\n" +
         "  gamma     T rows of c window weights             (" + rules_where(memory::rule_uses_gamma, "or") +
         " only; required there)\n";
}

constexpr const char* fields_help = R"(
  S0        d_k rows of d_v numbers                (initial state; default 0)
  dO        T rows of d_v numbers                  (upstream gradient of o)
  dS        d_k rows of d_v numbers                (upstream gradient of the final S)
  E         blocks, an integer in [1, d_k*d_v]     (default 1: the ungated rule)
  N         schedule horizon, an integer >= 1      (default T)
  schedule  {"type": "uniform"} (default), {"type": "geometric"}, {"type": "power", "p": 2},
            or {"type": "custom", "unlock": [1, u_2, ..., u_E]} (non-decreasing)
  normalize "normalize_then_mask" (default: q, k as given, masked by the gate),
            "mask_then_normalize" (q_t, k_t re-normalised over the open key rows at t) or
            "capped_renormalize" (the same, the norm floored at sqrt(open rows / d_k)),
            as the model's model.mixer.normalize; q and k are taken as unit vectors
  recall    true: also report recall_error (below)                 (default false)
  comment   free text, ignored
OUT.json: rule, D, E, N, normalize, schedule (with its unlock positions), active_blocks and
active_elements per token, o (T rows of d_v), S (the final state) and, when dO or dS is
given (a missing one counts as zero), grad: dL/d of every input, shaped like it, for
L = sum_t <dO_t, o_t> + <dS, S_T>. With recall, recall_error: row t (t = 1..T) holds for
each association i <= t (token i wrote k_i -> v_i) ||(G_t * S_t)^T k_i - v_i|| / ||v_i||,
k_i normalised as the variant does at step t.
IN.json may be at most 32 MiB, nested at most 64 deep, with no key twice in one object.
OUT.json is replaced atomically (a temporary file renamed over it) when it is a regular file
or absent; a character device or a pipe (/dev/stdout, a named pipe) is written through;
anything else there (a symbolic link to a file, a directory) is refused (status 1).
Exit status: 0 done; 2 bad input or usage (one line on stderr naming the field, and
OUT.json is not written); 1 OUT.json could not be written.
Examples: assets/examples/*.json. The full description: README.md, "proteus memory-op".
)";

struct MemoryOpOptions {
  std::string in;
  std::string out;
};

void run(const MemoryOpOptions& options) {
  nlohmann::json result;
  memory::MemoryOpRequest request;
  try {
    common::check_user_output(options.out);  // a path that may not be written is refused before any work
    request = memory::parse_memory_op(common::read_json_file(options.in, memory::kInputLimits));
    result = memory::run_memory_op(request);
  } catch (const InputError& e) {
    fail(program, e.what(), exit_bad_input);
  } catch (const common::WriteError& e) {
    fail(program, e.what(), exit_failure);  // --out names something that is not ours to replace
  } catch (const std::bad_alloc&) {
    fail(program, "out of memory while running the op", exit_failure);
  } catch (const std::exception& e) {
    fail(program, std::string("internal error: ") + e.what(), exit_failure);
  }
  bool streamed = false;
  try {
    // Indented by 2, numbers in their shortest round-trip form.
    streamed = common::write_user_file(options.out, result.dump(2) + "\n");
  } catch (const std::exception& e) {
    fail(program, e.what(), exit_failure);
  }
  // Written to a stream (--out /dev/stdout), the summary goes to stderr: stdout holds the JSON.
  (streamed ? std::cerr : std::cout) << program << ": rule " << memory::rule_name(request.rule) << ", T = " << request.T
            << ", d_k = " << request.d_k << ", d_v = " << request.d_v << ", E = " << request.E << ": wrote "
            << options.out << (request.wants_grads() ? " with grad" : "") << '\n';
}

}  // namespace

void add_memory_op_command(CLI::App& app) {
  auto options = std::make_shared<MemoryOpOptions>();
  CLI::App* command = app.add_subcommand(
      "memory-op", "Run one head of one gated memory rule in float64 on the CPU reference (math.md section 4)");
  command->add_option("--in", options->in, "the op's inputs (JSON, fields below)")->required()->option_text("IN.json");
  command->add_option("--out", options->out, "where to write the outputs (JSON)")->required()->option_text("OUT.json");
  command->footer("IN.json is one object (unknown keys are refused):\n" + rule_fields_help() + (fields_help + 1));
  command->callback([options] { run(*options); });
}

}  // namespace proteus::cli
