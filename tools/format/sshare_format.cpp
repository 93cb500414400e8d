#include "tools/format/sshare_format.hpp"

#include <strings.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace shoal::cli {

namespace {

enum class field {
  account,
  effective_usage,
  fairshare,
  norm_shares,
  norm_usage,
  raw_shares,
  raw_usage,
  user,
  blank
};

struct entry {
  const char* name;
  int width;
  field f;
};

// process.c's table, in its order: a prefix of any length picks the first name it begins.
const entry table[] = {
    {"Account", -20, field::account},
    {"Cluster", 10, field::blank},
    {"EffectvUsage", 13, field::effective_usage},
    {"FairShare", 10, field::fairshare},
    {"GrpTRESMins", 30, field::blank},
    {"GrpTRESRaw", 30, field::blank},
    {"ID", 6, field::blank},
    {"LevelFS", 10, field::blank},
    {"NormShares", 11, field::norm_shares},
    {"NormUsage", 11, field::norm_usage},
    {"Partition", 12, field::blank},
    {"RawShares", 10, field::raw_shares},
    {"RawUsage", 11, field::raw_usage},
    {"TRESRunMins", 30, field::blank},
    {"User", 10, field::user},
};

struct column {
  const entry* e;
  int width;
};

/// print_fields_double's columns: "%*f", or "%*.*e" when that is too wide.
std::string fixed(double v, int len) {
  int abs_len = std::abs(len);
  char buf[128];
  std::snprintf(buf, sizeof buf, "%*f", abs_len, v);
  if (static_cast<int>(std::string{buf}.size()) <= abs_len) {
    std::snprintf(buf, sizeof buf, len == abs_len ? "%*f" : "%-*f", abs_len, v);
    return buf;
  }
  int width = abs_len;
  std::snprintf(buf, sizeof buf, "%*.*e", width, width, v);
  int extra = static_cast<int>(std::string{buf}.size());
  if (extra > width) width -= extra - width;
  std::snprintf(buf, sizeof buf, len == abs_len ? "%*.*e" : "%-*.*e", width, width, v);
  return buf;
}

std::string pad(std::string text, int len, bool cut_with_plus) {
  size_t abs_len = static_cast<size_t>(std::abs(len));
  if (text.size() > abs_len) {
    text.resize(abs_len);
    if (cut_with_plus && abs_len > 0) text.back() = '+';
  }
  auto fill = std::string(abs_len - text.size(), ' ');
  return len < 0 ? text + fill : fill + text;
}

}  // namespace

shoal::expected<std::string> render_sshare(const std::vector<policy::share_row>& rows,
                                           const sshare_options& opt) {
  std::vector<std::string> names = opt.format;
  if (names.empty())
    names = {"A", "User", "RawShares", "NormShares", "RawUsage", "Eff", "Fairshare"};
  std::vector<column> cols;
  for (auto item : names) {
    int width = 0;
    if (auto pct = item.find('%'); pct != std::string::npos) {
      width = std::atoi(item.c_str() + pct + 1);
      item.resize(pct);
    }
    const entry* found = nullptr;
    for (auto& e : table)
      if (strncasecmp(e.name, item.c_str(), item.size()) == 0) {
        found = &e;
        break;
      }
    if (!found || item.empty())
      return error{errc::invalid_request, "Invalid field requested: \"" + item + "\""};
    cols.push_back({found, width != 0 ? width : found->width});
  }
  std::string out;
  auto end_cell = [&](bool last) {
    if (opt.parsable == 0)
      out += ' ';
    else if (!(opt.parsable == 2 && last))
      out += '|';
  };
  if (!opt.no_header) {
    for (size_t i = 0; i < cols.size(); ++i) {
      out +=
          opt.parsable ? std::string{cols[i].e->name} : pad(cols[i].e->name, cols[i].width, false);
      end_cell(i + 1 == cols.size());
    }
    out += '\n';
    if (opt.parsable == 0) {
      for (auto& c : cols) out += std::string(static_cast<size_t>(std::abs(c.width)), '-') + ' ';
      out += '\n';
    }
  }
  auto wanted_account = [&](const policy::share_row& r) {
    return opt.accounts.empty() ||
           std::find(opt.accounts.begin(), opt.accounts.end(), r.account) != opt.accounts.end();
  };
  for (auto& r : rows) {
    if (!wanted_account(r)) continue;
    if (!r.user.empty() && !opt.all_users &&
        std::find(opt.users.begin(), opt.users.end(), r.user) == opt.users.end())
      continue;
    for (size_t i = 0; i < cols.size(); ++i) {
      const auto& c = cols[i];
      bool last = i + 1 == cols.size();
      bool is_root = r.user.empty() && r.account == "root" && r.depth == 0;
      // A value and whether it is a number (right-justified by its own printf) or text.
      std::string text;
      bool number = false;
      double d = 0;
      switch (c.e->f) {
        case field::account:
          // slurmdb_tree_name_get: an account one blank deeper than its parent; a user's line
          // names its account, one blank deeper than the account's own line.
          text = std::string(static_cast<size_t>(r.depth), ' ') + r.account;
          break;
        case field::user:
          text = r.user;
          break;
        case field::raw_shares:
          if (!is_root) text = std::to_string(r.raw_shares);
          break;
        case field::raw_usage:
          text = std::to_string(static_cast<uint64_t>(r.raw_usage));
          break;
        case field::norm_shares:
          number = true;
          d = r.norm_shares;
          break;
        case field::norm_usage:
          number = true;
          d = r.norm_usage;
          break;
        case field::effective_usage:
          number = true;
          d = r.effective_usage;
          break;
        case field::fairshare:
          number = !is_root;
          d = r.fairshare;
          break;
        case field::blank:
          break;
      }
      if (opt.parsable) {
        if (number) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%f", d);
          text = buf;
        }
        out += text;
      } else {
        out += number ? fixed(d, c.width)
                      : pad(text, c.width, c.e->f == field::account || c.e->f == field::user);
      }
      end_cell(last);
    }
    out += '\n';
  }
  return out;
}

}  // namespace shoal::cli
