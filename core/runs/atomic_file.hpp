// Whole-file writes that never leave a half-written file behind: the bytes go to a temporary file
// beside the target, are flushed to disk, and are renamed over it, so a reader (or the run after a
// crash) sees the previous version or the new one, never a mix. Shared by the run directory and
// the safetensors writer.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace proteus::runs {

// Throws std::runtime_error ("path: cannot write: <reason>") and removes the temporary on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

// The whole file. Throws InputError(path, "cannot open") when it cannot be read.
std::string read_whole_file(const std::filesystem::path& path);

// True for the temporaries write_file_atomically makes (".<name>.tmp-<pid>-<n>"), which a crash
// between write and rename can leave; readers skip them.
bool is_temporary_name(const std::string& file_name);

}  // namespace proteus::runs
