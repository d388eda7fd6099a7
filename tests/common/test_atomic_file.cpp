// The one writer: a regular file (or nothing) is replaced atomically; anything else at the path is
// left exactly as it was (issue 10: `--out` over a device or a link replaced it with a file); a
// path the user named may write through a device or a pipe on purpose; a failed write leaves no
// temporary and the previous file intact.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>

#include "core/common/atomic_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using proteus::common::WriteError;
using proteus::test_support::TempDir;
namespace common = proteus::common;

bool no_temporaries(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (common::is_temporary_name(e.path().filename().string())) return false;
  return true;
}

// The refusal write_file_atomically gives for `path`, which must leave it as it was.
std::string refusal(const fs::path& path) {
  try {
    common::write_file_atomically(path, "new");
  } catch (const WriteError& e) {
    EXPECT_TRUE(e.refused()) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "replaced " << path;
  return "";
}

TEST(AtomicFile, CreatesAndReplacesRegularFiles) {
  TempDir dir;
  common::write_file_atomically(dir / "a.json", "one");
  EXPECT_EQ(TempDir::read(dir / "a.json"), "one");
  common::write_file_atomically(dir / "a.json", "two");
  EXPECT_EQ(TempDir::read(dir / "a.json"), "two");
  EXPECT_TRUE(no_temporaries(dir.path()));
}

TEST(AtomicFile, RefusesALinkAndLeavesItAndItsTarget) {
  TempDir dir;
  dir.write("target", "mine");
  fs::create_symlink(dir / "target", dir / "link");
  EXPECT_NE(refusal(dir / "link").find("link: is a symbolic link, not a regular file: refusing to replace it"),
            std::string::npos);
  EXPECT_TRUE(fs::is_symlink(dir / "link"));
  EXPECT_EQ(TempDir::read(dir / "target"), "mine");
  fs::create_symlink(dir / "nowhere", dir / "dangling");
  refusal(dir / "dangling");
  EXPECT_TRUE(fs::is_symlink(dir / "dangling"));
  EXPECT_TRUE(no_temporaries(dir.path()));
}

TEST(AtomicFile, RefusesADirectoryAFifoAndADevice) {
  TempDir dir;
  fs::create_directories(dir / "d");
  EXPECT_NE(refusal(dir / "d").find("is a directory"), std::string::npos);
  EXPECT_TRUE(fs::is_directory(dir / "d"));
  ASSERT_EQ(::mkfifo((dir / "f").c_str(), 0600), 0);
  EXPECT_NE(refusal(dir / "f").find("is a FIFO"), std::string::npos);
  EXPECT_TRUE(fs::is_fifo(dir / "f"));
  // A device of our own making (a twin of /dev/null), never the system's: were the writer wrong,
  // the test must not destroy a real device.
  if (::mknod((dir / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod not permitted here";
  EXPECT_NE(refusal(dir / "null").find("is a character device"), std::string::npos);
  EXPECT_TRUE(fs::is_character_file(dir / "null"));
  EXPECT_TRUE(no_temporaries(dir.path()));
}

TEST(AtomicFile, AUserOutputWritesThroughADeviceOrAPipe) {
  TempDir dir;
  // A pipe, directly and through a link (as /dev/stdout is a link to the terminal or a pipe).
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0600), 0);
  fs::create_symlink(dir / "pipe", dir / "to-pipe");
  for (const char* name : {"pipe", "to-pipe"}) {
    std::string got;
    std::thread reader([&] { got = TempDir::read(dir / "pipe"); });
    EXPECT_TRUE(common::write_user_file(dir / name, "through")) << name;
    reader.join();
    EXPECT_EQ(got, "through") << name;
    EXPECT_TRUE(fs::is_fifo(dir / "pipe"));
  }
  EXPECT_TRUE(fs::is_symlink(dir / "to-pipe"));
  if (::mknod((dir / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    EXPECT_TRUE(common::write_user_file(dir / "null", "discarded"));
    EXPECT_TRUE(fs::is_character_file(dir / "null"));
  }
  // A regular file or nothing: replaced atomically, as ours are.
  EXPECT_FALSE(common::write_user_file(dir / "out.json", "{}"));
  EXPECT_EQ(TempDir::read(dir / "out.json"), "{}");
  EXPECT_TRUE(no_temporaries(dir.path()));
}

TEST(AtomicFile, AUserOutputRefusesALinkToAFileAndADirectory) {
  TempDir dir;
  dir.write("target", "mine");
  fs::create_symlink(dir / "target", dir / "link");
  EXPECT_THROW(common::check_user_output(dir / "link"), WriteError);
  EXPECT_THROW(common::write_user_file(dir / "link", "new"), WriteError);
  EXPECT_TRUE(fs::is_symlink(dir / "link"));
  EXPECT_EQ(TempDir::read(dir / "target"), "mine");
  fs::create_directories(dir / "d");
  EXPECT_THROW(common::write_user_file(dir / "d", "new"), WriteError);
  EXPECT_NO_THROW(common::check_user_output(dir / "absent.json"));
}

TEST(AtomicFile, AFailedWriteIsAWriteErrorThatNamesThePath) {
  TempDir dir;
  try {
    common::write_file_atomically(dir / "no-such-folder" / "a.json", "new");
    FAIL() << "wrote into a missing folder";
  } catch (const WriteError& e) {
    EXPECT_FALSE(e.refused());
    EXPECT_FALSE(e.disk_full());
    EXPECT_NE(std::string(e.what()).find("no-such-folder/a.json: cannot write: No such file or directory"),
              std::string::npos)
        << e.what();
  }
}

TEST(AtomicFile, AFailedWriteLeavesThePreviousFile) {
  TempDir dir;
  fs::create_directories(dir / "ro");
  dir.write("ro/kept.json", "old");
  fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  if (::access((dir / "ro").c_str(), W_OK) == 0) {  // root writes anywhere: no failure to provoke
    fs::permissions(dir / "ro", fs::perms::owner_all);
    GTEST_SKIP() << "running as root: a read-only folder does not refuse writes";
  }
  try {
    common::write_file_atomically(dir / "ro/kept.json", "new");
    ADD_FAILURE() << "wrote into a read-only folder";
  } catch (const WriteError& e) {
    EXPECT_FALSE(e.refused());
    EXPECT_FALSE(e.disk_full());
  }
  fs::permissions(dir / "ro", fs::perms::owner_all);
  EXPECT_EQ(TempDir::read(dir / "ro/kept.json"), "old");
  EXPECT_TRUE(no_temporaries(dir / "ro"));
}

TEST(AtomicFile, OverwriteInPlaceRewritesAndCuts) {
  TempDir dir;
  dir.write("status.json", "a much longer first version");
  common::overwrite_in_place(dir / "status.json", "short");
  EXPECT_EQ(TempDir::read(dir / "status.json"), "short");
  EXPECT_THROW(common::overwrite_in_place(dir / "absent.json", "x"), WriteError);
}

TEST(AtomicFile, CopiesAFileAtomically) {
  TempDir dir;
  std::string big(300000, 'b');
  dir.write("from.bin", big);
  common::copy_file_atomically(dir / "from.bin", dir / "to.bin");
  EXPECT_EQ(TempDir::read(dir / "to.bin"), big);
  fs::create_symlink(dir / "from.bin", dir / "link.bin");
  EXPECT_THROW(common::copy_file_atomically(dir / "from.bin", dir / "link.bin"), WriteError);
  EXPECT_TRUE(fs::is_symlink(dir / "link.bin"));
  EXPECT_TRUE(no_temporaries(dir.path()));
}

}  // namespace
