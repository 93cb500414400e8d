#include "process/pmi2_server.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "process/task_launch.hpp"

namespace shoal::process {

namespace {

/// Answers wait here beyond this many bytes: the rank is not reading them, so reading more of
/// its commands would only pile up more.
constexpr size_t max_unwritten = 1u << 20;
/// Node attributes (info-putnodeattr) one node keeps.
constexpr size_t max_node_attrs = 4096;

/// PMI-2's error code for a bad argument (PMI2_ERR_INVALID_ARG); -1 is PMI_FAIL in both.
constexpr const char* pmi2_invalid_arg = "3";

std::string exit_text(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    return "was killed by signal " + std::to_string(WTERMSIG(status)) +
           (name ? std::string(" (SIG") + name + ")" : std::string{});
  }
  return "ended (status " + std::to_string(status) + ")";
}

pmi_command reply(std::string name) {
  pmi_command cmd;
  cmd.name = std::move(name);
  return cmd;
}

/// A PMI-2 answer carrying `thrid` when the request had one (MPICH's threaded client routes
/// answers by it).
pmi_command reply2(std::string name, const pmi_command& request) {
  auto cmd = reply(std::move(name));
  if (auto* thrid = request.find("thrid")) cmd.add("thrid", *thrid);
  return cmd;
}

/// The PMI-1 commands shoal does not serve and what their clients wait for.
const char* pmi1_unserved_answer(const std::string& name) {
  if (name == "publish_name") return "publish_result";
  if (name == "unpublish_name") return "unpublish_result";
  if (name == "lookup_name") return "lookup_result";
  if (name == "getbyidx") return "getbyidx_results";
  if (name == "create_kvs") return "newkvs";
  if (name == "destroy_kvs") return "kvs_destroyed";
  return nullptr;
}

}  // namespace

pmi2_server::pmi2_server(mpi_step step)
    : step_(std::move(step)), self_(std::make_shared<pmi2_server*>(this)) {
  const auto& req = *step_.request;
  jobid_ = std::to_string(req.job_id) + "." + std::to_string(req.step_id);
  size_ = req.ntasks;
  mapping_ = pmi_process_mapping(req.rank_nodes);
  conns_.resize(req.ranks.size());
  for (size_t i = 0; i < conns_.size(); ++i) conns_[i].rank = req.ranks[i];
}

pmi2_server::~pmi2_server() {
  for (auto& c : conns_) {
    close_fd(c.fd);
    close_fd(c.child_fd);
  }
}

// -- mpi_server -----------------------------------------------------------------------------

shoal::error pmi2_server::prepare_task(uint32_t local_id, uint32_t rank,
                                       std::vector<std::string>& env, int& inherit_fd) {
  inherit_fd = -1;
  if (local_id >= conns_.size())
    return {shoal::errc::invalid_request,
            "PMI: no local task " + std::to_string(local_id) + " in this step"};
  auto& c = conns_[local_id];
  close_fd(c.fd);
  close_fd(c.child_fd);
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return {shoal::errc::system_error, "PMI: socketpair: " + errno_text(errno)};
  // Only the server's end: the task's client reads and writes blocking.
  int flags = ::fcntl(sv[0], F_GETFL);
  if (flags < 0 || ::fcntl(sv[0], F_SETFL, flags | O_NONBLOCK) != 0) {
    int err = errno;
    ::close(sv[0]);
    ::close(sv[1]);
    return {shoal::errc::system_error, "PMI: fcntl(O_NONBLOCK): " + errno_text(err)};
  }
  c.rank = rank;
  c.fd = sv[0];
  c.child_fd = sv[1];
  inherit_fd = sv[1];
  set_env(env, "PMI_FD", std::to_string(sv[1]));
  set_env(env, "PMI_RANK", std::to_string(rank));
  set_env(env, "PMI_SIZE", std::to_string(size_));
  set_env(env, "PMI_JOBID", jobid_);
  unset_env(env, "PMI_ID");
  unset_env(env, "PMI_PORT");
  unset_env(env, "PMI_SPAWNED");
  return {};
}

void pmi2_server::task_started(uint32_t local_id, pid_t pid) {
  if (local_id >= conns_.size()) return;
  auto& c = conns_[local_id];
  close_fd(c.child_fd);
  if (pid < 0 && !c.exited) {
    c.exited = true;
    c.exit_how = "did not start";
    close_connection(c);
    rank_gone(c, c.exit_how, false);
  }
}

void pmi2_server::task_exited(uint32_t local_id, int status) {
  if (local_id >= conns_.size()) return;
  auto& c = conns_[local_id];
  if (c.exited) return;
  c.exited = true;
  // What it wrote before it went is still worth reading: a finalize, an abort.
  if (c.fd >= 0) read_from(c);
  close_connection(c);
  if (c.finalized) return;
  c.exit_how = exit_text(status);
  bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  rank_gone(c, c.exit_how, clean);
}

void pmi2_server::add_fds(std::vector<pollfd>& fds) {
  polled_.clear();
  for (size_t i = 0; i < conns_.size(); ++i) {
    auto& c = conns_[i];
    if (c.fd < 0) continue;
    short events = 0;
    if (!c.close_after_write && c.out.size() < max_unwritten) events |= POLLIN;
    if (!c.out.empty()) events |= POLLOUT;
    fds.push_back(pollfd{c.fd, events, 0});
    polled_.push_back(i);
  }
}

void pmi2_server::handle_fds(const pollfd* fds, size_t count) {
  for (size_t i = 0; i < count && i < polled_.size(); ++i) {
    auto& c = conns_[polled_[i]];
    if (c.fd < 0 || c.fd != fds[i].fd) continue;
    if (fds[i].revents & POLLOUT) write_to(c);
    if (c.fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) read_from(c);
  }
}

// -- connections ----------------------------------------------------------------------------

void pmi2_server::read_from(connection& c) {
  char buf[16384];
  // Bounded per call, so one chatty rank cannot hold the poll loop.
  for (int round = 0; round < 16 && c.fd >= 0 && !c.close_after_write; ++round) {
    ssize_t n = ::recv(c.fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      // The rank closed its end (or it broke): whatever it meant is decided when it exits.
      close_connection(c);
      return;
    }
    c.reader.append(std::string_view(buf, static_cast<size_t>(n)));
    std::string message;
    for (;;) {
      auto st = c.reader.next(message);
      if (st == pmi_reader::status::need_more) break;
      if (st == pmi_reader::status::error) {
        auto text = "rank " + std::to_string(c.rank) + ": PMI: " + message +
                    "; its PMI connection is closed";
        step_.report(c.rank, text);
        auto err = reply("error");
        err.add("rc", "-1").add(c.reader.wire() == pmi_wire::v1 ? "msg" : "errmsg", text);
        answer(c, err);
        c.close_after_write = true;
        write_to(c);
        return;
      }
      on_message(c, message);
      if (c.fd < 0 || c.close_after_write) return;
    }
    if (c.out.size() >= max_unwritten) return;
  }
}

void pmi2_server::write_to(connection& c) {
  while (c.fd >= 0 && !c.out.empty()) {
    ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0) {
      close_connection(c);
      return;
    }
    c.out.erase(0, static_cast<size_t>(n));
  }
  if (c.fd >= 0 && c.out.empty() && c.close_after_write) close_connection(c);
}

void pmi2_server::close_connection(connection& c) {
  close_fd(c.fd);
  c.out.clear();
  c.waits_node_attr = false;
}

void pmi2_server::answer(connection& c, const pmi_command& cmd) {
  answer(c, c.reader.wire(), cmd);
}

void pmi2_server::answer(connection& c, pmi_wire wire, const pmi_command& cmd) {
  if (c.fd < 0) return;
  c.out += format_pmi(wire, cmd);
  write_to(c);
}

// -- commands -------------------------------------------------------------------------------

void pmi2_server::on_message(connection& c, const std::string& message) {
  c.spoke = true;
  auto wire = c.reader.wire();
  if (wire == pmi_wire::v1 && c.in_spawn) {
    // A spawn's lines are key=value without cmd=, up to "endcmd": one answer for all of them.
    if (message == "endcmd") {
      c.in_spawn = false;
      answer(c, reply("spawn_result")
                    .add("rc", "-1")
                    .add("msg", "shoal's PMI server does not spawn processes"));
    }
    return;
  }
  auto parsed = wire == pmi_wire::v1 ? parse_pmi1(message) : parse_pmi2(message);
  if (!parsed) {
    auto err = reply("error");
    err.add("rc", "-1")
        .add(wire == pmi_wire::v1 ? "msg" : "errmsg",
             "malformed PMI command: " + parsed.error().text());
    answer(c, err);
    return;
  }
  auto& cmd = *parsed;
  if (!c.initialized || (wire == pmi_wire::v1 && cmd.name == "init")) {
    on_init(c, cmd);
    return;
  }
  if (wire == pmi_wire::v1)
    on_pmi1(c, cmd);
  else
    on_pmi2(c, cmd);
}

void pmi2_server::on_init(connection& c, const pmi_command& cmd) {
  if (cmd.name != "init") {
    answer(c, reply(cmd.name + "_result")
                  .add("rc", "-1")
                  .add("msg", "the first PMI command must be cmd=init"));
    return;
  }
  auto* version = cmd.find("pmi_version");
  auto init = reply("response_to_init");
  if (version && *version == "1") {
    init.add("pmi_version", "1").add("pmi_subversion", "1").add("rc", "0");
    c.initialized = true;
    answer(c, pmi_wire::v1, init);
  } else if (version && *version == "2") {
    init.add("pmi_version", "2").add("pmi_subversion", "0").add("rc", "0");
    c.initialized = true;
    answer(c, pmi_wire::v1, init);
    c.reader.set_wire(pmi_wire::v2);
  } else {
    init.add("pmi_version", "1").add("pmi_subversion", "1").add("rc", "-1");
    answer(c, pmi_wire::v1, init);
  }
}

const std::string* pmi2_server::job_value(const std::string& key) const {
  if (key == "PMI_process_mapping") return mapping_.empty() ? nullptr : &mapping_;
  return kvs_.get(key);
}

void pmi2_server::on_pmi1(connection& c, const pmi_command& cmd) {
  const auto& name = cmd.name;
  if (name == "get_maxes") {
    answer(c, reply("maxes")
                  .add("rc", "0")
                  .add("kvsname_max", std::to_string(pmi_max_kvsname))
                  .add("keylen_max", std::to_string(pmi_max_key))
                  .add("vallen_max", std::to_string(pmi_max_value)));
  } else if (name == "get_universe_size") {
    answer(c, reply("universe_size").add("rc", "0").add("size", std::to_string(size_)));
  } else if (name == "get_appnum") {
    // As Slurm: -1, one program and no spawn, so MPI_APPNUM stays unset.
    answer(c, reply("appnum").add("rc", "0").add("appnum", "-1"));
  } else if (name == "get_my_kvsname") {
    answer(c, reply("my_kvsname").add("rc", "0").add("kvsname", jobid_));
  } else if (name == "barrier_in") {
    join_fence(c, {});
  } else if (name == "put") {
    auto* key = cmd.find("key");
    auto* value = cmd.find("value");
    auto err = key && value ? kvs_.put(*key, *value)
                            : shoal::error{shoal::errc::invalid_request, "put without key="};
    if (err)
      answer(c, reply("put_result").add("rc", "-1").add("msg", err.text()));
    else
      answer(c, reply("put_result").add("rc", "0").add("msg", "success"));
  } else if (name == "get") {
    auto* key = cmd.find("key");
    auto* value = key ? job_value(*key) : nullptr;
    if (value)
      answer(c, reply("get_result").add("rc", "0").add("msg", "success").add("value", *value));
    else
      answer(c, reply("get_result").add("rc", "-1").add("msg", "key_not_found"));
  } else if (name == "finalize") {
    c.finalized = true;
    answer(c, reply("finalize_ack").add("rc", "0"));
    c.close_after_write = true;
    write_to(c);
  } else if (name == "abort") {
    auto* code = cmd.find("exitcode");
    on_abort(c, "exit code " + (code ? *code : std::string("unknown")));
  } else if (name.rfind("mcmd:", 0) == 0) {
    c.in_spawn = true;
  } else if (auto* unserved = pmi1_unserved_answer(name)) {
    answer(c, reply(unserved)
                  .add("rc", "-1")
                  .add("info", "fail")
                  .add("msg", "shoal's PMI server does not serve cmd=" + name));
  } else {
    answer(c, reply(name + "_result").add("rc", "-1").add("msg", "unknown PMI-1 command " + name));
  }
}

void pmi2_server::on_pmi2(connection& c, const pmi_command& cmd) {
  const auto& name = cmd.name;
  if (name == "fullinit") {
    auto* rank = cmd.find("pmirank");
    auto resp = reply2("fullinit-response", cmd);
    if (rank && *rank != std::to_string(c.rank)) {
      resp.add("rc", pmi2_invalid_arg)
          .add("errmsg", "pmirank=" + *rank + " on the PMI_FD of rank " + std::to_string(c.rank));
    } else {
      resp.add("rc", "0")
          .add("pmi-version", "2")
          .add("pmi-subversion", "0")
          .add("rank", std::to_string(c.rank))
          .add("size", std::to_string(size_))
          .add("appnum", "-1")
          .add("debugged", "FALSE")
          .add("pmiverbose", "FALSE");
    }
    answer(c, resp);
  } else if (name == "job-getid") {
    answer(c, reply2("job-getid-response", cmd).add("rc", "0").add("jobid", jobid_));
  } else if (name == "kvs-put") {
    auto* key = cmd.find("key");
    auto* value = cmd.find("value");
    auto err = key && value ? kvs_.put(*key, *value)
                            : shoal::error{shoal::errc::invalid_request, "kvs-put without key="};
    auto resp = reply2("kvs-put-response", cmd);
    if (err)
      resp.add("rc", pmi2_invalid_arg).add("errmsg", err.text());
    else
      resp.add("rc", "0");
    answer(c, resp);
  } else if (name == "kvs-fence") {
    auto* thrid = cmd.find("thrid");
    join_fence(c, thrid ? *thrid : std::string{});
  } else if (name == "kvs-get" || name == "info-getjobattr") {
    auto* key = cmd.find("key");
    auto universe = std::to_string(size_);
    const std::string* value = nullptr;
    if (key && name == "kvs-get")
      value = job_value(*key);
    else if (key && *key == "universeSize")
      value = &universe;
    else if (key && *key == "PMI_process_mapping")
      value = job_value(*key);
    auto resp = reply2(name + "-response", cmd);
    resp.add("rc", "0");
    if (value)
      resp.add("found", "TRUE").add("value", *value);
    else
      resp.add("found", "FALSE");
    answer(c, resp);
  } else if (name == "info-putnodeattr") {
    auto* key = cmd.find("key");
    auto* value = cmd.find("value");
    auto resp = reply2("info-putnodeattr-response", cmd);
    if (!key || !value || key->empty() || key->size() > pmi_max_key ||
        value->size() > pmi_max_value ||
        (node_attrs_.size() >= max_node_attrs && !node_attrs_.count(*key))) {
      resp.add("rc", pmi2_invalid_arg).add("errmsg", "a node attribute without key=, or too big");
      answer(c, resp);
      return;
    }
    node_attrs_[*key] = *value;
    answer(c, resp.add("rc", "0"));
    for (auto& other : conns_) {
      if (!other.waits_node_attr || other.node_attr_key != *key) continue;
      other.waits_node_attr = false;
      auto found = reply("info-getnodeattr-response");
      if (!other.node_attr_thrid.empty()) found.add("thrid", other.node_attr_thrid);
      answer(other, found.add("rc", "0").add("found", "TRUE").add("value", *value));
    }
  } else if (name == "info-getnodeattr") {
    auto* key = cmd.find("key");
    auto* wait = cmd.find("wait");
    auto it = key ? node_attrs_.find(*key) : node_attrs_.end();
    if (it == node_attrs_.end() && key && wait && *wait == "TRUE") {
      c.waits_node_attr = true;
      c.node_attr_key = *key;
      auto* thrid = cmd.find("thrid");
      c.node_attr_thrid = thrid ? *thrid : std::string{};
      return;
    }
    auto resp = reply2("info-getnodeattr-response", cmd);
    resp.add("rc", "0");
    if (it != node_attrs_.end())
      resp.add("found", "TRUE").add("value", it->second);
    else
      resp.add("found", "FALSE");
    answer(c, resp);
  } else if (name == "finalize") {
    c.finalized = true;
    answer(c, reply2("finalize-response", cmd).add("rc", "0"));
    c.close_after_write = true;
    write_to(c);
  } else if (name == "abort") {
    auto* world = cmd.find("isworld");
    auto* msg = cmd.find("msg");
    auto what = msg && !msg->empty() ? *msg : std::string("no message");
    if (world && *world == "FALSE") {
      // MPI_Abort on a communicator smaller than the world: the rank ends itself.
      step_.report(c.rank, "rank " + std::to_string(c.rank) + " aborted through PMI: " + what);
      return;
    }
    on_abort(c, what);
  } else {
    auto known = name == "job-connect" || name == "job-disconnect" || name == "name-publish" ||
                 name == "name-unpublish" || name == "name-lookup" || name == "spawn";
    answer(c, reply2(name + "-response", cmd)
                  .add("rc", "-1")
                  .add("errmsg", known ? "shoal's PMI server does not serve " + name
                                       : "unknown PMI-2 command " + name));
  }
}

void pmi2_server::on_abort(connection& c, const std::string& what) {
  c.finalized = true;  // its exit is the abort's, not a rank lost under a fence
  step_.abort_everywhere(
      c.rank, "rank " + std::to_string(c.rank) + " aborted the step through PMI (" + what + ")");
}

// -- fences ---------------------------------------------------------------------------------

void pmi2_server::join_fence(connection& c, std::string thrid) {
  c.fence_thrid = std::move(thrid);
  // A rank that already ended here unnoticed (it never spoke PMI, and exited 0) will never
  // join: fail now rather than at the timeout.
  if (failed_.empty())
    for (auto& other : conns_)
      if (other.exited && !other.finalized) {
        rank_gone(other, other.exit_how, false);
        break;
      }
  if (!failed_.empty()) {
    answer_fence(c, failed_);
    end_step(c.rank);
    return;
  }
  if (c.in_fence || round_open_) {
    answer_fence(c, "rank " + std::to_string(c.rank) + " entered a PMI fence twice");
    return;
  }
  c.in_fence = true;
  if (++fence_joined_ == conns_.size()) start_round();
}

void pmi2_server::start_round() {
  round_open_ = true;
  std::weak_ptr<pmi2_server*> self = self_;
  step_.exchange->allgather(kvs_.take_pending(), [self](step_exchange::result result) {
    if (auto alive = self.lock()) (*alive)->end_round(result);
  });
}

void pmi2_server::end_round(const step_exchange::result& result) {
  if (!round_open_) return;
  round_open_ = false;
  std::string error;
  if (!result)
    error = describe(result.error());
  else if (auto err = kvs_.merge(*result))
    error = describe(err);
  if (!error.empty()) {
    fail_fences("PMI fence failed: " + error);
    return;
  }
  fence_joined_ = 0;
  for (auto& c : conns_) {
    if (!c.in_fence) continue;
    c.in_fence = false;
    answer_fence(c, {});
  }
}

void pmi2_server::answer_fence(connection& c, const std::string& error) {
  auto wire = c.reader.wire();
  auto resp = reply(wire == pmi_wire::v1 ? "barrier_out" : "kvs-fence-response");
  if (!c.fence_thrid.empty()) resp.add("thrid", c.fence_thrid);
  if (error.empty())
    resp.add("rc", "0");
  else
    resp.add("rc", "-1").add(wire == pmi_wire::v1 ? "msg" : "errmsg", error);
  answer(c, resp);
}

void pmi2_server::fail_fences(const std::string& why) {
  if (failed_.empty()) failed_ = why;
  std::vector<uint32_t> told;
  for (auto& c : conns_) {
    if (!c.in_fence) continue;
    c.in_fence = false;
    answer_fence(c, failed_);
    told.push_back(c.rank);
  }
  fence_joined_ = 0;
  if (!told.empty()) end_step(told.front());
}

void pmi2_server::end_step(uint32_t rank) {
  // Told of the failure, a rank may still wait forever: MPICH's PMI-1 client ignores a
  // barrier's rc, and its ranks then wait on a peer that is gone in shared memory. As Slurm's
  // pmi2 plugin does, the step ends here (once), with the reason on its stderr.
  if (ended_) return;
  ended_ = true;
  step_.abort(rank, failed_);
}

void pmi2_server::rank_gone(connection& c, const std::string& how, bool clean) {
  // A task that never spoke PMI and ended well is no MPI rank (`shoal run --mpi=pmi2 hostname`):
  // nothing waits on it unless a fence here already does.
  if (clean && !c.spoke && fence_joined_ == 0 && !round_open_) return;
  auto why = "rank " + std::to_string(c.rank) + " " + how + " before PMI finalize";
  if (!fail_sent_) {
    fail_sent_ = true;
    step_.exchange->fail(why);
  }
  // A round in flight ends through its done (the exchange fails it); one not started never
  // would.
  if (!round_open_) fail_fences(why);
}

}  // namespace shoal::process
