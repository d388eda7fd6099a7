// libFuzzer harness for memory-op: an input is IN.json's bytes, read as the command reads them
// (common::parse_json within memory::kInputLimits), checked by parse_memory_op and, when accepted,
// run by run_memory_op (forward, and the backward when dO or dS is given) and written out.
// A finding is any crash, leak or sanitizer report, or any exception but an InputError.
#include <cstdint>
#include <string_view>

#include "core/common/input_error.hpp"
#include "core/common/json_read.hpp"
#include "core/memory/memory_op.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    const auto value = proteus::common::parse_json(input, "in.json", proteus::memory::kInputLimits);
    const auto request = proteus::memory::parse_memory_op(value);
    const auto out = proteus::memory::run_memory_op(request);
    (void)out.dump(2);  // what the command writes
  } catch (const proteus::InputError&) {
    // what a user sees: one line naming the field
  }
  return 0;
}
