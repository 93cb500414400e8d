#include "tools/cli/identity.hpp"

#include <pwd.h>
#include <unistd.h>

#include <ctime>

namespace shoal::cli {

user_identity current_user() {
  user_identity id;
  id.uid = static_cast<uint32_t>(getuid());
  id.gid = static_cast<uint32_t>(getgid());
  if (auto* pw = getpwuid(getuid()); pw != nullptr)
    id.name = pw->pw_name;
  else
    id.name = std::to_string(id.uid);
  return id;
}

int64_t now_seconds() {
  return static_cast<int64_t>(std::time(nullptr));
}

}  // namespace shoal::cli
