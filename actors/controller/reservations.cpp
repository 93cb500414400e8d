#include <algorithm>
#include <set>

#include "actors/controller/controller_state.hpp"
#include "cluster/clock.hpp"
#include "cluster/reservation.hpp"
#include "topology/hostlist.hpp"

namespace shoal::actors::ctl {

namespace {

/// The key the reservations are saved under, whole, after every change.
const std::string reservations_key = "reservations";

using cluster::reservation;

caf::error reservation_refusal(const std::string& why) {
  return make_error(errc::invalid_request, why);
}

std::vector<reservation>::iterator reservation_named(controller_state& st,
                                                     const std::string& name) {
  return std::find_if(st.reservations.begin(), st.reservations.end(),
                      [&](const reservation& r) { return r.name == name; });
}

/// What runs now, node by node, until the ends its time limits give.
std::vector<cluster::busy_node> reservation_busy_nodes(const controller_state& st) {
  std::vector<cluster::busy_node> out;
  for (auto& [id, job] : st.job_view) {
    if (job.state == msg::job_state::pending || msg::is_finished(job.state)) continue;
    int64_t end = job.time_limit_s < 0 || job.start_time == 0 ? policy::forever
                                                              : job.start_time + job.time_limit_s;
    auto names = topology::expand_hostlist(job.nodelist);
    if (!names) continue;
    for (auto& n : *names) out.push_back({n, end});
  }
  return out;
}

/// Slurm's name for an unnamed reservation: its first user's (or account's) name and a number.
std::string unnamed_reservation(const controller_state& st, const cluster::reservation_words& w) {
  std::string stem = w.users && !w.users->empty()         ? w.users->front()
                     : w.accounts && !w.accounts->empty() ? w.accounts->front()
                                                          : "resv";
  for (int n = 1;; ++n) {
    auto name = stem + "_" + std::to_string(n);
    if (std::none_of(st.reservations.begin(), st.reservations.end(),
                     [&](const reservation& r) { return r.name == name; }))
      return name;
  }
}

/// The nodes a NodeCnt= picks: idle ones, of the partition when one is named.
std::vector<std::string> reservation_count_candidates(const controller_state& st,
                                                      const reservation& r) {
  std::vector<std::string> out;
  for (auto& n : st.cfg.nodes) {
    if (!r.partition.empty() &&
        std::find(n.partitions.begin(), n.partitions.end(), r.partition) == n.partitions.end())
      continue;
    auto view = st.node_view.find(n.name);
    if (view != st.node_view.end() && view->second.state == msg::node_state::idle)
      out.push_back(n.name);
  }
  return out;
}

/// slurmctld's checks of a new or changed reservation against the cluster, its jobs and the
/// other reservations; picks the nodes of a NodeCnt=.
std::optional<caf::error> settle_reservation(controller_state& st, reservation& r,
                                             const cluster::reservation_words& words, int64_t now) {
  if (!r.partition.empty() &&
      std::none_of(st.cfg.partitions.begin(), st.cfg.partitions.end(),
                   [&](const config::partition_config& p) { return p.name == r.partition; }))
    return reservation_refusal("Invalid partition name specified");
  std::vector<reservation> others;
  for (auto& o : st.reservations)
    if (o.name != r.name) others.push_back(o);
  auto running = reservation_busy_nodes(st);
  bool counted = r.nodes.empty() && r.node_count > 0;
  if (counted) {
    r.nodes = cluster::pick_nodes(r, r.node_count, reservation_count_candidates(st, r), running,
                                  others, now);
    if (r.nodes.empty()) return reservation_refusal("Requested nodes are busy");
  } else if (r.nodes.empty() && !r.partition.empty()) {
    for (auto& n : st.cfg.nodes)
      if (std::find(n.partitions.begin(), n.partitions.end(), r.partition) != n.partitions.end())
        r.nodes.push_back(n.name);
  }
  if (r.nodes.empty()) return reservation_refusal("Requested nodes are busy");
  bool recheck = !counted || words.start || words.end || words.duration || words.flags;
  if (recheck && !r.flags.ignore_jobs && cluster::nodes_busy(r, running, now))
    return reservation_refusal("Requested nodes are busy");
  for (auto& o : others)
    if (cluster::conflicts(r, o, now))
      return reservation_refusal("Requested reservation overlaps with another reservation");
  return std::nullopt;
}

/// The table changed: saved whole, and the topology actor places by it from the next pass.
void save_and_publish_reservations(controller_self self) {
  auto& st = self->state;
  msg::reservations_record rec;
  for (auto& r : st.reservations) rec.reservations.push_back(cluster::info_of(r, 0));
  persist(self, reservations_key, encoded(rec));
  publish_reservations(self);
}

caf::result<std::string> create_reservation(controller_self self,
                                            const cluster::reservation_words& words, int64_t now) {
  auto& st = self->state;
  if (words.name && reservation_named(st, *words.name) != st.reservations.end())
    return reservation_refusal("Error creating the reservation: Duplicate reservation name");
  auto made = cluster::new_reservation(words, *st.node_names, unnamed_reservation(st, words));
  if (!made) return reservation_refusal(made.error().text());
  if (auto err = settle_reservation(st, *made, words, now))
    return reservation_refusal("Error creating the reservation: " + describe(*err));
  auto name = made->name;
  st.reservations.push_back(std::move(*made));
  save_and_publish_reservations(self);
  return once_saved(self, "Reservation created: " + name);
}

caf::result<std::string> update_reservation(controller_self self, const std::string& name,
                                            const cluster::reservation_words& words, int64_t now) {
  auto& st = self->state;
  auto it = reservation_named(st, name);
  if (it == st.reservations.end())
    return reservation_refusal("Error updating the reservation: Requested reservation is invalid");
  auto changed = cluster::updated_reservation(*it, words, *st.node_names);
  if (!changed) return reservation_refusal(changed.error().text());
  if (auto err = settle_reservation(st, *changed, words, now))
    return reservation_refusal("Error updating the reservation: " + describe(*err));
  *it = std::move(*changed);
  save_and_publish_reservations(self);
  return once_saved(self, std::string{"Reservation updated."});
}

}  // namespace

void publish_reservations(controller_self self) {
  auto& st = self->state;
  self->send(st.topology, msg::resv_atom_v,
             std::make_shared<const std::vector<reservation>>(st.reservations));
}

void drop_reserved_nodes(controller_self self, const std::vector<std::string>& removed) {
  auto& st = self->state;
  bool changed = false;
  for (auto& r : st.reservations) {
    auto before = r.nodes.size();
    r.nodes.erase(std::remove_if(r.nodes.begin(), r.nodes.end(),
                                 [&](const std::string& n) {
                                   return std::find(removed.begin(), removed.end(), n) !=
                                          removed.end();
                                 }),
                  r.nodes.end());
    if (r.nodes.size() == before) continue;
    changed = true;
    if (r.node_count > 0) r.node_count = static_cast<uint32_t>(r.nodes.size());
    config::log().warn("reservation {} loses the nodes the reconfigure removed; {} left", r.name,
                       r.nodes.size());
  }
  if (changed) save_and_publish_reservations(self);
}

caf::result<std::string> edit_reservations(controller_self self, const msg::reservation_edit& edit,
                                           uint32_t uid) {
  auto& st = self->state;
  st.attribute_to(edit.user);
  if (!policy::may(*st.access, uid, policy::operation::edit_reservation))
    return make_error(errc::permission_denied, "Access/permission denied");
  int64_t now = cluster::unix_now();
  config::log().info("reservation {} name={} user={}", edit.action, edit.name, edit.user);
  if (edit.action == "delete") {
    auto it = reservation_named(st, edit.name);
    if (it == st.reservations.end())
      return reservation_refusal("delete_reservation " + edit.name +
                                 ": Requested reservation is invalid");
    st.reservations.erase(it);
    save_and_publish_reservations(self);
    return once_saved(self, std::string{});
  }
  auto words = cluster::read_reservation_words(edit.settings, now);
  if (!words) return reservation_refusal(words.error().text());
  if (edit.action == "create") return create_reservation(self, *words, now);
  return update_reservation(self, edit.name, *words, now);
}

std::vector<msg::reservation_info> list_reservations(controller_self self) {
  auto& st = self->state;
  int64_t now = cluster::unix_now();
  std::vector<msg::reservation_info> out;
  for (auto& r : st.reservations) {
    auto info = cluster::info_of(r, now);
    for (auto& n : st.cfg.nodes) {
      if (std::find(r.nodes.begin(), r.nodes.end(), n.name) == r.nodes.end()) continue;
      uint32_t cpus = n.cpus;
      auto view = st.node_view.find(n.name);
      if (cpus == 0 && view != st.node_view.end())
        cpus = view->second.cpus != 0 ? view->second.cpus : view->second.reported.cpus;
      info.core_count += cpus;
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::optional<caf::error> check_reservation_use(const controller_state& st,
                                                const msg::job_request& req) {
  const auto& name = req.workload.reservation;
  if (name.empty()) return std::nullopt;
  auto it = std::find_if(st.reservations.begin(), st.reservations.end(),
                         [&](const reservation& r) { return r.name == name; });
  if (it == st.reservations.end())
    return make_error(errc::invalid_request, "Requested reservation is invalid");
  if (!cluster::may_use(*it, req.user, req.workload.account))
    return make_error(errc::permission_denied, "Access denied to requested reservation");
  return std::nullopt;
}

void mark_maint_nodes(const controller_state& st, std::vector<msg::node_info>& nodes) {
  int64_t now = cluster::unix_now();
  for (auto& r : st.reservations) {
    if (!r.flags.maint || !cluster::is_active(r, now)) continue;
    for (auto& n : nodes)
      if (std::find(r.nodes.begin(), r.nodes.end(), n.name) != r.nodes.end()) n.maint = true;
  }
}

void split_maint_groups(const controller_state& st, std::vector<msg::partition_summary>& sums) {
  std::vector<msg::node_info> marked;
  for (auto& n : st.cfg.nodes) {
    msg::node_info info;
    info.name = n.name;
    marked.push_back(std::move(info));
  }
  mark_maint_nodes(st, marked);
  std::set<std::string> maint;
  for (auto& n : marked)
    if (n.maint) maint.insert(n.name);
  if (maint.empty()) return;
  for (auto& s : sums) {
    std::vector<msg::state_group> groups;
    for (auto& g : s.groups) {
      auto names = topology::expand_hostlist(g.nodes);
      if (!names) {
        groups.push_back(g);
        continue;
      }
      std::vector<std::string> held;
      std::vector<std::string> rest;
      for (auto& n : *names) (maint.count(n) ? held : rest).push_back(n);
      if (held.empty()) {
        groups.push_back(g);
        continue;
      }
      for (auto* part : {&rest, &held}) {
        if (part->empty()) continue;
        msg::state_group piece = g;
        piece.nodes = topology::compress_hostlist_sorted(*part);
        piece.count = static_cast<uint32_t>(part->size());
        piece.maint = part == &held;
        groups.push_back(std::move(piece));
      }
    }
    s.groups = std::move(groups);
  }
}

void recover_reservations(controller_state& st, const state::record_map& saved) {
  auto rec = saved.find(reservations_key);
  if (rec == saved.end()) return;
  auto table = decode_record<msg::reservations_record>(reservations_key, rec->second);
  if (!table) return;
  for (auto& info : table->reservations) st.reservations.push_back(cluster::reservation_of(info));
  config::log().info("reservations recovered count={}", st.reservations.size());
}

}  // namespace shoal::actors::ctl
