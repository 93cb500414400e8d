#include <algorithm>

#include "actors/controller/controller_state.hpp"
#include "config/partition_edit.hpp"

namespace shoal::actors::ctl {

namespace {

/// The key the partition edits are saved under; they are replayed over the config's partitions when
/// a controller starts from saved state.
const std::string partitions_key = "partitions";

config::partition_config* view_of(controller_state& st, const std::string& name) {
  auto it = std::find_if(st.cfg.partitions.begin(), st.cfg.partitions.end(),
                         [&](const config::partition_config& p) { return p.name == name; });
  return it == st.cfg.partitions.end() ? nullptr : &*it;
}

/// The partition whose row this is now answers with it; `named` is the actor that did, so a row
/// from a partition deleted (and perhaps created again) meanwhile is not taken.
bool take_row(controller_self self, const partition_actor& named, config::partition_config row) {
  auto& st = self->state;
  auto actor = st.partitions.find(row.name);
  auto* view = view_of(st, row.name);
  if (actor == st.partitions.end() || actor->second != named || view == nullptr) return false;
  *view = std::move(row);
  publish_partitions(self);
  return true;
}

/// Only one partition is the default: the others that were lose it, in the view at once (the
/// next listing must not show two) and in their rows.
void clear_other_defaults(controller_self self, const std::string& taker) {
  auto& st = self->state;
  for (auto& p : st.cfg.partitions) {
    if (p.name == taker || !p.is_default) continue;
    p.is_default = false;
    auto actor = st.partitions.at(p.name);
    self->request(actor, std::chrono::seconds{st.cfg.message_timeout_s}, msg::partedit_atom_v,
                  std::vector<std::string>{"Default=NO"})
        .then(
            [self, actor](config::partition_config& row) { take_row(self, actor, std::move(row)); },
            [name = p.name](caf::error& err) {
              config::log().error("partition {} did not give up Default: {}", name, describe(err));
            });
  }
}

/// The edit applied: it goes into the record a restart replays, durable before the client hears ok.
void record(controller_self self, const msg::partition_edit& edit) {
  auto& st = self->state;
  config::record_partition_edit(st.partition_edits, edit);
  save_partition_edits(self);
  std::string settings;
  for (auto& w : edit.settings) settings += (settings.empty() ? "" : " ") + w;
  config::log().info("partition {} name={} settings=\"{}\" user={}", edit.action, edit.name,
                     settings, edit.user);
}

/// Deleting a partition that pending or running jobs use is refused, as Slurm does.
caf::result<caf::ok_atom> delete_partition(controller_self self, const msg::partition_edit& edit) {
  auto& st = self->state;
  for (auto& [id, job] : st.job_view)
    if (job.partition == edit.name && !msg::is_finished(job.state))
      return make_error(errc::invalid_request, "Partition is in use (job " + std::to_string(id) +
                                                   " is " + msg::to_string(job.state) + " in it)");
  auto actor = st.partitions.find(edit.name);
  self->unlink_from(actor->second);
  self->send(actor->second, msg::cancel_atom_v);
  st.partitions.erase(actor);
  auto& parts = st.cfg.partitions;
  parts.erase(
      std::remove_if(parts.begin(), parts.end(),
                     [&](const config::partition_config& p) { return p.name == edit.name; }),
      parts.end());
  publish_partitions(self);
  record(self, edit);
  return once_saved(self, caf::ok_atom::value);
}

/// A new partition's row comes from its settings alone; its actor starts with it, last in order.
caf::result<caf::ok_atom> create_partition(controller_self self, const msg::partition_edit& edit) {
  auto& st = self->state;
  auto row = config::apply_partition_settings(config::created_partition(edit.name), edit.settings,
                                              *st.node_names);
  if (!row) return to_caf(row.error());
  if (row->is_default) clear_other_defaults(self, edit.name);
  start_partition(self, *row);
  st.cfg.partitions.push_back(std::move(*row));
  publish_partitions(self);
  record(self, edit);
  return once_saved(self, caf::ok_atom::value);
}

/// The partition's actor applies the settings to its row and answers with the row they made.
caf::result<caf::ok_atom> update_partition(controller_self self, const msg::partition_edit& edit) {
  auto& st = self->state;
  auto rp = self->make_response_promise<caf::ok_atom>();
  auto actor = st.partitions.at(edit.name);
  self->request(actor, std::chrono::seconds{st.cfg.message_timeout_s}, msg::partedit_atom_v,
                edit.settings)
      .then(
          [self, rp, actor, edit](config::partition_config& row) mutable {
            bool is_default = row.is_default;
            if (!take_row(self, actor, std::move(row))) {
              rp.deliver(make_error(errc::unknown_partition,
                                    "partition '" + edit.name + "' was deleted meanwhile"));
              return;
            }
            if (is_default && config::takes_default(edit.settings))
              clear_other_defaults(self, edit.name);
            record(self, edit);
            deliver_once_saved(self, rp, caf::ok_atom::value);
          },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  return rp;
}

}  // namespace

/// The view changed: the nodes that joined or left a partition, the topology actor (placement)
/// and the scheduler (priorities) hear the new table.
void publish_partitions(controller_self self) {
  auto& st = self->state;
  std::map<std::string, std::vector<std::string>> before;
  for (auto& n : st.cfg.nodes) before[n.name] = n.partitions;
  config::assign_node_partitions(st.cfg);
  for (auto& n : st.cfg.nodes)
    if (before[n.name] != n.partitions)
      self->send(st.nodes.at(n.name), msg::parts_atom_v, n.partitions);
  auto table = slotted(st.cfg.partitions, st.partition_slots);
  self->send(st.topology, msg::parts_atom_v, table);
  if (st.power) self->send(st.power, msg::parts_atom_v, table);
  self->send(st.scheduler, msg::parts_atom_v, std::move(table));
}

void start_partition(controller_self self, const config::partition_config& row) {
  auto& st = self->state;
  auto actor = spawn_partition(self->system(), row, st.node_names, st.meters);
  self->link_to(actor);
  st.partitions.emplace(row.name, std::move(actor));
}

void save_partition_edits(controller_self self) {
  msg::partition_edits_record rec;
  rec.edits = self->state.partition_edits;
  persist(self, partitions_key, encoded(rec));
}

caf::result<caf::ok_atom> edit_partitions(controller_self self, const msg::partition_edit& edit) {
  auto& st = self->state;
  st.attribute_to(edit.user);
  if (auto err = config::check_partition_edit(st.cfg.partitions, edit)) return to_caf(*err);
  if (edit.action == "delete") return delete_partition(self, edit);
  if (edit.action == "create") return create_partition(self, edit);
  return update_partition(self, edit);
}

void replay_partitions(controller_state& st, const state::record_map& saved) {
  auto rec = saved.find(partitions_key);
  if (rec == saved.end()) return;
  auto edits = decoded<msg::partition_edits_record>(rec->second);
  if (!edits) {
    config::log().error("saved state: record {} unreadable, skipped: {}", partitions_key,
                        describe(edits.error()));
    return;
  }
  std::vector<std::string> skipped;
  config::replay_partition_edits(st.cfg, edits->edits, skipped);
  for (auto& why : skipped)
    config::log().warn("saved partition edit no longer applies, dropped: {}", why);
  st.partition_edits = std::move(edits->edits);
  config::log().info("partition edits replayed edits={} dropped={}", st.partition_edits.size(),
                     skipped.size());
}

void spawn_partitions(controller_self self) {
  auto& st = self->state;
  std::vector<std::string> names;
  for (auto& n : st.cfg.nodes) names.push_back(n.name);
  st.node_names = std::make_shared<const std::vector<std::string>>(std::move(names));
  for (auto& p : st.cfg.partitions) start_partition(self, p);
}

}  // namespace shoal::actors::ctl
