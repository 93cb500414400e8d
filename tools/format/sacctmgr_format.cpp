#include "tools/format/sacctmgr_format.hpp"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "accounting/associations.hpp"

namespace shoal::cli {

namespace {

/// The fields shoal keeps (and those sacctmgr's defaults name, printed empty).
enum class field {
  account,
  admin,
  cluster,
  control_host,
  control_port,
  default_account,
  default_qos,
  description,
  flags,
  grace_time,
  grp_cpus,
  grp_cpu_mins,
  grp_cpu_run_mins,
  grp_tres,
  grp_tres_mins,
  grp_tres_run_mins,
  grp_jobs,
  grp_jobs_accrue,
  grp_mem,
  grp_nodes,
  grp_submit,
  grp_wall,
  id,
  max_cpu_mins,
  max_cpu_run_mins_pu,
  max_cpus,
  max_cpus_pu,
  max_tres,
  max_tres_per_node,
  max_tres_mins,
  max_tres_run_mins_pa,
  max_tres_run_mins_pu,
  max_tres_pa,
  max_tres_pu,
  max_jobs,
  max_jobs_accrue,
  max_jobs_pa,
  max_jobs_pu,
  max_nodes,
  max_nodes_pu,
  min_prio_threshold,
  max_submit,
  max_submit_pa,
  max_submit_pu,
  max_wall,
  min_cpus,
  min_tres,
  name,
  organization,
  parent_id,
  parent_name,
  partition,
  preempt_mode,
  preempt,
  preempt_exempt_time,
  priority,
  qos,
  qos_raw,
  rpc,
  share,
  usage_factor,
  usage_threshold,
  limit_factor,
  user,
};

/// How print_fields.c prints a kind of value.
enum class kind { str, uint, time_mins, time_secs, dbl };

/// One name of common.c's _get_print_field: `name` matches a word that is a case-insensitive
/// prefix of it at least `min` long.
struct entry {
  const char* name;
  int min;
  field f;
  const char* header;
  int width;
  kind k;
};

// In common.c's order, which decides between names sharing a prefix.
// clang-format off
const entry table[] = {
  {"Account", 3, field::account, "Account", 10, kind::str},
  {"Acct", 4, field::account, "Account", 10, kind::str},
  {"AdminLevel", 2, field::admin, "Admin", 9, kind::str},
  {"Clusters", 2, field::cluster, "Cluster", 10, kind::str},
  {"ControlHost", 8, field::control_host, "ControlHost", 15, kind::str},
  {"ControlPort", 8, field::control_port, "ControlPort", 12, kind::uint},
  {"DefaultAccount", 8, field::default_account, "Def Acct", 10, kind::str},
  {"DefaultQOS", 8, field::default_qos, "Def QOS", 9, kind::str},
  {"Description", 3, field::description, "Descr", 20, kind::str},
  {"Flags", 2, field::flags, "Flags", 20, kind::str},
  {"GraceTime", 3, field::grace_time, "GraceTime", 10, kind::time_secs},
  {"GrpCPUs", 6, field::grp_cpus, "GrpCPUs", 8, kind::uint},
  {"GrpCPUMins", 7, field::grp_cpu_mins, "GrpCPUMins", 11, kind::uint},
  {"GrpCPURunMins", 7, field::grp_cpu_run_mins, "GrpCPURunMins", 13, kind::uint},
  {"GrpTRES", 7, field::grp_tres, "GrpTRES", 13, kind::str},
  {"GrpTRESMins", 7, field::grp_tres_mins, "GrpTRESMins", 13, kind::str},
  {"GrpTRESRunMins", 7, field::grp_tres_run_mins, "GrpTRESRunMins", 13, kind::str},
  {"GrpJobs", 4, field::grp_jobs, "GrpJobs", 7, kind::uint},
  {"GrpJobsAccrue", 8, field::grp_jobs_accrue, "GrpJobsAccrue", 13, kind::uint},
  {"GrpMemory", 4, field::grp_mem, "GrpMem", 7, kind::uint},
  {"GrpNodes", 4, field::grp_nodes, "GrpNodes", 8, kind::uint},
  {"GrpSubmitJobs", 4, field::grp_submit, "GrpSubmit", 9, kind::uint},
  {"GrpWall", 4, field::grp_wall, "GrpWall", 11, kind::time_mins},
  {"ID", 2, field::id, "ID", 6, kind::uint},
  {"MaxCPUMinsPerJob", 7, field::max_cpu_mins, "MaxCPUMins", 11, kind::uint},
  {"MaxCPURunMinsPerUser", 7, field::max_cpu_run_mins_pu, "MaxCPURunMinsPU", 15, kind::uint},
  {"MaxCPURunMinsPU", 7, field::max_cpu_run_mins_pu, "MaxCPURunMinsPU", 15, kind::uint},
  {"MaxCPUsPerJob", 7, field::max_cpus, "MaxCPUs", 8, kind::uint},
  {"MaxCPUsPerUser", 11, field::max_cpus_pu, "MaxCPUsPU", 9, kind::uint},
  {"MaxCPUsPU", 9, field::max_cpus_pu, "MaxCPUsPU", 9, kind::uint},
  {"MaxTRES", 7, field::max_tres, "MaxTRES", 13, kind::str},
  {"MaxTRESPerJob", 11, field::max_tres, "MaxTRES", 13, kind::str},
  {"MaxTRESPerNode", 11, field::max_tres_per_node, "MaxTRESPerNode", 14, kind::str},
  {"MaxTRESMinsPerJob", 8, field::max_tres_mins, "MaxTRESMins", 13, kind::str},
  {"MaxTRESRunMinsPerAccount", 18, field::max_tres_run_mins_pa, "MaxTRESRunMinsPA", 15, kind::str},
  {"MaxTRESRunMinsPerAcct", 18, field::max_tres_run_mins_pa, "MaxTRESRunMinsPA", 15, kind::str},
  {"MaxTRESRunMinsPA", 15, field::max_tres_run_mins_pa, "MaxTRESRunMinsPA", 15, kind::str},
  {"MaxTRESRunMinsPerUser", 8, field::max_tres_run_mins_pu, "MaxTRESRunMinsPU", 15, kind::str},
  {"MaxTRESRunMinsPU", 8, field::max_tres_run_mins_pu, "MaxTRESRunMinsPU", 15, kind::str},
  {"MaxTRESPerAccount", 11, field::max_tres_pa, "MaxTRESPA", 13, kind::str},
  {"MaxTRESPerAcct", 11, field::max_tres_pa, "MaxTRESPA", 13, kind::str},
  {"MaxTRESPA", 9, field::max_tres_pa, "MaxTRESPA", 13, kind::str},
  {"MaxTRESPerUser", 11, field::max_tres_pu, "MaxTRESPU", 13, kind::str},
  {"MaxTRESPU", 9, field::max_tres_pu, "MaxTRESPU", 13, kind::str},
  {"MaxJobs", 4, field::max_jobs, "MaxJobs", 7, kind::uint},
  {"MaxJobsAccrue", 4, field::max_jobs_accrue, "MaxJobsAccrue", 13, kind::uint},
  {"MaxJobsPerAccount", 11, field::max_jobs_pa, "MaxJobsPA", 9, kind::uint},
  {"MaxJobsPerAcct", 11, field::max_jobs_pa, "MaxJobsPA", 9, kind::uint},
  {"MaxJobsPA", 9, field::max_jobs_pa, "MaxJobsPA", 9, kind::uint},
  {"MaxJobsPerUser", 11, field::max_jobs_pu, "MaxJobsPU", 9, kind::uint},
  {"MaxJobsPU", 9, field::max_jobs_pu, "MaxJobsPU", 9, kind::uint},
  {"MaxNodesPerJob", 4, field::max_nodes, "MaxNodes", 8, kind::uint},
  {"MaxNodesPerUser", 12, field::max_nodes_pu, "MaxNodesPU", 10, kind::uint},
  {"MaxNodesPU", 10, field::max_nodes_pu, "MaxNodesPU", 10, kind::uint},
  {"MinPrioThreshold", 4, field::min_prio_threshold, "MinPrioThres", 12, kind::uint},
  {"MaxSubmitJobs", 4, field::max_submit, "MaxSubmit", 9, kind::uint},
  {"MaxSubmitJobsPerAccount", 17, field::max_submit_pa, "MaxSubmitPA", 11, kind::uint},
  {"MaxSubmitJobsPerAcct", 17, field::max_submit_pa, "MaxSubmitPA", 11, kind::uint},
  {"MaxSubmitJobsPA", 15, field::max_submit_pa, "MaxSubmitPA", 11, kind::uint},
  {"MaxSubmitPA", 11, field::max_submit_pa, "MaxSubmitPA", 11, kind::uint},
  {"MaxSubmitJobsPerUser", 10, field::max_submit_pu, "MaxSubmitPU", 11, kind::uint},
  {"MaxSubmitJobsPU", 10, field::max_submit_pu, "MaxSubmitPU", 11, kind::uint},
  {"MaxSubmitPU", 6, field::max_submit_pu, "MaxSubmitPU", 11, kind::uint},
  {"MaxWallDurationPerJob", 4, field::max_wall, "MaxWall", 11, kind::time_mins},
  {"MinCPUsPerJob", 7, field::min_cpus, "MinCPUs", 8, kind::uint},
  {"MinTRESPerJob", 7, field::min_tres, "MinTRES", 13, kind::str},
  {"Name", 2, field::name, "Name", 10, kind::str},
  {"Organization", 1, field::organization, "Org", 20, kind::str},
  {"ParentID", 7, field::parent_id, "ParentID", 8, kind::uint},
  {"ParentName", 7, field::parent_name, "ParentName", 10, kind::str},
  {"Partition", 4, field::partition, "Partition", 10, kind::str},
  {"PreemptMode", 8, field::preempt_mode, "PreemptMode", 11, kind::str},
  {"Preempt", 7, field::preempt, "Preempt", 10, kind::str},
  {"PreemptExemptTime", 8, field::preempt_exempt_time, "PreemptExemptTime", 19, kind::time_secs},
  {"Priority", 3, field::priority, "Priority", 10, kind::uint},
  {"QOSLevel", 3, field::qos, "QOS", 20, kind::str},
  {"QOSRAWLevel", 4, field::qos_raw, "QOS_RAW", 10, kind::str},
  {"RPC", 1, field::rpc, "RPC", 5, kind::uint},
  {"Share", 1, field::share, "Share", 9, kind::uint},
  {"FairShare", 2, field::share, "Share", 9, kind::uint},
  {"UsageFactor", 6, field::usage_factor, "UsageFactor", 11, kind::dbl},
  {"UsageThreshold", 6, field::usage_threshold, "UsageThres", 10, kind::dbl},
  {"LimitFactor", 6, field::limit_factor, "LimitFactor", 11, kind::dbl},
  {"User", 1, field::user, "User", 10, kind::str},
};
// clang-format on

struct column {
  const entry* e;
  int width;
};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

shoal::expected<std::vector<column>> parse_columns(const std::vector<std::string>& names) {
  std::vector<column> out;
  for (auto item : names) {
    int width = 0;
    if (auto pct = item.find('%'); pct != std::string::npos) {
      width = std::atoi(item.c_str() + pct + 1);
      item.resize(pct);
    }
    const entry* found = nullptr;
    for (auto& e : table) {
      auto n = std::max<size_t>(item.size(), static_cast<size_t>(e.min));
      if (strncasecmp(e.name, item.c_str(), n) == 0) {
        found = &e;
        break;
      }
    }
    if (!found) return error{errc::invalid_request, "Unknown field '" + item + "'"};
    out.push_back({found, width != 0 ? width : found->width});
  }
  return out;
}

/// A value as sacctmgr has it: unset prints blank.
struct value {
  bool set = false;
  std::string text;
};

value text(const std::string& s) {
  return {!s.empty(), s};
}
value number(int64_t n) {
  if (n < 0) return {};
  return {true, std::to_string(n)};
}
value duration(int64_t n, bool minutes) {
  if (n < 0) return {};
  int64_t secs = minutes ? n * 60 : n;
  char buf[64];
  long days = static_cast<long>(secs / 86400), hours = static_cast<long>(secs / 3600 % 24),
       mins = static_cast<long>(secs / 60 % 60), s = static_cast<long>(secs % 60);
  if (days)
    std::snprintf(buf, sizeof buf, "%ld-%2.2ld:%2.2ld:%2.2ld", days, hours, mins, s);
  else
    std::snprintf(buf, sizeof buf, "%2.2ld:%2.2ld:%2.2ld", hours, mins, s);
  return {true, buf};
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

/// What one line prints from: any of these may be missing (its fields print blank).
struct line {
  const msg::acct_cluster* cluster = nullptr;
  const msg::acct_account* account = nullptr;
  const msg::acct_user* user = nullptr;
  const msg::association* assoc = nullptr;
  const msg::qos_info* qos = nullptr;
};

value value_of(field f, const line& l) {
  const auto* a = l.assoc;
  const auto* q = l.qos;
  switch (f) {
    case field::account:
      if (a) return text(a->account);
      return l.account ? text(l.account->name) : value{};
    case field::admin:
      return l.user ? text(l.user->admin_level) : value{};
    case field::cluster:
      if (a) return text(a->cluster);
      return l.cluster ? text(l.cluster->name) : value{};
    case field::control_host:
      return l.cluster ? text(l.cluster->control_host) : value{};
    case field::control_port:
      return l.cluster ? number(l.cluster->control_port) : value{};
    case field::rpc:
      // Slurm 22.05's protocol version, for a cluster whose controller registered.
      return l.cluster ? number(l.cluster->control_host.empty() ? 0 : 9728) : value{};
    case field::default_account:
      return l.user ? text(l.user->default_account) : value{};
    case field::default_qos:
      return a ? text(a->default_qos) : value{};
    case field::description:
      if (q) return text(q->description);
      return l.account ? text(l.account->description) : value{};
    case field::organization:
      return l.account ? text(l.account->organization) : value{};
    case field::flags:
      return q ? text(q->flags) : value{};
    case field::grace_time:
      return q ? duration(q->grace_time_s, false) : value{};
    case field::grp_tres:
      if (q) return text(q->grp_tres);
      return a ? text(a->grp_tres) : value{};
    case field::grp_jobs:
      if (q) return number(q->grp_jobs);
      return a ? number(a->grp_jobs) : value{};
    case field::grp_submit:
      if (q) return number(q->grp_submit);
      return a ? number(a->grp_submit) : value{};
    case field::grp_wall:
      if (q) return duration(q->grp_wall_min, true);
      return a ? duration(a->grp_wall_min, true) : value{};
    case field::max_tres:
      if (q) return text(q->max_tres);
      return a ? text(a->max_tres) : value{};
    case field::max_tres_pa:
      return q ? text(q->max_tres_per_account) : value{};
    case field::max_tres_pu:
      return q ? text(q->max_tres_per_user) : value{};
    case field::max_jobs:
    case field::max_jobs_pu:
      if (q) return number(q->max_jobs_per_user);
      return a ? number(a->max_jobs) : value{};
    case field::max_jobs_pa:
      return q ? number(q->max_jobs_per_account) : value{};
    case field::max_submit:
    case field::max_submit_pu:
      if (q) return number(q->max_submit_per_user);
      return a ? number(a->max_submit) : value{};
    case field::max_submit_pa:
      return q ? number(q->max_submit_per_account) : value{};
    case field::max_wall:
      if (q) return duration(q->max_wall_min, true);
      return a ? duration(a->max_wall_min, true) : value{};
    case field::min_tres:
      return q ? text(q->min_tres) : value{};
    case field::name:
      if (q) return text(q->name);
      if (l.cluster) return text(l.cluster->name);
      if (l.account) return text(l.account->name);
      return l.user ? text(l.user->name) : value{};
    case field::parent_name:
      return a && a->user.empty() ? text(a->parent) : value{};
    case field::partition:
      return a ? text(a->partition) : value{};
    case field::preempt:
      return q ? text(join(q->preempt)) : value{};
    case field::preempt_mode:
      if (!q) return {};
      return text(q->preempt_mode.empty() ? std::string{"cluster"} : q->preempt_mode);
    case field::priority:
      if (q) return number(q->priority);
      return a ? number(a->priority) : value{};
    case field::qos:
      return a ? text(join(a->qos)) : value{};
    case field::share:
      return a ? number(a->shares) : value{};
    case field::usage_factor:
      if (!q) return {};
      {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%f", q->usage_factor);
        return {true, buf};
      }
    case field::user:
      if (a) return text(a->user);
      return l.user ? text(l.user->name) : value{};
    default:
      return {};
  }
}

void print_cell(std::string& out, const column& c, const value& v, bool last,
                const acctmgr_print_options& opt) {
  if (opt.parsable != 0) {
    out += v.set ? v.text : "";
    if (!(opt.parsable == 2 && last)) out += opt.delimiter;
    return;
  }
  int abs_len = std::abs(c.width);
  bool right = c.width == abs_len;
  auto t = v.set ? v.text : std::string{};
  if (c.e->k == kind::str && static_cast<int>(t.size()) > abs_len) {
    t.resize(static_cast<size_t>(abs_len));
    if (abs_len > 0) t.back() = '+';
  } else if ((c.e->k == kind::time_mins || c.e->k == kind::time_secs) &&
             static_cast<int>(t.size()) > abs_len) {
    t.resize(static_cast<size_t>(abs_len));
  }
  auto pad = abs_len > static_cast<int>(t.size()) ? abs_len - t.size() : 0;
  out += right ? std::string(pad, ' ') + t : t + std::string(pad, ' ');
  out += ' ';
}

std::string header(const std::vector<column>& cols, const acctmgr_print_options& opt) {
  if (opt.no_header) return {};
  std::string out;
  for (size_t i = 0; i < cols.size(); ++i) {
    auto& c = cols[i];
    bool last = i + 1 == cols.size();
    if (opt.parsable != 0) {
      out += c.e->header;
      if (!(opt.parsable == 2 && last)) out += opt.delimiter;
      continue;
    }
    int abs_len = std::abs(c.width);
    std::string h = c.e->header;
    if (static_cast<int>(h.size()) > abs_len) h.resize(static_cast<size_t>(abs_len));
    auto pad = std::string(static_cast<size_t>(abs_len) - h.size(), ' ');
    out += (c.width == abs_len ? pad + h : h + pad) + " ";
  }
  out += "\n";
  if (opt.parsable != 0) return out;
  for (auto& c : cols) out += std::string(static_cast<size_t>(std::abs(c.width)), '-') + " ";
  return out + "\n";
}

std::string row(const std::vector<column>& cols, const line& l, const acctmgr_print_options& opt) {
  std::string out;
  for (size_t i = 0; i < cols.size(); ++i)
    print_cell(out, cols[i], value_of(cols[i].e->f, l), i + 1 == cols.size(), opt);
  return out + "\n";
}

/// The conditions a list takes.
struct conditions {
  std::vector<std::string> names, clusters, accounts, users, partitions, parents, default_accounts,
      admin_levels;
  std::vector<std::string> format;
  bool with_assoc = false;
};

shoal::expected<conditions> read_conditions(const std::vector<std::string>& words) {
  conditions c;
  for (auto& w : words) {
    auto lw = accounting::lower(w);
    if (lw == "where" || lw == "set") continue;
    if (lw == "withassoc" || lw == "withassocs" || lw == "withassociations") {
      c.with_assoc = true;
      continue;
    }
    auto eq = w.find('=');
    if (eq == std::string::npos) {
      for (auto& n : accounting::split_list(w)) c.names.push_back(n);
      continue;
    }
    auto key = accounting::lower(w.substr(0, eq));
    auto values = accounting::split_list(w.substr(eq + 1));
    auto add = [&](std::vector<std::string>& to) {
      to.insert(to.end(), values.begin(), values.end());
    };
    if (key == "format" || key == "formats")
      add(c.format);
    else if (key == "name" || key == "names")
      add(c.names);
    else if (key == "cluster" || key == "clusters")
      add(c.clusters);
    else if (key == "account" || key == "accounts" || key == "acct" || key == "accts")
      add(c.accounts);
    else if (key == "user" || key == "users")
      add(c.users);
    else if (key == "partition" || key == "partitions")
      add(c.partitions);
    else if (key == "parent" || key == "parentname")
      add(c.parents);
    else if (key == "defaultaccount" || key == "defaultacct" || key == "defacct")
      add(c.default_accounts);
    else if (key == "adminlevel" || key == "admin") {
      for (auto& v : values) c.admin_levels.push_back(accounting::admin_level_name(v));
    } else
      return error{errc::invalid_request,
                   " Unknown condition: " + w + "\n Use keyword 'set' to modify value"};
  }
  return c;
}

bool keep(const std::vector<std::string>& wanted, const std::string& v) {
  return wanted.empty() || contains(wanted, v);
}

bool assoc_kept(const conditions& c, const msg::association& a) {
  return keep(c.clusters, a.cluster) && keep(c.partitions, a.partition) &&
         (c.parents.empty() || (a.user.empty() && contains(c.parents, a.parent)));
}

}  // namespace

std::string acctmgr_entity(std::string_view word) {
  auto w = accounting::lower(word);
  auto is = [&](const char* full, size_t min) {
    return w.size() >= min && std::string_view{full}.substr(0, w.size()) == w;
  };
  if (is("associations", 3)) return "association";
  if (is("accounts", 3)) return "account";
  if (is("users", 1)) return "user";
  if (is("qos", 1)) return "qos";
  if (is("clusters", 1)) return "cluster";
  return {};
}

shoal::expected<std::string> render_acctmgr_list(const msg::association_data& data,
                                                 const acctmgr_listing& listing,
                                                 const acctmgr_print_options& opt) {
  auto c = read_conditions(listing.words);
  if (!c) return c.error();
  const auto& e = listing.entity;
  std::string defaults;
  if (e == "user") {
    defaults = "U,DefaultA,Ad";
    if (c->with_assoc)
      defaults +=
          ",Cl,Acc,Part,Share,Priority,MaxJ,MaxN,MaxCPUs,MaxS,MaxW,MaxCPUMins,QOS,DefaultQOS";
  } else if (e == "account") {
    defaults = "Acc,Des,O";
    if (c->with_assoc)
      defaults +=
          ",Cl,ParentN,U,Share,Priority,GrpJ,GrpN,GrpCPUs,GrpMEM,GrpS,GrpWall,GrpCPUMins,MaxJ,"
          "MaxN,MaxCPUs,MaxS,MaxW,MaxCPUMins,QOS,DefaultQOS";
  } else if (e == "association") {
    defaults =
        "Cluster,Account,User,Part,Share,Priority,GrpJ,GrpTRES,GrpS,GrpWall,GrpTRESMins,MaxJ,"
        "MaxTRES,MaxTRESPerN,MaxS,MaxW,MaxTRESMins,QOS,DefaultQOS,GrpTRESRunMins";
  } else if (e == "qos") {
    defaults =
        "Name,Prio,GraceT,Preempt,PreemptE,PreemptM,Flags%40,UsageThres,UsageFactor,GrpTRES,"
        "GrpTRESMins,GrpTRESRunMins,GrpJ,GrpS,GrpW,MaxTRES,MaxTRESPerN,MaxTRESMins,MaxW,"
        "MaxTRESPerUser,MaxJobsPerUser,MaxSubmitJobsPerUser,MaxTRESPerAcct,MaxJobsPerAcct,"
        "MaxSubmitJobsPerAcct,MinTRES";
  } else {
    defaults =
        "Cl,Controlh,Controlp,RPC,Fa,GrpJ,GrpTRES,GrpS,MaxJ,MaxTRES,MaxS,MaxW,QOS,DefaultQOS";
  }
  auto cols = parse_columns(c->format.empty() ? accounting::split_list(defaults) : c->format);
  if (!cols) return cols.error();
  std::string out = header(*cols, opt);
  auto order = accounting::tree_order(data);
  // slurmdbd answers each kind by name.
  auto by_name = [](auto rows) {
    std::sort(rows.begin(), rows.end(), [](auto& x, auto& y) { return x.name < y.name; });
    return rows;
  };
  const msg::association_data sorted{
      by_name(data.clusters), by_name(data.accounts), by_name(data.users), {}, by_name(data.qos)};
  if (e == "user") {
    auto names = c->names;
    names.insert(names.end(), c->users.begin(), c->users.end());
    for (auto& u : sorted.users) {
      if (!keep(names, u.name) || !keep(c->default_accounts, u.default_account) ||
          !keep(c->admin_levels, u.admin_level))
        continue;
      if (!c->with_assoc) {
        out += row(*cols, {nullptr, nullptr, &u, nullptr, nullptr}, opt);
        continue;
      }
      for (auto* a : order)
        if (a->user == u.name && assoc_kept(*c, *a) && keep(c->accounts, a->account))
          out += row(*cols, {nullptr, nullptr, &u, a, nullptr}, opt);
    }
  } else if (e == "account") {
    auto names = c->names;
    names.insert(names.end(), c->accounts.begin(), c->accounts.end());
    for (auto& acct : sorted.accounts) {
      if (!keep(names, acct.name)) continue;
      if (!c->with_assoc) {
        if (!c->parents.empty() &&
            std::none_of(data.associations.begin(), data.associations.end(),
                         [&](auto& a) { return a.account == acct.name && assoc_kept(*c, a); }))
          continue;
        out += row(*cols, {nullptr, &acct, nullptr, nullptr, nullptr}, opt);
        continue;
      }
      for (auto* a : order)
        if (a->account == acct.name && assoc_kept(*c, *a) && keep(c->users, a->user))
          out += row(*cols, {nullptr, &acct, nullptr, a, nullptr}, opt);
    }
  } else if (e == "association") {
    auto users = c->users;
    for (auto* a : order) {
      if (!assoc_kept(*c, *a) || !keep(c->accounts, a->account) || !keep(users, a->user)) continue;
      const msg::acct_user* u = nullptr;
      for (auto& x : data.users)
        if (x.name == a->user) u = &x;
      out += row(*cols, {nullptr, nullptr, u, a, nullptr}, opt);
    }
  } else if (e == "qos") {
    for (auto& q : sorted.qos)
      if (keep(c->names, q.name)) out += row(*cols, {nullptr, nullptr, nullptr, nullptr, &q}, opt);
  } else {
    auto names = c->names;
    names.insert(names.end(), c->clusters.begin(), c->clusters.end());
    for (auto& cl : sorted.clusters) {
      if (!keep(names, cl.name)) continue;
      const msg::association* root = nullptr;
      for (auto& a : data.associations)
        if (a.cluster == cl.name && a.account == "root" && a.user.empty()) root = &a;
      out += row(*cols, {&cl, nullptr, nullptr, root, nullptr}, opt);
    }
  }
  return out;
}

}  // namespace shoal::cli
