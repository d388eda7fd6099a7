# Writes OUT, a C++ file holding VERSION and the git commit of SOURCE_DIR, when its text changes
# (file(CONFIGURE) leaves an unchanged file alone, so nothing relinks). Run at every build by the
# target proteus_version_info (app/cli/CMakeLists.txt), so a new commit shows without reconfiguring.
# No commit where SOURCE_DIR has no .git of its own (a tarball, even one unpacked inside another
# checkout) or git is missing or refuses (a checkout owned by another user).
#   cmake -DSOURCE_DIR=... -DOUT=... -DVERSION=... [-DGIT=/usr/bin/git] -P version_info.cmake
set(commit "")
if(GIT AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
    set(commit "${head}")
    # Exit status 1: tracked files differ from HEAD (by content: a file touched but unchanged is not
    # counted). --no-optional-locks: never writes the index, which another git may hold.
    execute_process(COMMAND "${GIT}" --no-optional-locks -C "${SOURCE_DIR}" diff --quiet HEAD --
                    RESULT_VARIABLE dirty OUTPUT_QUIET ERROR_QUIET)
    if(dirty EQUAL 1)
      string(APPEND commit ", modified")
    endif()
  endif()
endif()
file(CONFIGURE OUTPUT "${OUT}" @ONLY CONTENT [[
// Written by app/cli/version_info.cmake at build time: do not edit.
#include "app/cli/version_info.hpp"

namespace proteus::cli::build_info {

const char* const version = "@VERSION@";
const char* const commit = "@commit@";

}  // namespace proteus::cli::build_info
]])
