// Reading a whole file with a size limit: a config that is really /dev/zero, a FIFO that never
// ends or a 50 GB file is refused once the limit is passed, never read to exhaustion.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>

namespace proteus::common {

// The file's bytes. Throws InputError(path, ...): "cannot open" (missing), "cannot open: <reason>",
// "is a directory", "cannot read: <reason>", or "is larger than the limit of N bytes for <what>"
// as soon as more than max_bytes arrive (a regular file's size is checked before reading).
std::string read_file(const std::filesystem::path& path, size_t max_bytes, const std::string& what = "this file");

// "1 GiB", "64 MiB", "512 KiB", "100 bytes": a limit as a message shows it.
std::string format_bytes(size_t bytes);

}  // namespace proteus::common
