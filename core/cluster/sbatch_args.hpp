// A `--sbatch-arg` value read the way sbatch reads an #SBATCH line: split at white space, long
// options as --name=value, --name value or any unambiguous abbreviation of the name (getopt_long),
// short ones as -o value, -ovalue or bundled behind flags (-vo value). The options the job sets
// itself (its array, dependency, output and error files, working folder and name) cannot be
// passed through in any of these spellings.
#pragma once
#include <string>

namespace proteus::cluster {

// Throws InputError(field, ...) naming the option it refuses, in the spelling given and its long
// name: an option the job owns, a word that is no option, a quote or backslash (sbatch would
// unquote it), a control character or an empty value.
void check_sbatch_arg(const std::string& value, const std::string& field);

}  // namespace proteus::cluster
