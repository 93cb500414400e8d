#include "actors/shepherd.hpp"

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include <caf/all.hpp>

#include "actors/daemon_transport.hpp"
#include "actors/exchange_tree.hpp"
#include "actors/metering.hpp"
#include "actors/send_to.hpp"
#include "actors/unexpected.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "process/mpi_server.hpp"
#include "process/stepd_client.hpp"
#include "process/stepd_wire.hpp"

namespace shoal::actors {

msg::step_exit exit_of_all(const msg::launch_request& req, const std::string& node_name,
                           std::string error, int32_t code, int32_t signal) {
  msg::step_exit ex;
  ex.job_id = req.job_id;
  ex.step_id = req.step_id;
  ex.node_name = node_name;
  ex.launch_error = std::move(error);
  if (req.batch)
    ex.tasks.push_back({0, code, signal});
  else
    for (auto r : req.ranks) ex.tasks.push_back({r, code, signal});
  return ex;
}

msg::step_exit refused_launch(const msg::launch_request& req, const std::string& node_name,
                              const shoal::error& why) {
  config::log().error("launch refused job={} step={} node={}: {}", req.job_id,
                      msg::step_label(req.step_id), node_name, describe(why));
  return exit_of_all(req, node_name, "launch refused by node " + node_name + ": " + describe(why),
                     1, 0);
}

namespace {

using namespace std::chrono_literals;

/// How often an adopted step retries reporting its end while its daemon has no controller.
constexpr auto report_retry = 1s;
/// How long one report may take (daemon -> node actor -> controller and back).
constexpr auto report_timeout = 10s;
/// How long connecting to a parent's door may take before the rounds go the indirect way.
constexpr auto door_timeout = 10s;

/// The shepherd's own messages: what its reader thread decodes from the step socket, and the
/// end of that socket.
using shepherd_impl =
    shepherd_actor::extend<caf::reacts_to<msg::task_output>, caf::reacts_to<msg::step_exit>,
                           caf::reacts_to<msg::stepdgone_atom, std::string>,
                           caf::reacts_to<msg::inputack_atom>,
                           /// shoal-stepd's answer to a usage request
                           caf::reacts_to<msg::usage_atom, msg::step_usage>,
                           /// shoal-stepd's own part of an all-gather round
                           caf::reacts_to<msg::exchange_atom, msg::step_exchange>,
                           /// a round's PMIxTimeout is up
                           caf::reacts_to<msg::tlimit_atom, uint32_t>,
                           /// a rank aborted the step here: the other nodes end theirs too
                           caf::reacts_to<msg::abort_atom, std::string>>;

/// The socket to shoal-stepd and the thread blocked reading it. Destroyed with the shepherd's
/// state, on its own thread: the socket is shut down, which ends the reader's read, then joined.
class stepd_link {
 public:
  explicit stepd_link(int fd) : fd_(fd) {}
  ~stepd_link() {
    ::shutdown(fd_, SHUT_RDWR);
    if (reader_.joinable()) reader_.join();
    ::close(fd_);
  }
  stepd_link(const stepd_link&) = delete;
  stepd_link& operator=(const stepd_link&) = delete;

  /// Attaches (the step's output and exit come to this connection from now on) and relays
  /// frames to `me` until the socket ends, starting with what `reader` holds already.
  void start_reading(process::frame_reader reader, shepherd_impl me) {
    send(process::make_frame(process::frame_kind::attach));
    reader_ = std::thread([fd = fd_, reader = std::move(reader), me = std::move(me)]() mutable {
      for (;;) {
        auto frame = process::read_frame(fd, reader);
        if (!frame) {
          caf::anon_send(me, msg::stepdgone_atom_v, describe(frame.error()));
          return;
        }
        if (process::kind_of(*frame) == process::frame_kind::output)
          caf::anon_send(me, std::move(frame->output));
        else if (process::kind_of(*frame) == process::frame_kind::exit)
          caf::anon_send(me, std::move(frame->exit));
        else if (process::kind_of(*frame) == process::frame_kind::input_taken)
          caf::anon_send(me, msg::inputack_atom_v);
        else if (process::kind_of(*frame) == process::frame_kind::usage)
          caf::anon_send(me, msg::usage_atom_v, std::move(frame->usage));
        else if (process::kind_of(*frame) == process::frame_kind::exchange_join)
          caf::anon_send(me, msg::exchange_atom_v, std::move(frame->exchange));
        else if (process::kind_of(*frame) == process::frame_kind::step_aborted)
          caf::anon_send(me, msg::abort_atom_v, std::move(frame->exchange.error));
      }
    });
  }

  /// Writes one frame; false once the socket is gone (the reader reports that).
  bool send(const msg::stepd_frame& frame) {
    auto bytes = process::encode_frame(frame);
    return process::write_all(fd_, bytes.data(), bytes.size()) == 0;
  }

 private:
  int fd_;
  std::thread reader_;
};

/// What a shepherd starts from: a step to launch, or a connection to an adopted one.
struct shepherd_start {
  msg::launch_request req;
  caf::actor sink;
  caf::actor job;
  shepherd_setup setup;
  std::optional<process::step_connection> adopted;
};

struct shepherd_state {
  static inline const char* name = "shepherd";
  msg::launch_request req;
  std::string node_name;
  caf::actor sink;
  caf::actor job;
  bool adopted = false;
  step_report_actor report_to;
  std::optional<msg::step_exit> held;  ///< adopted: the exit, until a daemon takes it
  bool reporting = false;              ///< a report request is out
  bool warned_report = false;
  bool killed = false;
  std::unique_ptr<stepd_link> link;
  std::shared_ptr<process::stepd_spares> spares;
  /// Input written to shoal-stepd, oldest first, each answered when stepd says it is taken.
  std::deque<caf::typed_response_promise<caf::ok_atom>> input_waiting;
  /// Usage requests sent to shoal-stepd, all answered by its next usage frame (or the exit).
  std::vector<caf::typed_response_promise<msg::step_usage>> usage_waiting;
  /// With a PMI server: the step's all-gather as this node takes part in it, the parent's
  /// shepherd (none at the root, or until the job names it), the children that joined a round,
  /// and what waits to go up.
  std::optional<exchange_tree> tree;
  caf::actor parent;
  bool linking = false;  ///< connecting to the parent's door; its handle waits meanwhile
  std::map<uint32_t, caf::actor> children;
  std::deque<msg::step_exchange> up_waiting;
  std::string door_host;  ///< this shoald's door, told to the job with the introduction
  uint16_t door_port = 0;
  bool aborted = false;  ///< the step was aborted (here or elsewhere): neighbours were told
  std::string abort_reason;
};

using shepherd_self = shepherd_impl::stateful_pointer<shepherd_state>;

/// Answers every input request still waiting: nobody will take that input any more.
void release_input(shepherd_self self) {
  auto& waiting = self->state.input_waiting;
  while (!waiting.empty()) {
    waiting.front().deliver(caf::ok_atom::value);
    waiting.pop_front();
  }
}

/// How many of the step's nodes take the client's standard input, when this one does; else 0.
uint32_t input_nodes(const msg::launch_request& req) {
  const auto& io = req.io;
  if (req.batch || !io.input_file.empty()) return 0;
  if (io.input == "all") return req.ranks.empty() ? 0 : req.node_count;
  uint32_t wanted = 0;
  if (!io.pty) {
    if (io.input.empty() || io.input.find_first_not_of("0123456789") != std::string::npos ||
        io.input.size() > 9)
      return 0;
    wanted = static_cast<uint32_t>(std::strtoul(io.input.c_str(), nullptr, 10));
  }
  for (auto r : req.ranks)
    if (r == wanted) return 1;
  return 0;
}

/// Answers every usage request still waiting with `usage`, or with errc::unreachable when null.
void answer_usage(shepherd_self self, const msg::step_usage* usage) {
  auto& st = self->state;
  for (auto& rp : st.usage_waiting) {
    if (usage)
      rp.deliver(*usage);
    else
      rp.deliver(
          make_error(errc::unreachable, "the step's shoal-stepd on " + st.node_name + " is gone"));
  }
  st.usage_waiting.clear();
}

void acknowledge_and_quit(shepherd_self self) {
  auto& st = self->state;
  release_input(self);
  answer_usage(self, nullptr);
  if (st.link) st.link->send(process::make_frame(process::frame_kind::ack));
  // The step is over: a good moment to load the next step's shoal-stepd.
  if (st.spares) st.spares->replenish();
  self->quit();
}

void report(shepherd_self self) {
  auto& st = self->state;
  if (!st.held || !st.report_to || st.reporting) return;
  st.reporting = true;
  self->request(st.report_to, report_timeout, *st.held)
      .then(
          [self](caf::ok_atom) {
            auto& st = self->state;
            config::log().info("adopted step reported job={} step={} node={}", st.req.job_id,
                               msg::step_label(st.req.step_id), st.node_name);
            acknowledge_and_quit(self);
          },
          [self](caf::error& err) {
            auto& st = self->state;
            st.reporting = false;
            if (!st.warned_report) {
              config::log().warn(
                  "adopted step not reported yet job={} step={} node={}: {}; "
                  "retrying every second",
                  st.req.job_id, msg::step_label(st.req.step_id), st.node_name, describe(err));
              st.warned_report = true;
            }
            self->delayed_send(self, report_retry, *st.held);
          });
}

// -- the all-gather (PMI fences) ---------------------------------------------

void carry_out(shepherd_self self, std::vector<exchange_tree::action> actions) {
  auto& st = self->state;
  for (auto& a : actions) {
    if (a.up) {
      if (st.parent)
        send_to(self, st.parent, msg::exchange_atom_v, st.tree->index(), std::move(a.message));
      else
        st.up_waiting.push_back(std::move(a.message));
      continue;
    }
    if (!a.message.error.empty())
      config::log().warn("step all-gather failed job={} step={} node={} round={}: {}",
                         st.req.job_id, msg::step_label(st.req.step_id), st.node_name,
                         a.message.round, a.message.error);
    for (auto& [index, child] : st.children) send_to(self, child, msg::done_atom_v, a.message);
    if (st.link) {
      auto frame = process::make_frame(process::frame_kind::exchange_result);
      frame.exchange = std::move(a.message);
      st.link->send(frame);
    }
  }
}

/// A step with a PMI server takes part in its all-gathers; on several nodes its shepherd
/// introduces itself to the job, which names each shepherd's parent in the tree.
void join_exchange(shepherd_self self, const caf::actor& owner) {
  auto& st = self->state;
  if (st.req.batch || !process::wants_pmi_server(st.req.io.mpi)) return;
  st.tree.emplace(st.req.job_id, st.req.step_id, st.req.node_index, st.req.node_count);
  if (st.req.node_count > 1 && owner)
    send_to(self, owner, msg::peers_atom_v, st.req.step_id, st.req.node_index,
            caf::actor_cast<caf::actor>(self), st.door_host, st.door_port);
}

/// Tells the step's neighbours in the tree, except `from` (the one that told us), that the step
/// was aborted.
void spread_abort(shepherd_self self, std::optional<uint32_t> from) {
  auto& st = self->state;
  auto me = st.tree->index();
  if (st.parent && from != exchange_tree::parent_of(me))
    send_to(self, st.parent, msg::abort_atom_v, me, st.abort_reason);
  for (auto& [index, child] : st.children)
    if (from != index) send_to(self, child, msg::abort_atom_v, me, st.abort_reason);
}

/// A rank aborted the step on this node (`from` empty) or elsewhere: every node's tasks end.
void on_abort(shepherd_self self, std::optional<uint32_t> from, std::string why) {
  auto& st = self->state;
  if (!st.tree || st.aborted) return;
  st.aborted = true;
  st.abort_reason = std::move(why);
  if (from) {
    config::log().info("step aborted on another node job={} step={} node={}: {}", st.req.job_id,
                       msg::step_label(st.req.step_id), st.node_name, st.abort_reason);
    if (st.link) st.link->send(process::make_frame(process::frame_kind::signal, SIGKILL));
  }
  spread_abort(self, from);
}

/// The parent's shepherd, reachable now (directly, once its door took our connection): what
/// waited goes up.
void adopt_parent(shepherd_self self, caf::actor parent) {
  auto& st = self->state;
  st.linking = false;
  st.parent = std::move(parent);
  self->monitor(st.parent);
  for (auto& part : st.up_waiting)
    send_to(self, st.parent, msg::exchange_atom_v, st.tree->index(), std::move(part));
  st.up_waiting.clear();
  if (st.aborted) send_to(self, st.parent, msg::abort_atom_v, st.tree->index(), st.abort_reason);
}

/// Connects to the parent's shoald through its door, so that the rounds go straight between the
/// two processes, then takes the parent. Without a door, or when the connection fails, the
/// rounds still flow, through the process the handle came from.
void link_parent(shepherd_self self, caf::actor parent, std::string host, uint16_t port) {
  auto& st = self->state;
  if (parent.node() == self->node() || port == 0) return adopt_parent(self, std::move(parent));
  st.linking = true;
  self->request(daemon_transport(self->system()), door_timeout, caf::connect_atom::value, host,
                port)
      .then(
          [self, parent, host, port](const caf::node_id& reached, caf::strong_actor_ptr&,
                                     const std::set<std::string>&) {
            auto& st = self->state;
            if (reached != parent.node())
              config::log().warn(
                  "step peer door at {}:{} is another process's job={} step={} node={}; the "
                  "fences pass through the controller",
                  host, port, st.req.job_id, msg::step_label(st.req.step_id), st.node_name);
            else
              config::log().info(
                  "step peer linked job={} step={} node={} parent_index={} "
                  "door={}:{}",
                  st.req.job_id, msg::step_label(st.req.step_id), st.node_name,
                  exchange_tree::parent_of(st.tree->index()), host, port);
            adopt_parent(self, parent);
          },
          [self, parent, host, port](caf::error& err) {
            auto& st = self->state;
            config::log().warn(
                "step peer door {}:{} unreachable job={} step={} node={}: {}; the fences pass "
                "through the controller",
                host, port, st.req.job_id, msg::step_label(st.req.step_id), st.node_name,
                describe(err));
            adopt_parent(self, parent);
          });
}

void on_own_part(shepherd_self self, msg::step_exchange& part) {
  auto& st = self->state;
  if (!st.tree) return;
  if (!st.tree->joined_locally(part.round)) {
    // Non-root nodes wait a little longer, so the root's answer naming the missing nodes wins.
    auto wait = std::chrono::seconds{st.req.pmi_timeout_s + (st.tree->is_root() ? 0 : 2)};
    self->delayed_send(self, wait, msg::tlimit_atom_v, part.round);
  }
  carry_out(self, st.tree->join_local(part));
}

void on_peer_down(shepherd_self self, const caf::down_msg& dm) {
  auto& st = self->state;
  if (!st.tree) return;
  bool parent = dm.source == st.parent;
  uint32_t node = 0;
  if (!parent) {
    auto it = std::find_if(st.children.begin(), st.children.end(),
                           [&](auto& kv) { return kv.second == dm.source; });
    if (it == st.children.end()) return;
    node = it->first;
    st.children.erase(it);
  } else {
    node = exchange_tree::parent_of(st.tree->index());
    st.parent = nullptr;
  }
  carry_out(self,
            st.tree->peer_lost(parent, "the step's part on node index " + std::to_string(node) +
                                           " ended (or its shoald went) before the "
                                           "fence completed"));
}

/// The step ended (or its shoal-stepd died): tell whoever waits, then let shoal-stepd go.
void on_step_exit(shepherd_self self, msg::step_exit ex) {
  auto& st = self->state;
  answer_usage(self, &ex.usage);
  if (st.adopted) {
    st.held = std::move(ex);
    return report(self);
  }
  if (st.sink) send_to(self, st.sink, ex);
  // A request, not a send: the node daemon (the usual `job` here) answers step ends. The answer
  // may find us gone, which is fine: the daemon keeps the exit until the job releases the node.
  if (st.job && st.job != st.sink)
    self->request(st.job, report_timeout, std::move(ex))
        .then([](caf::ok_atom) {}, [](caf::error&) {});
  acknowledge_and_quit(self);
}

/// A new step: start its shoal-stepd and connect. On failure the step ends at once with the
/// reason as its launch error, as any launch failure does.
std::unique_ptr<stepd_link> launch(shepherd_self self, shepherd_start& start) {
  auto& st = self->state;
  if (start.setup.check_launch) {
    auto refused = start.setup.check_launch(start.req);
    st.req.credential.clear();
    if (refused) {
      on_step_exit(self, refused_launch(st.req, st.node_name, refused));
      return nullptr;
    }
  }
  msg::stepd_setup setup;
  setup.request = start.req;
  setup.node_name = start.setup.node_name;
  setup.socket_path =
      process::step_socket_path(start.setup.spool_dir, start.req.job_id, start.req.step_id);
  for (auto& core : start.setup.cores)
    setup.cores.push_back(msg::stepd_core{core.socket, core.numa_node, core.pus});
  setup.task_prolog = start.setup.task_prolog;
  setup.task_epilog = start.setup.task_epilog;
  setup.script_timeout_s = start.setup.script_timeout_s;
  auto path =
      start.setup.stepd_path.empty() ? process::sibling_stepd_path() : start.setup.stepd_path;
  auto conn =
      start.setup.spares ? start.setup.spares->start(setup) : process::start_stepd(path, setup);
  if (!conn) {
    config::log().error("step not started job={} step={} node={}: {}", st.req.job_id,
                        msg::step_label(st.req.step_id), st.node_name, describe(conn.error()));
    on_step_exit(self, exit_of_all(st.req, st.node_name, describe(conn.error()), 127, 0));
    return nullptr;
  }
  auto link = std::make_unique<stepd_link>(conn->fd);
  link->start_reading(std::move(conn->reader), caf::actor_cast<shepherd_impl>(self));
  if (!st.req.batch && st.sink)
    send_to(self, st.sink, msg::stepio_atom_v, caf::actor_cast<caf::actor>(self),
            input_nodes(st.req), st.req.io.kill_on_bad_exit);
  return link;
}

shepherd_impl::behavior_type shepherd_behavior(shepherd_self self,
                                               std::shared_ptr<shepherd_start> start) {
  actor_probe probe{self, start->setup.meters, "shepherd"};
  auto& st = self->state;
  st.node_name = start->setup.node_name;
  st.spares = start->setup.spares;
  st.sink = start->sink;
  st.job = start->job;
  if (start->adopted) {
    st.adopted = true;
    st.req = start->adopted->hello.request;
    st.link = std::make_unique<stepd_link>(start->adopted->fd);
    st.link->start_reading(std::move(start->adopted->reader), caf::actor_cast<shepherd_impl>(self));
  } else {
    st.req = start->req;
    st.door_host = start->setup.door_host;
    st.door_port = start->setup.door_port;
    st.link = launch(self, *start);
    join_exchange(self, start->setup.step_owner);
  }
  start.reset();
  // A peer holding a dynamic handle may send anything: logged and dropped.
  tolerate_strays(self);
  self->set_down_handler([self](caf::down_msg& dm) { on_peer_down(self, dm); });
  self->set_exit_handler([self](caf::exit_msg& em) {
    // The shepherd's shutdown (or that of whoever it is linked to): the tasks must not outlive
    // it. The step still reports its end.
    auto& st = self->state;
    if (!em.reason || st.killed) return;
    st.killed = true;
    if (st.link) st.link->send(process::make_frame(process::frame_kind::kill));
  });
  return {
      probe.metered("signal",
                    [self](msg::signal_atom, int32_t signo) {
                      auto& st = self->state;
                      if (st.link)
                        st.link->send(process::make_frame(process::frame_kind::signal, signo));
                    }),
      probe.metered("adopt",
                    [self](msg::adopt_atom, step_report_actor& daemon) {
                      self->state.report_to = std::move(daemon);
                      report(self);
                    }),
      probe.metered("attach", [self](msg::attach_atom,
                                     caf::actor& sink) { self->state.sink = std::move(sink); }),
      probe.metered("input",
                    [self](msg::input_atom, msg::task_input& in) -> caf::result<caf::ok_atom> {
                      auto& st = self->state;
                      auto frame = process::make_frame(process::frame_kind::input);
                      frame.input = std::move(in);
                      if (!st.link || !st.link->send(frame)) return caf::ok_atom::value;
                      st.input_waiting.push_back(self->make_response_promise<caf::ok_atom>());
                      return st.input_waiting.back();
                    }),
      probe.metered("usage",
                    [self](msg::usage_atom) -> caf::result<msg::step_usage> {
                      auto& st = self->state;
                      if (st.held) return st.held->usage;  // ended: its final figures
                      if (!st.link ||
                          (st.usage_waiting.empty() &&
                           !st.link->send(process::make_frame(process::frame_kind::usage_request))))
                        return make_error(errc::unreachable,
                                          "the step's shoal-stepd on " + st.node_name + " is gone");
                      // One request to stepd answers every caller waiting meanwhile.
                      st.usage_waiting.push_back(self->make_response_promise<msg::step_usage>());
                      return st.usage_waiting.back();
                    }),
      probe.metered(
          "usage_sampled",
          [self](msg::usage_atom, msg::step_usage& usage) { answer_usage(self, &usage); }),
      probe.metered("inputack",
                    [self](msg::inputack_atom) {
                      auto& waiting = self->state.input_waiting;
                      if (waiting.empty()) return;
                      waiting.front().deliver(caf::ok_atom::value);
                      waiting.pop_front();
                    }),
      probe.metered("task_output",
                    [self](msg::task_output& out) {
                      if (self->state.sink) send_to(self, self->state.sink, std::move(out));
                    }),
      probe.metered("step_exit", [self](msg::step_exit& ex) { on_step_exit(self, std::move(ex)); }),
      probe.metered("exchange_own", [self](msg::exchange_atom,
                                           msg::step_exchange& part) { on_own_part(self, part); }),
      probe.metered("exchange_child",
                    [self](msg::exchange_atom, uint32_t child, msg::step_exchange& part) {
                      auto& st = self->state;
                      if (!st.tree) return;
                      auto from = caf::actor_cast<caf::actor>(self->current_sender());
                      if (from && st.children.emplace(child, from).second) self->monitor(from);
                      carry_out(self, st.tree->join_child(child, part));
                    }),
      probe.metered("exchange_outcome",
                    [self](msg::done_atom, msg::step_exchange& result) {
                      if (self->state.tree) carry_out(self, self->state.tree->outcome(result));
                    }),
      probe.metered("exchange_parent",
                    [self](msg::peers_atom, caf::actor& parent, std::string& host, uint16_t port) {
                      auto& st = self->state;
                      if (!st.tree || st.parent || st.linking || !parent) return;
                      link_parent(self, std::move(parent), std::move(host), port);
                    }),
      probe.metered("exchange_child_named",
                    [self](msg::peers_atom, uint32_t child, caf::actor& handle) {
                      auto& st = self->state;
                      if (!st.tree || !handle) return;
                      if (!st.children.emplace(child, handle).second) return;
                      self->monitor(handle);
                      if (st.aborted)
                        send_to(self, handle, msg::abort_atom_v, st.tree->index(), st.abort_reason);
                    }),
      probe.metered("abort_here",
                    [self](msg::abort_atom, std::string& why) {
                      on_abort(self, std::nullopt, std::move(why));
                    }),
      probe.metered("abort_peer",
                    [self](msg::abort_atom, uint32_t from, std::string& why) {
                      on_abort(self, from, std::move(why));
                    }),
      probe.metered("exchange_timeout",
                    [self](msg::tlimit_atom, uint32_t round) {
                      auto& st = self->state;
                      if (!st.tree) return;
                      carry_out(self,
                                st.tree->expire(
                                    round, "PMIxTimeout (" + std::to_string(st.req.pmi_timeout_s) +
                                               " s) passed in the step's fence (round " +
                                               std::to_string(round) + ")"));
                    }),
      probe.metered("stepdgone",
                    [self](msg::stepdgone_atom, std::string& why) {
                      auto& st = self->state;
                      st.link.reset();
                      release_input(self);
                      answer_usage(self, nullptr);
                      if (st.held) return;  // the exit came first: only our ack is lost
                      // Killed before it could report: its tasks died with it (PDEATHSIG).
                      config::log().warn("shoal-stepd lost job={} step={} node={}: {}",
                                         st.req.job_id, msg::step_label(st.req.step_id),
                                         st.node_name, why);
                      on_step_exit(self, exit_of_all(st.req, st.node_name,
                                                     "shoal-stepd died: " + why, 0, SIGKILL));
                    }),
  };
}

}  // namespace

shepherd_actor spawn_shepherd(caf::actor_system& sys, msg::launch_request req, caf::actor sink,
                              caf::actor job, shepherd_setup setup) {
  auto start = std::make_shared<shepherd_start>();
  start->req = std::move(req);
  start->sink = std::move(sink);
  start->job = std::move(job);
  start->setup = std::move(setup);
  // Detached: starting shoal-stepd blocks, and so may a write to its socket.
  return sys.spawn<caf::detached>(shepherd_behavior, std::move(start));
}

std::vector<adopted_step> adopt_steps(caf::actor_system& sys, const std::string& spool_dir,
                                      const std::string& node_name,
                                      std::vector<topology::core_info> cores,
                                      metrics::registry* meters) {
  auto scan = process::scan_spool_dir(spool_dir);
  for (auto& path : scan.removed)
    config::log().info("stale step socket removed node={} path={}", node_name, path);
  for (auto& problem : scan.problems)
    config::log().warn("step socket left alone node={}: {}", node_name, problem);
  std::vector<adopted_step> out;
  for (auto& conn : scan.live) {
    adopted_step step;
    step.request = conn.hello.request;
    step.job_id = step.request.job_id;
    step.step_id = step.request.step_id;
    config::log().info("step adopted job={} step={} node={} stepd_pid={} tasks_running={}",
                       step.job_id, msg::step_label(step.step_id), node_name, conn.hello.pid,
                       conn.hello.tasks_running);
    auto start = std::make_shared<shepherd_start>();
    start->setup.node_name = node_name;
    start->setup.spool_dir = spool_dir;
    start->setup.cores = cores;
    start->setup.meters = meters;
    start->adopted = std::move(conn);
    step.shepherd = sys.spawn<caf::detached>(shepherd_behavior, std::move(start));
    out.push_back(std::move(step));
  }
  return out;
}

}  // namespace shoal::actors
