// `scontrol reboot` and `cancel_reboot` in the node actor (docs/operations.md, "Reboot"): the
// request waits for the node to be free, its shoald runs RebootProgram, and the node is DOWN
// until its daemon registers again with a later boot time, or ResumeTimeout passes.

#include <chrono>

#include <caf/all.hpp>

#include "actors/node_internals.hpp"
#include "actors/send_to.hpp"
#include "config/log.hpp"
#include "config/node_reboot.hpp"

namespace shoal::actors {

namespace {

using reboot_liveness = cluster::node_flags::liveness;

/// No reboot asked; a live ResumeTimeout timer no longer applies.
void reset_reboot_plan(node_reboot_plan& plan) {
  auto gen = plan.gen + 1;
  plan = node_reboot_plan{};
  plan.gen = gen;
}

/// The node is in service again after a reboot, or its reboot was cancelled once issued.
void back_in_service(node_self self) {
  auto& st = self->state;
  st.flags.admin_down = false;
  st.flags.life = st.daemon ? reboot_liveness::up : reboot_liveness::unknown;
}

void request_reboot(node_self self, const msg::node_update& up) {
  auto& st = self->state;
  auto& plan = st.reboot;
  if (plan.requested || plan.issued) return;  // as slurmctld: asked once until done
  plan.requested = true;
  plan.next_state = up.next_state;
  auto reason = up.reason;
  if (up.reboot == "REBOOT_ASAP") {
    // No new job starts; the drain ends with the reboot (next state RESUME unless given).
    if (plan.next_state.empty()) plan.next_state = "RESUME";
    plan.undrain = !st.flags.drain;
    st.flags.drain = true;
    if (reason.empty()) reason = "Reboot ASAP";
  }
  if (reason.empty() && st.info.reason.empty()) reason = "reboot requested";
  if (!reason.empty()) set_reason(self, reason, up.user);
  config::log().info("node reboot requested node={} asap={} next_state={} user={}", st.info.name,
                     up.reboot == "REBOOT_ASAP", plan.next_state, up.user);
}

void cancel_reboot(node_self self, const msg::node_update& up) {
  auto& st = self->state;
  auto& plan = st.reboot;
  if (!plan.requested && !plan.issued) return;
  if (plan.issued && st.flags.life == reboot_liveness::down) back_in_service(self);
  if (plan.undrain) st.flags.drain = false;
  reset_reboot_plan(plan);
  if (!st.flags.drain) set_reason(self, "", "");
  config::log().info("node reboot cancelled node={} user={}", st.info.name, up.user);
}

}  // namespace

caf::result<caf::ok_atom> on_reboot_update(node_self self, const msg::node_update& up) {
  if (up.reboot == "CANCEL_REBOOT")
    cancel_reboot(self, up);
  else
    request_reboot(self, up);
  issue_reboot_when_free(self);
  publish(self);
  persist_admin_state(self);
  return caf::ok_atom::value;
}

void issue_reboot_when_free(node_self self) {
  auto& st = self->state;
  auto& plan = st.reboot;
  if (!plan.requested || plan.issued || !st.jobs.empty() || !st.daemon) return;
  plan.issued = true;
  plan.boot_time = st.info.reported.boot_time;
  st.flags.life = reboot_liveness::down;
  st.flags.admin_down = true;
  set_reason(self, config::add_reboot_reason(st.info.reason, "reboot issued"), "shoal");
  config::log().info("node reboot issued node={} boot_time={}", st.info.name, plan.boot_time);
  send_to(self, st.daemon, msg::reboot_atom_v);
  self->delayed_send(self, std::chrono::seconds{st.cfg.reboot_timeout_s}, msg::reboot_atom_v,
                     ++plan.gen);
  publish(self);
}

void on_reboot_registration(node_self self, const msg::machine_status& rep) {
  auto& st = self->state;
  auto& plan = st.reboot;
  if (!plan.issued || rep.boot_time <= plan.boot_time) return;
  auto next = plan.next_state;
  reset_reboot_plan(plan);  // its timeout no longer applies
  // As slurmctld: a next state given ends the drain; DOWN keeps the node down.
  if (!next.empty()) st.flags.drain = false;
  if (next == "DOWN") {
    set_reason(self, config::add_reboot_reason(st.info.reason, "reboot complete"), "shoal");
  } else {
    back_in_service(self);
    st.flags.life = reboot_liveness::up;
    if (!st.flags.drain) set_reason(self, "", "");
  }
  config::log().info("node rebooted node={} boot_time={} next_state={}", st.info.name,
                     rep.boot_time, next.empty() ? std::string{"-"} : next);
  persist_admin_state(self);
}

void on_reboot_timeout(node_self self, uint64_t gen) {
  auto& st = self->state;
  auto& plan = st.reboot;
  if (gen != plan.gen || !plan.issued) return;
  reset_reboot_plan(plan);
  st.flags.drain = false;
  st.flags.life = reboot_liveness::down;
  st.flags.admin_down = true;
  set_reason(self, config::add_reboot_reason(st.info.reason, "reboot timed out"), "shoal");
  config::log().warn("node reboot timed out node={} resume_timeout_s={}", st.info.name,
                     st.cfg.reboot_timeout_s);
  persist_admin_state(self);
  publish(self);
}

}  // namespace shoal::actors
