#pragma once

// sacctmgr's objects (clusters, an account tree per cluster, users and their associations, QOS)
// and the changes sacctmgr makes to them, as Slurm 22.05's sacctmgr and slurmdbd make them. Pure:
// the accounting writer loads msg::association_data from the store, applies an edit here and
// writes the result back; the controller asks who may charge what (find_association) of the
// copy it keeps.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "messages/errc.hpp"
#include "messages/text.hpp"
#include "messages/types.hpp"

namespace shoal::accounting {

/// Adds `cluster` when the data lacks it, as `sacctmgr add cluster` does: its root account's
/// association (account root, the account itself made when missing, with QOS normal) and
/// root's user association under it; the QOS `normal` is made when missing too. Records
/// `host` and `port` as its ControlHost and ControlPort when given (non-empty, non-zero).
/// Returns whether anything changed.
bool ensure_cluster(msg::association_data& data, const std::string& cluster,
                    const std::string& host = {}, uint32_t port = 0);

/// Applies one sacctmgr add, modify or delete of a cluster, account, user or QOS to `data`.
/// An account or user is added on every cluster unless cluster= names some. Returns what
/// sacctmgr prints on success. Errors: errc::invalid_request with sacctmgr's words (an unknown
/// option or condition, an account or parent that does not exist, " Nothing new added.", " Nothing
/// modified", " Nothing deleted", the root account); `data` is then unchanged.
shoal::expected<std::string> apply_edit(msg::association_data& data, const msg::acctmgr_edit& edit);

/// The association that lets `user` charge `account` on `cluster` in `partition`: the user's
/// association for that partition, else the one for every partition (empty partition). Null
/// when there is none.
const msg::association* find_association(const msg::association_data& data,
                                         std::string_view cluster, std::string_view user,
                                         std::string_view account, std::string_view partition);

/// The user's DefaultAccount; empty when the store does not know the user.
std::string default_account_of(const msg::association_data& data, std::string_view user);

/// The associations in the order sacctmgr lists them: by cluster, then each cluster's tree from
/// root down, an account's users (by name, then partition) before its sub-accounts (by name).
/// Associations whose parent is missing come last.
std::vector<const msg::association*> tree_order(const msg::association_data& data);

/// The admin level as sacctmgr spells it (None, Operator, Administrator) from any case or
/// prefix of those; empty when `text` is none of them.
std::string admin_level_name(std::string_view text);

/// sacctmgr's words and keys match in any case.
using text::lower;

/// A comma list's items, empty ones dropped ("a,,b" -> a, b), as sacctmgr reads lists.
std::vector<std::string> split_list(std::string_view text);

}  // namespace shoal::accounting
