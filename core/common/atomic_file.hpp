// Whole-file writes that never leave a half-written file behind and never replace what is not
// ours to replace. The bytes go to a temporary file beside the target, are flushed to disk, and
// are renamed over it, so a reader (or the run after a crash) sees the previous version or the
// new one, never a mix. Every file the program writes goes through here.
//
// What may be replaced: nothing, or a regular file. A symbolic link, a directory, a device, a FIFO
// or a socket at the path is refused (a WriteError naming the path and what it is, refused() true):
// a rename would destroy it (as root, `--out /dev/null` would replace the device). A path the user named for an
// output (write_user_file: `memory-op --out`) may also be a character device or a FIFO, reached
// directly or through symbolic links (/dev/stdout, /dev/null, a named pipe): the bytes are then
// written through to it on purpose, with no temporary and no rename.
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace proteus::common {

// A write that failed: refused (what is at the path is not ours to replace; error 0) or failed for a
// reason of the system (a full disk, no permission), with errno kept so a caller can tell a full
// disk (ENOSPC, EDQUOT) from the rest. what() is "path: cannot write: reason" or "path: is ...".
class WriteError : public std::runtime_error {
 public:
  WriteError(const std::string& what, int error) : std::runtime_error(what), error_(error) {}
  int error() const { return error_; }
  bool refused() const { return error_ == 0; }
  bool disk_full() const;

 private:
  int error_;
};

// A file of the program's own (a run's files, checkpoints, figures, presets the window saves).
// Throws WriteError when the path holds anything but a regular file (refused()) or the write fails;
// the temporary is removed and the previous file is untouched either way.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

// A copy of the regular file `from` (not followed if a link) at `to`, replaced as above.
void copy_file_atomically(const std::filesystem::path& from, const std::filesystem::path& to);

// A file the user named for an output: as write_file_atomically, but a character device or a FIFO
// (also behind symbolic links) is written through. A symbolic link to anything else is refused.
// Returns true when the bytes went through to a device or a pipe (/dev/stdout, say).
bool write_user_file(const std::filesystem::path& path, std::string_view bytes);

// Throws the refusal write_user_file would for this path, before any work is done.
void check_user_output(const std::filesystem::path& path);

// The last resort on a full disk, for a small file that must change (a run's status): rewrites an
// existing regular file in place, which needs no new block when the text fits the old allocation.
// Not atomic (a crash mid-write can tear it); call it only after write_file_atomically failed with
// disk_full(). Throws WriteError.
void overwrite_in_place(const std::filesystem::path& path, std::string_view bytes);

// True for the temporaries write_file_atomically makes (".<name>.tmp-<pid>-<n>"), which a crash
// between write and rename can leave; readers skip them.
bool is_temporary_name(const std::string& file_name);

}  // namespace proteus::common
