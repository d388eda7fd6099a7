// What every `proteus` subcommand shares: its exit statuses and the one-line error report.
// A subcommand runs in its CLI11 callback and ends a failed run with fail(), which prints the line
// and unwinds to main through CLI::RuntimeError, which CLI11 turns into the exit status silently.
#pragma once
#include <string>
#include <string_view>

namespace proteus::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;    // the run could not finish (a file could not be written)
inline constexpr int exit_bad_input = 2;  // bad input or bad usage: the user can fix it

// Prints "<program>: error: <message>" as exactly one line on stderr; line breaks in the message
// are folded into spaces so scripts can rely on one line.
void print_error(std::string_view program, std::string_view message);

// Prints the error line for `program` ("proteus memory-op") and ends the subcommand with `status`.
[[noreturn]] void fail(std::string_view program, std::string_view message, int status);

// The preset a CONFIG argument names (config::find_preset under the shipped data): as given when it
// exists, else the shipped preset of that name, said in one line on stderr so that the user knows
// which file ran.
std::string shipped_or_given(std::string_view program, const std::string& config);

// The command line as the user typed it (main records it), for files that say what wrote them.
void set_command_line(int argc, const char* const* argv);
const std::string& command_line();

}  // namespace proteus::cli
