#pragma once

// sacctmgr's NAME=VALUE words as an edit reads them (accounting/associations.cpp applies them):
// private to the store's edits, apart so the edits stay one concern per file.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/errc.hpp"

namespace shoal::accounting::edit_words {

inline bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// A QOS list setting: QOS=a,b replaces, QOS+=a adds, QOS-=a removes.
struct qos_list_change {
  char op = '=';
  std::vector<std::string> names;
};

/// What an edit's NAME=VALUE words say, whichever entity they are for.
struct words {
  // -- which objects --
  std::vector<std::string> names, accounts, clusters, partitions, users;
  // -- accounts and users --
  std::optional<std::string> description, organization, parent, default_account, admin_level;
  // -- association limits (and a QOS's where they share a name) --
  std::optional<int64_t> shares, priority, grp_jobs, grp_submit, grp_wall, max_jobs, max_submit,
      max_wall;
  std::optional<std::string> grp_tres, max_tres, default_qos;
  std::optional<qos_list_change> qos;
  // -- QOS only --
  std::optional<std::string> flags, max_tres_pu, max_tres_pa, min_tres, preempt_mode;
  std::optional<qos_list_change> preempt;
  std::optional<double> usage_factor;
  std::optional<int64_t> grace, max_jobs_pa, max_submit_pa;
  bool any_limit = false;  ///< an association limit was given
};

/// The refusal of a word sacctmgr does not know, in its words.
error unknown_option(const std::string& item, bool condition);

/// A TRES list as sacctmgr takes it: `cpu=4,mem=1000M,node=2`; `cpu=-1` removes a kind, and
/// the whole list -1 clears it. Kept as sacctmgr prints it (kinds in the order given).
shoal::expected<std::string> tres_value(const std::string& key, const std::string& value,
                                        const std::string& old);

/// Reads `items` (NAME=VALUE, NAME+=VALUE, NAME-=VALUE; a bare word is a name) into `w`.
error read_words(const std::vector<std::string>& items, bool condition, words& w);

}  // namespace shoal::accounting::edit_words
