#include "tools/cli/identity.hpp"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
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

bool is_numeric_id(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

std::optional<user_identity> find_user(const std::string& name_or_uid) {
  passwd pw{};
  passwd* found = nullptr;
  char buf[4096];
  if (getpwnam_r(name_or_uid.c_str(), &pw, buf, sizeof buf, &found) != 0 || found == nullptr) {
    if (!is_numeric_id(name_or_uid)) return std::nullopt;
    auto uid = static_cast<uid_t>(std::strtoul(name_or_uid.c_str(), nullptr, 10));
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) != 0 || found == nullptr) return std::nullopt;
  }
  return user_identity{found->pw_name, found->pw_uid, found->pw_gid};
}

std::optional<uint32_t> find_group(const std::string& name) {
  group gr{};
  group* found = nullptr;
  char buf[4096];
  if (getgrnam_r(name.c_str(), &gr, buf, sizeof buf, &found) != 0 || found == nullptr)
    return std::nullopt;
  return found->gr_gid;
}

std::optional<group_entry> primary_group(uint32_t uid) {
  passwd pw{};
  passwd* found = nullptr;
  char buf[4096];
  if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) != 0 || found == nullptr) return std::nullopt;
  group_entry g;
  g.gid = found->pw_gid;
  group gr{};
  group* named = nullptr;
  char gbuf[4096];
  if (getgrgid_r(g.gid, &gr, gbuf, sizeof gbuf, &named) == 0 && named != nullptr)
    g.name = named->gr_name;
  return g;
}

int64_t now_seconds() {
  return static_cast<int64_t>(std::time(nullptr));
}

}  // namespace shoal::cli
