#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tools/format/squeue_format.hpp"

namespace shoal::cli {

/// The calling user's name, uid and gid.
struct user_identity {
  std::string name;
  uint32_t uid = 0;
  uint32_t gid = 0;
};
user_identity current_user();

/// The user `name_or_uid` names in this host's user database, as Slurm's commands read -u: a
/// name first, then a number as a uid. nullopt: no such user here (a caller that takes unknown
/// uids, as scancel and sacct do, reads the number itself).
std::optional<user_identity> find_user(const std::string& name_or_uid);

/// The gid of group `name` in this host's group database; nullopt: no such group.
std::optional<uint32_t> find_group(const std::string& name);

/// Whether `text` is a uid or gid as the commands write one: digits only.
bool is_numeric_id(const std::string& text);

/// The primary group of user `uid`, from this host's user database (the job records carry the
/// uid only: squeue's %g and %G, scontrol's GroupId). nullopt: no such user here; an empty name:
/// the group has no entry.
std::optional<group_entry> primary_group(uint32_t uid);

/// Unix seconds now.
int64_t now_seconds();

}  // namespace shoal::cli
