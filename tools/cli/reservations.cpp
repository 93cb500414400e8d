#include "tools/cli/reservations.hpp"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "messages/caf/type_ids.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/identity.hpp"
#include "tools/cli/will_run.hpp"

namespace shoal::cli {

namespace {

std::string reservation_null_or(const std::string& text) {
  return text.empty() ? "(null)" : text;
}

/// scontrol's duration: "D-HH:MM:SS" from a day on, "HH:MM:SS" under it.
std::string reservation_duration(int64_t seconds) {
  char buf[48];
  int64_t days = seconds / 86400;
  int64_t rest = seconds % 86400;
  if (days > 0)
    std::snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:%02lld", static_cast<long long>(days),
                  static_cast<long long>(rest / 3600), static_cast<long long>(rest % 3600 / 60),
                  static_cast<long long>(rest % 60));
  else
    std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", static_cast<long long>(rest / 3600),
                  static_cast<long long>(rest % 3600 / 60), static_cast<long long>(rest % 60));
  return buf;
}

/// A record's lines joined by blanks, as scontrol -o prints it.
std::string reservation_one_line(std::string record) {
  while (!record.empty() && record.back() == '\n') record.pop_back();
  std::string out;
  for (size_t i = 0; i < record.size(); ++i) {
    if (record[i] != '\n') {
      out.push_back(record[i]);
      continue;
    }
    out.push_back(' ');
    while (i + 1 < record.size() && record[i + 1] == ' ') ++i;
  }
  return out + "\n";
}

}  // namespace

bool names_reservation(const std::string& word) {
  auto key = word.substr(0, word.find('='));
  std::string full = "reservationname";
  return key.size() >= 3 && key.size() <= full.size() &&
         strncasecmp(key.c_str(), full.c_str(), key.size()) == 0;
}

std::string render_reservation(const msg::reservation_info& r) {
  std::string end = r.end_time == 0 ? "Unknown" : slurm_time(r.end_time);
  std::string duration =
      r.end_time == 0 ? "UNLIMITED" : reservation_duration(r.end_time - r.start_time);
  std::string out = "ReservationName=" + r.name + " StartTime=" + slurm_time(r.start_time) +
                    " EndTime=" + end + " Duration=" + duration + "\n";
  out += "   Nodes=" + reservation_null_or(r.nodes) + " NodeCnt=" + std::to_string(r.node_count) +
         " CoreCnt=" + std::to_string(r.core_count) +
         " Features=(null) PartitionName=" + reservation_null_or(r.partition) +
         " Flags=" + r.flags + "\n";
  out += "   TRES=cpu=" + std::to_string(r.core_count) + "\n";
  out += "   Users=" + reservation_null_or(r.users) +
         " Groups=(null) Accounts=" + reservation_null_or(r.accounts) +
         " Licenses=(null) State=" + (r.active ? "ACTIVE" : "INACTIVE") +
         " BurstBuffer=(null) Watts=n/a\n";
  out += "   MaxStartDelay=(null)\n\n";
  return out;
}

int edit_reservation(session& s, const std::string& action, const std::vector<std::string>& words) {
  msg::reservation_edit edit;
  edit.action = action;
  for (auto& c : edit.action) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  edit.user = current_user().name;
  for (auto& w : words) {
    auto eq = w.find('=');
    if (edit.action != "create" && names_reservation(w) && edit.name.empty() &&
        eq != std::string::npos)
      edit.name = w.substr(eq + 1);
    else
      edit.settings.push_back(w);
  }
  if (edit.action != "create" && edit.name.empty()) {
    std::fprintf(stderr, "Reservation must be given.  No reservation %s.\n",
                 edit.action == "update" ? "update" : "deleted");
    return 1;
  }
  auto done = ask<std::string>(s, msg::resv_atom_v, std::move(edit));
  if (!done) {
    std::fprintf(stderr, "%s\n", describe(done.error()).c_str());
    return 1;
  }
  if (!done->empty()) std::printf("%s\n", done->c_str());
  return 0;
}

int show_reservations(session& s, const std::string& name, bool one_line) {
  auto all = ask<std::vector<msg::reservation_info>>(s, msg::client_op::reservations);
  if (!all) return fail("control", describe(all.error()));
  if (all->empty()) {
    std::printf("No reservations in the system\n");
    return 0;
  }
  bool found = false;
  for (auto& r : *all) {
    if (!name.empty() && r.name != name) continue;
    found = true;
    auto record = render_reservation(r);
    std::fputs(one_line ? reservation_one_line(record).c_str() : record.c_str(), stdout);
  }
  if (!found) {
    std::printf("Reservation %s not found\n", name.c_str());
    return 1;
  }
  return 0;
}

int print_sinfo_reservations(session& s, bool no_header) {
  auto all = ask<std::vector<msg::reservation_info>>(s, msg::client_op::reservations);
  if (!all) return fail("info", describe(all.error()));
  if (all->empty()) {
    std::printf("No reservations in the system\n");
    return 0;
  }
  int width = 9;
  for (auto& r : *all) width = std::max(width, static_cast<int>(r.name.size()));
  if (!no_header)
    std::printf("%-*s  %8s  %19s  %19s  %11s  %s\n", width, "RESV_NAME", "STATE", "START_TIME",
                "END_TIME", "DURATION", "NODELIST");
  for (auto& r : *all) {
    auto end = r.end_time == 0 ? std::string{"Unknown"} : slurm_time(r.end_time);
    auto duration = r.end_time == 0 ? std::string{"UNLIMITED"}
                                    : reservation_duration(r.end_time - r.start_time);
    std::printf("%-*s  %8s  %19s  %19s  %11s  %s\n", width, r.name.c_str(),
                r.active ? "ACTIVE" : "INACTIVE", slurm_time(r.start_time).c_str(), end.c_str(),
                duration.c_str(), r.nodes.c_str());
  }
  return 0;
}

}  // namespace shoal::cli
