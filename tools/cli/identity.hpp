#pragma once

#include <cstdint>
#include <string>

namespace shoal::cli {

/// The calling user's name, uid and gid.
struct user_identity {
  std::string name;
  uint32_t uid = 0;
  uint32_t gid = 0;
};
user_identity current_user();

/// Unix seconds now.
int64_t now_seconds();

}  // namespace shoal::cli
