#pragma once

#include <string>
#include <vector>

namespace shoal::cli {

/// The subcommand `args` (argv, program name first) names: the first word that is not an
/// option, after the top-level ones (`-f FILE`, `--config FILE`, `--config=FILE`). Empty when
/// there is none, or when a top-level help or version flag comes first (then the whole command
/// tree is wanted).
std::string named_subcommand(const std::vector<std::string>& args);

}  // namespace shoal::cli
