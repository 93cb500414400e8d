#include "accounting/edit_words.hpp"

#include <strings.h>

#include <cstdlib>
#include <functional>

#include "accounting/associations.hpp"
#include "config/duration.hpp"

namespace shoal::accounting::edit_words {

error unknown_option(const std::string& item, bool condition) {
  return {errc::invalid_request,
          std::string{condition ? " Unknown condition: " : " Unknown option: "} + item +
              "\n Use keyword 'where' to modify condition"};
}

error bad_value(const std::string& key, const std::string& value) {
  return {errc::invalid_request, " Bad " + key + " value: " + value};
}

/// A count limit: a number, or -1 to clear.
shoal::expected<int64_t> count_value(const std::string& key, const std::string& value) {
  if (value == "-1") return int64_t{-1};
  char* end = nullptr;
  auto n = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || n < 0) return bad_value(key, value);
  return static_cast<int64_t>(n);
}

/// A wall limit in minutes, in Slurm's time forms; -1 (or UNLIMITED) clears.
shoal::expected<int64_t> minutes_value(const std::string& key, const std::string& value) {
  if (value == "-1") return int64_t{-1};
  auto s = config::parse_time_limit(value);
  if (!s) return bad_value(key, value);
  return *s < 0 ? int64_t{-1} : (*s + 59) / 60;
}

shoal::expected<std::string> tres_value(const std::string& key, const std::string& value,
                                        const std::string& old) {
  if (value == "-1") return std::string{};
  std::vector<std::pair<std::string, std::string>> kinds;
  for (auto& item : split_list(old)) {
    auto eq = item.find('=');
    kinds.emplace_back(item.substr(0, eq), eq == std::string::npos ? "" : item.substr(eq + 1));
  }
  for (auto& item : split_list(value)) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) return bad_value(key, value);
    auto kind = lower(item.substr(0, eq));
    auto amount = item.substr(eq + 1);
    if (amount.find_first_not_of("0123456789KMGTPkmgtp-") != std::string::npos)
      return bad_value(key, value);
    auto at = std::find_if(kinds.begin(), kinds.end(), [&](auto& k) { return k.first == kind; });
    if (amount == "-1") {
      if (at != kinds.end()) kinds.erase(at);
    } else if (at != kinds.end()) {
      at->second = amount;
    } else {
      kinds.emplace_back(kind, amount);
    }
  }
  std::string out;
  for (auto& [k, v] : kinds) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

error read_words(const std::vector<std::string>& items, bool condition, words& w) {
  for (auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos) {
      for (auto& n : split_list(item)) w.names.push_back(n);
      continue;
    }
    char op = '=';
    auto key_end = eq;
    if (eq > 0 && (item[eq - 1] == '+' || item[eq - 1] == '-')) {
      op = item[eq - 1];
      key_end = eq - 1;
    }
    auto key = lower(item.substr(0, key_end));
    auto value = item.substr(eq + 1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    auto is = [&](std::initializer_list<const char*> names) {
      return std::any_of(names.begin(), names.end(), [&](const char* n) { return key == n; });
    };
    auto count = [&](std::optional<int64_t>& slot, bool limit = true) -> error {
      auto n = count_value(item.substr(0, key_end), value);
      if (!n) return n.error();
      slot = *n;
      w.any_limit |= limit;
      return {};
    };
    auto minutes = [&](std::optional<int64_t>& slot) -> error {
      auto n = minutes_value(item.substr(0, key_end), value);
      if (!n) return n.error();
      slot = *n;
      w.any_limit = true;
      return {};
    };
    auto text = [&](std::optional<std::string>& slot, bool limit = false) {
      slot = value;
      w.any_limit |= limit;
    };
    error err;
    if (op != '=' && !is({"qos", "qoslevel", "preempt"})) return unknown_option(item, condition);
    if (is({"name", "names"}))
      for (auto& n : split_list(value)) w.names.push_back(n);
    else if (is({"account", "accounts", "acct", "accts"}))
      for (auto& n : split_list(value)) w.accounts.push_back(n);
    else if (is({"cluster", "clusters"}))
      for (auto& n : split_list(value)) w.clusters.push_back(n);
    else if (is({"partition", "partitions"}))
      for (auto& n : split_list(value)) w.partitions.push_back(n);
    else if (is({"user", "users"}))
      for (auto& n : split_list(value)) w.users.push_back(n);
    else if (is({"parent", "parentname"}))
      text(w.parent);
    else if (is({"description", "descr", "desc"}))
      text(w.description);
    else if (is({"organization", "org"}))
      text(w.organization);
    else if (is({"defaultaccount", "defaultacct", "defacct"}))
      text(w.default_account);
    else if (is({"adminlevel", "admin"}))
      text(w.admin_level);
    else if (is({"fairshare", "shares", "share"})) {
      if (lower(value) == "parent") return bad_value("Fairshare", value);
      err = count(w.shares);
    } else if (is({"priority"}))
      err = count(w.priority);
    else if (is({"grpjobs"}))
      err = count(w.grp_jobs);
    else if (is({"grpsubmitjobs", "grpsubmit"}))
      err = count(w.grp_submit);
    else if (is({"grptres"}))
      text(w.grp_tres, true);
    else if (is({"grpwall"}))
      err = minutes(w.grp_wall);
    else if (is({"maxjobs", "maxjobsperuser", "maxjobspu"}))
      err = count(w.max_jobs);
    else if (is({"maxsubmitjobs", "maxsubmit", "maxsubmitjobsperuser", "maxsubmitpu"}))
      err = count(w.max_submit);
    else if (is({"maxtres", "maxtresperjob", "maxtrespj"}))
      text(w.max_tres, true);
    else if (is({"maxwall", "maxwalldurationperjob"}))
      err = minutes(w.max_wall);
    else if (is({"qos", "qoslevel"})) {
      w.qos = qos_list_change{op, split_list(value)};
      w.any_limit = true;
    } else if (is({"defaultqos", "defqos"}))
      text(w.default_qos, true);
    else if (is({"flags"}))
      text(w.flags);
    else if (is({"usagefactor"})) {
      char* end = nullptr;
      auto f = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || f < 0) return bad_value("UsageFactor", value);
      w.usage_factor = f;
    } else if (is({"gracetime"})) {
      auto s = config::parse_time_limit(value);
      if (!s) return bad_value("GraceTime", value);
      w.grace = std::max<int64_t>(*s, 0);
    } else if (is({"maxtresperuser", "maxtrespu"}))
      text(w.max_tres_pu);
    else if (is({"maxtresperaccount", "maxtresperacct", "maxtrespa"}))
      text(w.max_tres_pa);
    else if (is({"maxjobsperaccount", "maxjobsperacct", "maxjobspa"}))
      err = count(w.max_jobs_pa, false);
    else if (is({"maxsubmitjobsperaccount", "maxsubmitjobsperacct", "maxsubmitpa"}))
      err = count(w.max_submit_pa, false);
    else if (is({"mintres", "mintresperjob"}))
      text(w.min_tres);
    else if (is({"preempt"}))
      w.preempt = qos_list_change{op, split_list(value)};
    else if (is({"preemptmode"}))
      text(w.preempt_mode);
    else
      return unknown_option(item, condition);
    if (err) return err;
  }
  return {};
}

}  // namespace shoal::accounting::edit_words
