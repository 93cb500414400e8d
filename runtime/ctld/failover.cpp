#include "runtime/ctld/failover.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/daemon_transport.hpp"
#include "actors/in_process_types.hpp"
#include "actors/standby.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/codec.hpp"
#include "runtime/bootstrap/bind_failure.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/controller_link.hpp"
#include "runtime/bootstrap/daemon_auth.hpp"
#include "runtime/ctld/bring_up.hpp"
#include "runtime/ctld/front_door.hpp"
#include "runtime/ctld/heartbeat_file.hpp"

namespace shoal::runtime {

namespace {

using clock = std::chrono::steady_clock;

/// One shoalctld's life: out of control (a standby published) or in control (a controller
/// published), and the moves between them. Runs on the failover actor's own thread, so it may
/// block (connects, publishes, bring-up); it stays responsive by waiting in receive.
class failover {
 public:
  failover(caf::blocking_actor* self, failover_setup setup)
      : self_(self),
        setup_(std::move(setup)),
        me_(setup_.lines[setup_.self_index]),
        role_(controller_role(setup_.self_index, setup_.lines.size())),
        interval_(ping_interval(setup_.cfg)),
        message_timeout_(setup_.cfg.message_timeout_s),
        locations_(state_locations(setup_.cfg.state_save_location)) {}

  void run() {
    config::log().info("shoalctld starting role={} name={} address={} port={} lines={}", role_,
                       me_.name, me_.address, me_.port, setup_.lines.size());
    if (!open_door()) {
      self_->fail_state(std::move(failure_));
      return;
    }
    if (index() == 0)
      take_control();
    else
      stand_by(false, backup_refusal());
    auto last_heard = clock::now();
    bool missing = false;
    const auto silence_limit = std::chrono::seconds{setup_.cfg.slurmctld_timeout_s};
    while (!stopping_) {
      // A standby wakes at the end of the allowed silence too, not only at its next ping, so a
      // takeover comes SlurmctldTimeout after the last answer, not up to a ping interval later.
      auto wait = interval_;
      if (!running_.controller && missing)
        wait = std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(
                              last_heard + silence_limit - clock::now()),
                          std::chrono::milliseconds{0}, interval_);
      wait_for(wait);
      if (stopping_) break;
      if (running_.controller) {
        if (index() > 0) hand_back_if_reclaimed();
        if (running_.controller) beat();
        last_heard = clock::now();
        continue;
      }
      // A backup in standby: any answer from a line before it means someone else is in
      // charge (or about to be).
      bool heard = false;
      for (size_t k = 0; k < index() && !heard; ++k) heard = ping(k).has_value();
      auto now = clock::now();
      if (heard) {
        if (missing) config::log().info("controller answers again: {}", earlier_lines());
        missing = false;
        split_seen_ = false;
        last_heard = now;
        continue;
      }
      if (!missing)
        config::log().warn(
            "controller not responding: {}; taking over after {} s of silence "
            "(SlurmctldTimeout)",
            earlier_lines(), setup_.cfg.slurmctld_timeout_s);
      missing = true;
      if (now - last_heard >= silence_limit && !still_writing(last_heard)) {
        config::log().warn(
            "taking over role={} name={}: no answer for {} s", role_, me_.name,
            std::chrono::duration_cast<std::chrono::seconds>(now - last_heard).count());
        take_control();
        missing = false;
        split_seen_ = false;
      }
    }
    // A shutdown: what was acknowledged must be durable before the process goes.
    if (running_.controller) make_durable();
    caf::anon_send_exit(door_, caf::exit_reason::user_shutdown);
    if (failure_) self_->fail_state(std::move(failure_));
  }

 private:
  size_t index() const { return setup_.self_index; }

  std::string backup_refusal() const {
    return "not in control: the primary " + describe_line(setup_.lines.front()) + " is";
  }

  std::string earlier_lines() const {
    std::string out;
    for (size_t k = 0; k < index(); ++k)
      out += (k == 0 ? "" : ", ") + controller_role(k, setup_.lines.size()) + " " +
             describe_line(setup_.lines[k]);
    return out;
  }

  // -- the heartbeat file ---------------------------------------------------------------------

  /// In control: the heartbeat file says so, in every StateSaveLocation.
  void beat() {
    if (locations_.empty()) return;
    auto failure = write_heartbeat(locations_, {index(), unix_ms()});
    if (!failure.empty() && failure != beat_failure_)
      config::log().error(
          "cannot write the heartbeat file {}: a backup that loses sight of this "
          "controller will take over even if this one still runs",
          failure);
    beat_failure_ = failure;
  }

  /// Whether a line before this one, silent on the network, still wrote the heartbeat file within
  /// SlurmctldTimeout: then it runs and the network between us is split, and taking over would
  /// put two controllers in control. `last_heard` moves to the heartbeat's time.
  bool still_writing(clock::time_point& last_heard) {
    auto beat = freshest_heartbeat_before(locations_, index());
    if (!beat) return false;
    auto age = std::chrono::milliseconds{std::max<int64_t>(unix_ms() - beat->unix_ms, 0)};
    if (age >= std::chrono::seconds{setup_.cfg.slurmctld_timeout_s}) return false;
    if (!split_seen_)
      config::log().warn(
          "not taking over: the {} does not answer, but wrote the heartbeat file in "
          "StateSaveLocation {} ms ago (a network split, not a dead controller); taking over once "
          "it stops for SlurmctldTimeout",
          controller_role(beat->line, setup_.lines.size()) + " " +
              describe_line(setup_.lines[beat->line]),
          age.count());
    split_seen_ = true;
    last_heard = std::max(last_heard, clock::now() - age);
    return true;
  }

  static int64_t unix_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  // -- peers --------------------------------------------------------------------------------------

  /// Asks line `k` whether it is up and in control; nothing when it does not answer within
  /// MessageTimeout. Its handle goes to `handle` when given.
  std::optional<msg::controller_status> ping(size_t k, caf::actor* handle = nullptr) {
    const auto& line = setup_.lines[k];
    caf::strong_actor_ptr ptr;
    std::set<std::string> ifs;
    self_
        ->request(actors::daemon_transport(self_->system()), message_timeout_,
                  caf::connect_atom::value, line.address, line.port)
        .receive(
            [&](const caf::node_id&, caf::strong_actor_ptr& p, std::set<std::string>& i) {
              ptr = std::move(p);
              ifs = std::move(i);
            },
            [](caf::error&) {});
    if (!ptr) return std::nullopt;
    auto who = describe_line(line);
    auto version = msg::version_of_interface(ifs, who);
    auto err = version ? msg::check_peer_version(*version, who) : std::move(version.error());
    if (err) {
      config::log().error("cannot watch {}: {}", who, describe(err));
      return std::nullopt;
    }
    auto peer = caf::actor_cast<caf::actor>(std::move(ptr));
    std::optional<msg::controller_status> out;
    self_->request(peer, message_timeout_, caf::ping_atom::value)
        .receive([&](msg::controller_status& status) { out = status; }, [](caf::error&) {});
    if (out && handle != nullptr) *handle = peer;
    return out;
  }

  // -- moves --------------------------------------------------------------------------------------

  /// Takes control: every later line in control hands it back first, then the controller comes
  /// up and is published. False when stopped meanwhile or failed.
  bool take_control() {
    for (size_t j = index() + 1; j < setup_.lines.size() && !stopping_; ++j) {
      auto status = ping(j);
      if (status && status->in_control) reclaim_from(j);
    }
    if (stopping_) return false;
    drop_standby();
    auto started = clock::now();
    auto instance = bring_up_controller(self_->system(), setup_.cfg, setup_.meters,
                                        setup_.metrics_address, setup_.access, setup_.cold_start);
    setup_.cold_start = false;  // a later stint in control resumes from the saved state
    if (!instance) {
      fail(std::move(instance.error()));
      return false;
    }
    running_ = std::move(*instance);
    self_->monitor(running_.controller);
    if (!publish(running_.controller, false)) return false;
    beat();
    config::log().info(
        "controller in control role={} name={} port={} bring_up_ms={}", role_, me_.name, me_.port,
        std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - started).count());
    return true;
  }

  /// Waits for line `j`, in control, to hand control back (seed 001: the primary notifies the
  /// backup, which saves its state and stands down). The notice is the reclaiming standby this
  /// publishes, which `j` sees at its next ping; the wait ends at its handback_atom, when `j`
  /// stops answering as in control, or after SlurmctldTimeout + MessageTimeout (then control is
  /// taken anyway, as slurmctld does when its backup does not answer).
  void reclaim_from(size_t j) {
    const auto& line = setup_.lines[j];
    auto who = controller_role(j, setup_.lines.size()) + " " + describe_line(line);
    config::log().info("controller reclaiming control from={}", who);
    stand_by(true, "not in control yet: the " + who + " is, until it hands control back");
    auto deadline = clock::now() + std::chrono::seconds{setup_.cfg.slurmctld_timeout_s +
                                                        setup_.cfg.message_timeout_s};
    handed_back_ = false;
    while (!stopping_) {
      wait_for(std::min<std::chrono::milliseconds>(interval_, std::chrono::seconds{1}));
      if (stopping_) return;
      if (handed_back_) {
        config::log().info("control handed back by={}", who);
        return;
      }
      auto status = ping(j);
      if (!status || !status->in_control) {
        config::log().info("controller no longer in control: {}", who);
        return;
      }
      if (clock::now() > deadline) {
        config::log().error("{} did not hand control back within {} s; taking control anyway", who,
                            setup_.cfg.slurmctld_timeout_s + setup_.cfg.message_timeout_s);
        return;
      }
    }
  }

  /// In control as a backup: when a line before this one is back (reclaiming control, or in
  /// control after a split), hand control back to it.
  void hand_back_if_reclaimed() {
    for (size_t k = 0; k < index(); ++k) {
      caf::actor peer;
      auto status = ping(k, &peer);
      if (!status || (!status->reclaiming && !status->in_control)) continue;
      auto who = controller_role(k, setup_.lines.size()) + " " + describe_line(setup_.lines[k]);
      config::log().info("controller handing control back to={} reclaiming={}", who,
                         status->reclaiming);
      make_durable();
      self_->demonitor(running_.controller);
      unpublish(running_.controller);
      bring_down_controller(running_);
      stand_by(false, backup_refusal());
      if (status->reclaiming) self_->send(peer, msg::handback_atom_v);
      config::log().info("controller in standby role={} name={}", role_, me_.name);
      return;
    }
  }

  /// Publishes a fresh standby (a new actor each time: clients' cached handles to an old one
  /// die with it).
  void stand_by(bool reclaiming, std::string refusal) {
    drop_standby();
    actors::standby_setup setup;
    setup.reclaiming = reclaiming;
    setup.refusal = std::move(refusal);
    setup.supervisor = caf::actor_cast<caf::actor>(self_);
    standby_ = caf::actor_cast<caf::actor>(actors::spawn_standby(self_->system(), setup));
    if (publish(standby_, true))
      config::log().info("standing by role={} name={} reclaiming={}", role_, me_.name, reclaiming);
  }

  void drop_standby() {
    if (!standby_) return;
    unpublish(standby_);
    caf::anon_send_exit(standby_, caf::exit_reason::kill);
    standby_ = nullptr;
  }

  /// Asks the controller to make its state durable (handover_atom), waiting MessageTimeout.
  void make_durable() {
    self_->request(running_.controller, message_timeout_, msg::handover_atom_v)
        .receive([](caf::ok_atom) {},
                 [&](caf::error& err) {
                   config::log().error("controller handover failed: {}",
                                       self_->system().render(err));
                 });
  }

  // -- the port -----------------------------------------------------------------------------------

  /// The CLI's front door, on the port after this line's, for this process's whole life; what
  /// answers behind it follows the role (retarget_atom in publish and unpublish).
  bool open_door() {
    front_door_setup door;
    door.address = setup_.bind_address;
    door.port = front_door_port(me_);
    door.request_timeout = std::max(std::chrono::seconds{60}, message_timeout_);
    door.auth = setup_.cfg.auth;
    door.access = setup_.access;
    door.cluster_identity = setup_.cluster_identity;
    door.jwt_key = setup_.jwt_key;
    door.reconfigure = setup_.reconfigure;
    if (!door.auth.munge)
      config::log().warn(
          "AuthType=auth/none: the front door believes the uid each request names; for a "
          "single-user cluster only (docs/security.md)");
    auto opened = open_front_door(self_->system(), door);
    if (!opened) {
      fail(make_error(errc::system_error, describe(opened.error()) +
                                              "; the front door listens on the port after " +
                                              port_key() + ": " + port_fix()));
      return false;
    }
    door_ = opened->actor;
    config::log().info("shoalctld front door listening address={} port={}",
                       door.address.empty() ? std::string{"*"} : door.address, opened->port);
    return true;
  }

  /// Publishes `whom` on this line's port. A port given up a moment ago may still be held while
  /// CAF closes its acceptor, so a re-publish is retried for a few seconds.
  bool publish(const caf::actor& whom, bool standby) {
    auto deadline = clock::now() + std::chrono::seconds{5};
    for (;;) {
      auto port = publish_controller(self_->system(), whom, me_.port, setup_.bind_address, standby);
      if (port) {
        retarget(whom);
        if (!published_once_)
          config::log().info("shoalctld listening port={} config={}", *port, setup_.cfg.path);
        published_once_ = true;
        return true;
      }
      if (!published_once_ || clock::now() > deadline) {
        // CAF says only that the acceptor could not be made; the bind says why.
        auto where = (setup_.bind_address.empty() ? std::string{"*"} : setup_.bind_address) + ":" +
                     std::to_string(me_.port);
        auto why = bind_failure(setup_.bind_address, me_.port)
                       .value_or(self_->system().render(port.error()));
        auto text = "cannot listen on " + where + ": " + why + "; the port comes from " +
                    port_key() + ": " + port_fix();
        fail(make_error(errc::system_error, text));
        return false;
      }
      wait_for(std::chrono::milliseconds{100});
      if (stopping_) return false;
    }
  }

  /// Which key set this line's port, for an operator whose port is taken.
  std::string port_key() const {
    auto file = " in " + setup_.cfg.path;
    if (me_.port != setup_.cfg.controller_port)
      return "SlurmctldHost=" + me_.name + "(ADDRESS:" + std::to_string(me_.port) + ")" + file;
    return "SlurmctldPort=" + std::to_string(me_.port) + file;
  }

  /// What to do about a taken port: the two ports are shoalctld's own, and it cannot serve
  /// without them, so it stops rather than run unreachable.
  std::string port_fix() const {
    return "stop the process holding it (another shoalctld for this line?) or give this line "
           "another port; ports " +
           std::to_string(me_.port) + " and " + std::to_string(front_door_port(me_)) +
           " must both be free";
  }

  /// Points the front door at `whom` and waits until it took effect.
  void retarget(const caf::actor& whom) {
    self_->request(door_, message_timeout_, retarget_atom::value, whom)
        .receive([](caf::ok_atom) {},
                 [&](caf::error& err) {
                   config::log().error("front door: cannot retarget: {}",
                                       self_->system().render(err));
                 });
  }

  void unpublish(const caf::actor& whom) {
    retarget(caf::actor{});
    self_
        ->request(actors::daemon_transport(self_->system()), message_timeout_,
                  caf::unpublish_atom::value, whom.address(), me_.port)
        .receive([] {},
                 [&](caf::error& err) {
                   config::log().warn("unpublish port={}: {}", me_.port,
                                      self_->system().render(err));
                 });
  }

  // -- waiting ------------------------------------------------------------------------------------

  /// Handles messages for `dt`: a shutdown, the controller's end, a hand-back (which ends the
  /// wait early).
  void wait_for(std::chrono::milliseconds dt) {
    auto deadline = clock::now() + dt;
    bool woken = false;
    while (!stopping_ && !woken) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
      if (left.count() <= 0) return;
      self_->receive(
          [&](caf::exit_msg& em) {
            config::log().info("shoalctld stopping: {}", self_->system().render(em.reason));
            stopping_ = true;
          },
          [&](caf::down_msg& dm) {
            if (running_.controller && dm.source == running_.controller.address())
              fail(make_error(errc::system_error,
                              "the controller stopped: " + self_->system().render(dm.reason)));
          },
          [&](msg::handback_atom) {
            handed_back_ = true;
            woken = true;
          },
          [&](msg::reconfig_atom, actors::config_ptr& fresh) {
            // SIGHUP's reconfigure (shoalctld_main) read the file: the controller in control
            // applies its nodes and partitions and logs the outcome; a standby has none to.
            if (running_.controller)
              caf::anon_send(running_.controller, msg::reconfig_atom_v, std::move(fresh),
                             std::string{"SIGHUP"});
          },
          caf::others >>
              [](caf::message_view&) -> caf::result<caf::message> { return caf::message{}; },
          caf::after(left) >> [] {});
    }
  }

  void fail(caf::error err) {
    auto text = describe(err);
    config::log().error("shoalctld failed: {}", text);
    std::fprintf(stderr, "shoalctld: error: %s\n", text.c_str());
    failure_ = std::move(err);
    stopping_ = true;
  }

  caf::blocking_actor* self_;
  failover_setup setup_;
  const config::controller_host& me_;
  std::string role_;
  std::chrono::milliseconds interval_;
  std::chrono::seconds message_timeout_;
  std::vector<std::string> locations_;  ///< StateSaveLocation's directories
  std::string beat_failure_;            ///< the last heartbeat write's failure, logged once
  bool split_seen_ = false;             ///< "not taking over" logged for this silence
  controller_instance running_;
  caf::actor standby_;
  caf::actor door_;
  bool published_once_ = false;
  bool stopping_ = false;
  bool handed_back_ = false;
  caf::error failure_;
};

void failover_main(caf::blocking_actor* self, failover_setup setup) {
  failover{self, std::move(setup)}.run();
}

}  // namespace

caf::expected<size_t> choose_controller_line(const std::vector<config::controller_host>& lines,
                                             const std::string& requested,
                                             const std::string& short_host,
                                             const std::string& long_host) {
  std::string names;
  for (const auto& line : lines) names += (names.empty() ? "" : ", ") + line.name;
  auto find = [&](const std::string& name) {
    return std::find_if(lines.begin(), lines.end(),
                        [&](const auto& line) { return line.name == name; });
  };
  if (!requested.empty()) {
    auto it = find(requested);
    if (it == lines.end())
      return make_error(
          errc::invalid_request,
          "--controller " + requested + " names no SlurmctldHost line (the lines: " + names + ")");
    return static_cast<size_t>(it - lines.begin());
  }
  for (const auto& host : {short_host, long_host})
    if (auto it = find(host); !host.empty() && it != lines.end())
      return static_cast<size_t>(it - lines.begin());
  if (lines.size() == 1) return size_t{0};
  return make_error(errc::invalid_request,
                    "this host (" + short_host + ") is none of the SlurmctldHost lines (" + names +
                        "): say which one this shoalctld is with --controller NAME");
}

std::chrono::milliseconds ping_interval(const config::cluster_config& cfg) {
  auto ms = cfg.slurmctld_timeout_s * 1000 / 3;
  return std::chrono::milliseconds{std::clamp<int64_t>(ms, 1000, 10000)};
}

caf::actor spawn_failover(caf::actor_system& sys, failover_setup setup) {
  return sys.spawn(failover_main, std::move(setup));
}

}  // namespace shoal::runtime
