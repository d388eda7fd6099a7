// Text made one word for bash, whatever it holds: the paths in the job scripts and in the sbatch
// commands --print shows a user to paste, so a ';' or a '$(...)' in a folder name runs nothing.
#pragma once
#include <string>

namespace proteus::cluster {

// 'text' single-quoted, each ' written as '\'' .
std::string shell_quoted(const std::string& text);

}  // namespace proteus::cluster
