#include "process/pmix_server.hpp"

#include <pmix.h>
#include <pmix_server.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "config/log.hpp"
#include "process/task_launch.hpp"
#include "topology/hostlist.hpp"

namespace shoal::process {

namespace {

std::atomic<bool> server_started{false};

shoal::error pmix_failure(const std::string& call, pmix_status_t rc) {
  return shoal::error{shoal::errc::system_error, "PMIx: " + call + ": " + PMIx_Error_string(rc) +
                                                     " (" + std::to_string(rc) + ")"};
}

/// How long the end of a step waits for PMIx to drop its namespace and finalize.
constexpr std::chrono::milliseconds teardown_patience{5000};

/// Waits for a PMIx call's op callback: registration happens before any task starts, so a
/// short wait here holds up nothing the poll loop serves.
struct op_wait {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  pmix_status_t status = PMIX_SUCCESS;

  static void callback(pmix_status_t status, void* cbdata) {
    auto* self = static_cast<op_wait*>(cbdata);
    std::lock_guard lock{self->mu};
    self->status = status;
    self->done = true;
    self->cv.notify_all();
  }

  /// False when `patience` passed first.
  bool wait_for(std::chrono::milliseconds patience) {
    std::unique_lock lock{mu};
    return cv.wait_for(lock, patience, [this] { return done; });
  }

  pmix_status_t wait(pmix_status_t started) {
    if (started == PMIX_OPERATION_SUCCEEDED) return PMIX_SUCCESS;
    if (started != PMIX_SUCCESS) return started;
    std::unique_lock lock{mu};
    cv.wait(lock, [this] { return done; });
    return status;
  }
};

/// A list of pmix_info_t built with PMIx's own list helpers, so every value is copied in and
/// released by the library that allocated it.
class info_list {
 public:
  info_list() : list_(PMIx_Info_list_start()) {}
  ~info_list() {
    if (array_.array != nullptr) PMIx_Data_array_destruct(&array_);
    PMIx_Info_list_release(list_);
  }
  info_list(const info_list&) = delete;
  info_list& operator=(const info_list&) = delete;

  void add(const char* key, const void* value, pmix_data_type_t type) {
    if (status_ == PMIX_SUCCESS) status_ = PMIx_Info_list_add(list_, key, value, type);
  }
  void add_string(const char* key, const std::string& value) {
    add(key, value.c_str(), PMIX_STRING);
  }
  void add_u32(const char* key, uint32_t value) { add(key, &value, PMIX_UINT32); }
  void add_u16(const char* key, uint16_t value) { add(key, &value, PMIX_UINT16); }
  void add_bool(const char* key, bool value) { add(key, &value, PMIX_BOOL); }
  void add_rank(const char* key, pmix_rank_t value) { add(key, &value, PMIX_PROC_RANK); }
  /// Adds `inner` as one entry whose value is the array of its infos (PMIX_PROC_DATA).
  void add_array(const char* key, info_list& inner) {
    auto* array = inner.convert();
    if (array == nullptr) {
      status_ = inner.status_;
      return;
    }
    add(key, array, PMIX_DATA_ARRAY);
  }

  /// The infos as one array, owned by this list; null (status() says why) when a value failed.
  pmix_data_array_t* convert() {
    if (status_ != PMIX_SUCCESS) return nullptr;
    if (array_.array == nullptr) status_ = PMIx_Info_list_convert(list_, &array_);
    return status_ == PMIX_SUCCESS ? &array_ : nullptr;
  }
  pmix_status_t status() const { return status_; }

 private:
  void* list_;
  pmix_data_array_t array_{PMIX_UNDEF, 0, nullptr};
  pmix_status_t status_ = PMIX_SUCCESS;
};

std::string rank_exit_text(int status) {
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

void ignore_status(pmix_status_t, void*) {}

/// What PMIx's progress thread hands the poll loop.
struct pmix_event {
  enum class kind { connected, finalized, abort, fence };
  kind what = kind::connected;
  uint32_t rank = 0;
  int status = 0;
  std::string text;  ///< abort: the rank's message; fence: this node's blob
  pmix_modex_cbfunc_t fence_done = nullptr;
  pmix_op_cbfunc_t op_done = nullptr;
  void* cbdata = nullptr;
};

class pmix_server final : public mpi_server {
 public:
  explicit pmix_server(mpi_step step) : step_(std::move(step)) {}

  ~pmix_server() override {
    // OpenPMIx 4.2 can leave a lock of its own held when a client dies while connecting
    // ("PMIX ERROR: UNREACHABLE" from ptl_base_connection_hdlr.c): deregistering and finalizing
    // then wait for it forever. They run on a thread of their own, given a few seconds, and are
    // left behind when stuck: shoal-stepd exits after a PMIx step anyway (without the library's
    // teardown, runtime/stepd_main.cpp).
    auto teardown = std::make_shared<op_wait>();
    std::thread([teardown, registered = registered_, initialized = initialized_,
                 nspace = std::string{nspace_}] {
      if (registered) {
        op_wait gone;
        PMIx_server_deregister_nspace(nspace.c_str(), op_wait::callback, &gone);
        gone.wait(PMIX_SUCCESS);
      }
      if (initialized) PMIx_server_finalize();
      op_wait::callback(PMIX_SUCCESS, teardown.get());
    }).detach();
    if (!teardown->wait_for(teardown_patience))
      config::log().warn("PMIx server teardown stuck namespace={}: left behind", nspace_);
    active_.store(nullptr);
    if (wake_fd_ >= 0) ::close(wake_fd_);
    // Fences PMIx handed us and never heard back about belong to the library just finalized;
    // their blobs go with them.
  }

  shoal::error start();

  shoal::error prepare_task(uint32_t local_id, uint32_t rank, std::vector<std::string>& env,
                            int& inherit_fd) override;
  void task_started(uint32_t local_id, pid_t pid) override;
  void task_exited(uint32_t local_id, int status) override;
  void add_fds(std::vector<pollfd>& fds) override;
  void handle_fds(const pollfd* fds, size_t count) override;

  // -- PMIx's module, on its progress thread --
  static pmix_status_t on_connected(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t, void*);
  static pmix_status_t on_finalized(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t, void*);
  static pmix_status_t on_abort(const pmix_proc_t* proc, void*, int status, const char msg[],
                                pmix_proc_t[], size_t, pmix_op_cbfunc_t cbfunc, void* cbdata);
  static pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[],
                                size_t, char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                void* cbdata);
  static pmix_status_t on_direct_modex(const pmix_proc_t*, const pmix_info_t[], size_t,
                                       pmix_modex_cbfunc_t, void*);

 private:
  struct local_task {
    uint32_t rank = 0;
    bool connected = false;
    bool finalized = false;
    bool ended = false;
  };

  shoal::error register_nspace(const std::vector<std::string>& nodes);
  bool whole_namespace(const pmix_proc_t procs[], size_t nprocs) const;
  void post(pmix_event ev);
  void drain();
  void serve(pmix_event& ev);
  local_task* task_of(uint32_t rank);
  void start_next_fence();
  void finish_fence(step_exchange::result result);
  void rank_lost(local_task& task, const std::string& how);
  void report(const std::string& text);

  static std::atomic<pmix_server*> active_;

  mpi_step step_;
  std::string app_dir_;  ///< the ranks' PMIX_TMPDIR and PMIX_NSDIR, in the scratch directory
  pmix_nspace_t nspace_{};
  std::vector<local_task> tasks_;
  int wake_fd_ = -1;
  bool initialized_ = false;
  bool registered_ = false;

  std::mutex mu_;  ///< guards queue_, the one thing both threads touch
  std::deque<pmix_event> queue_;

  std::deque<pmix_event> fences_;  ///< waiting for the exchange, the first one in it
  bool in_exchange_ = false;
  /// Why the step's fences fail from now on (a rank ended before finalizing); empty: they don't.
  std::string failed_;
  bool death_seen_ = false;  ///< a rank here ended before finalizing: the exchange knows
  bool aborted_ = false;     ///< the step was ended (a rank's PMIx_Abort, or a death)
  /// Lets a round's `done` tell whether this server is still there.
  std::shared_ptr<pmix_server*> self_ = std::make_shared<pmix_server*>(this);
};

std::atomic<pmix_server*> pmix_server::active_{nullptr};

pmix_status_t pmix_server::on_connected(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t, void*) {
  pmix_event ev;
  ev.what = pmix_event::kind::connected;
  ev.rank = proc->rank;
  if (auto* self = active_.load()) self->post(std::move(ev));
  return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t pmix_server::on_finalized(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t, void*) {
  pmix_event ev;
  ev.what = pmix_event::kind::finalized;
  ev.rank = proc->rank;
  if (auto* self = active_.load()) self->post(std::move(ev));
  // Queued before the client hears back, so before it can exit: task_exited drains the queue
  // first and sees the rank finalized.
  return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t pmix_server::on_abort(const pmix_proc_t* proc, void*, int status, const char msg[],
                                    pmix_proc_t[], size_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  auto* self = active_.load();
  if (self == nullptr) return PMIX_ERR_NOT_SUPPORTED;
  pmix_event ev;
  ev.what = pmix_event::kind::abort;
  ev.rank = proc->rank;
  ev.status = status;
  if (msg != nullptr) ev.text = msg;
  ev.op_done = cbfunc;
  ev.cbdata = cbdata;
  self->post(std::move(ev));
  return PMIX_SUCCESS;
}

pmix_status_t pmix_server::on_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[],
                                    size_t, char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                    void* cbdata) {
  auto* self = active_.load();
  if (self == nullptr) return PMIX_ERR_NOT_SUPPORTED;
  // The exchange is an all-gather over every node of the step: a fence over some ranks only
  // would wait on nodes that never join it.
  if (!self->whole_namespace(procs, nprocs)) return PMIX_ERR_NOT_SUPPORTED;
  pmix_event ev;
  ev.what = pmix_event::kind::fence;
  if (data != nullptr) ev.text.assign(data, ndata);
  ev.fence_done = cbfunc;
  ev.cbdata = cbdata;
  self->post(std::move(ev));
  return PMIX_SUCCESS;
}

pmix_status_t pmix_server::on_direct_modex(const pmix_proc_t*, const pmix_info_t[], size_t,
                                           pmix_modex_cbfunc_t, void*) {
  // Every fence collects the data of every rank (Open MPI 4.1 asks for it by default), so what
  // a rank misses after one was never put.
  return PMIX_ERR_NOT_SUPPORTED;
}

bool pmix_server::whole_namespace(const pmix_proc_t procs[], size_t nprocs) const {
  std::vector<bool> seen(step_.request->ntasks, false);
  size_t count = 0;
  for (size_t i = 0; i < nprocs; ++i) {
    if (std::strncmp(procs[i].nspace, nspace_, PMIX_MAX_NSLEN) != 0) return false;
    if (procs[i].rank == PMIX_RANK_WILDCARD) return true;
    if (procs[i].rank < seen.size() && !seen[procs[i].rank]) {
      seen[procs[i].rank] = true;
      ++count;
    }
  }
  return count == seen.size();
}

void pmix_server::post(pmix_event ev) {
  {
    std::lock_guard lock{mu_};
    queue_.push_back(std::move(ev));
  }
  uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);
}

shoal::error pmix_server::start() {
  const auto& req = *step_.request;
  if (req.rank_nodes.size() != req.ntasks)
    return {shoal::errc::invalid_request,
            "--mpi=" + req.io.mpi + ": the launch carries no process map (rankNodes)"};
  auto nodes = topology::expand_hostlist(req.nodelist);
  if (!nodes) return nodes.error();
  if (nodes->size() != req.node_count || req.node_index >= nodes->size())
    return {shoal::errc::invalid_request, "--mpi=" + req.io.mpi + ": the step's node list " +
                                              req.nodelist + " does not hold " +
                                              std::to_string(req.node_count) + " nodes"};
  for (auto node : req.rank_nodes)
    if (node >= nodes->size())
      return {shoal::errc::invalid_request,
              "--mpi=" + req.io.mpi + ": a rank's node is outside the step"};
  if (server_started.exchange(true))
    return {shoal::errc::system_error,
            "PMIx: this process ran a PMIx server already; PMIx cannot start another"};

  // The ranks' own session files: Open MPI removes its session directory (PMIX_NSDIR) when a
  // rank finalizes, which must not take the server's rendezvous files with it.
  app_dir_ = step_.scratch_dir + "/app";
  if (::mkdir(app_dir_.c_str(), 0700) != 0 && errno != EEXIST)
    return {shoal::errc::system_error, "mkdir " + app_dir_ + ": " + errno_text(errno)};
  if (::geteuid() == 0 && ::chown(app_dir_.c_str(), req.uid, req.gid) != 0)
    return {shoal::errc::system_error, "chown " + app_dir_ + ": " + errno_text(errno)};
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return {shoal::errc::system_error, "eventfd: " + errno_text(errno)};
  for (auto rank : req.ranks) tasks_.push_back(local_task{rank});
  auto label = std::to_string(req.job_id) + "." + std::to_string(req.step_id);
  PMIX_LOAD_NSPACE(nspace_, ("shoal." + label).c_str());
  active_.store(this);

  static pmix_server_module_t module = [] {
    pmix_server_module_t m{};
    m.client_connected = on_connected;
    m.client_finalized = on_finalized;
    m.abort = on_abort;
    m.fence_nb = on_fence;
    m.direct_modex = on_direct_modex;
    return m;
  }();

  // Each step's server has its rendezvous and session files in the step's own scratch directory:
  // several shoal-stepd (several nodes of a test cluster) can run on one host, and none offers
  // the host-wide system or tool rendezvous.
  info_list init;
  init.add_string(PMIX_SERVER_TMPDIR, step_.scratch_dir);
  init.add_string(PMIX_SYSTEM_TMPDIR, step_.scratch_dir);
  init.add_bool(PMIX_SERVER_TOOL_SUPPORT, false);
  init.add_bool(PMIX_SERVER_SYSTEM_SUPPORT, false);
  init.add_bool(PMIX_SERVER_SESSION_SUPPORT, false);
  init.add_bool(PMIX_SERVER_REMOTE_CONNECTIONS, false);
  init.add_string(PMIX_HOSTNAME, step_.node_name);
  // The rendezvous belongs to the step's user: the tasks connect after switching to it.
  uint32_t uid = req.uid, gid = req.gid;
  init.add(PMIX_USERID, &uid, PMIX_UINT32);
  init.add(PMIX_GRPID, &gid, PMIX_UINT32);
  // Every fence reaches shoal's exchange, also when all its ranks are on this node: PMIx would
  // otherwise complete a one-node fence by itself, without the data of a rank that died before
  // it, where on several nodes the same death fails the fence. Read by PMIx_server_init;
  // shoal-stepd has no other thread yet, and the tasks' environment is the request's, not ours.
  ::setenv("PMIX_MCA_pmix_server_fence_localonly_opt", "0", 1);
  auto* init_infos = init.convert();
  if (init_infos == nullptr) return pmix_failure("PMIx_Info_list_add", init.status());
  // PMIx's progress thread inherits the signal mask of the thread that starts it: with every
  // signal blocked there, SIGTERM and SIGCHLD keep reaching shoal-stepd's signalfd instead.
  sigset_t all, previous;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  auto rc =
      PMIx_server_init(&module, static_cast<pmix_info_t*>(init_infos->array), init_infos->size);
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (rc != PMIX_SUCCESS) return pmix_failure("PMIx_server_init", rc);
  initialized_ = true;

  if (auto err = register_nspace(*nodes)) return err;
  registered_ = true;
  for (auto& task : tasks_) {
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, nspace_, task.rank);
    op_wait done;
    rc = done.wait(
        PMIx_server_register_client(&proc, req.uid, req.gid, nullptr, op_wait::callback, &done));
    if (rc != PMIX_SUCCESS) return pmix_failure("PMIx_server_register_client", rc);
  }
  return {};
}

shoal::error pmix_server::register_nspace(const std::vector<std::string>& nodes) {
  const auto& req = *step_.request;
  // Each node's ranks in rank order: a rank's local rank is its place there.
  std::vector<std::vector<uint32_t>> node_ranks(nodes.size());
  std::vector<uint16_t> local_rank(req.ntasks);
  for (uint32_t rank = 0; rank < req.ntasks; ++rank) {
    auto& on_node = node_ranks[req.rank_nodes[rank]];
    local_rank[rank] = static_cast<uint16_t>(on_node.size());
    on_node.push_back(rank);
  }
  std::string names, ppn;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (n > 0) {
      names += ',';
      ppn += ';';
    }
    names += nodes[n];
    for (size_t i = 0; i < node_ranks[n].size(); ++i)
      ppn += (i > 0 ? "," : "") + std::to_string(node_ranks[n][i]);
  }
  char* node_map = nullptr;
  char* proc_map = nullptr;
  auto rc = PMIx_generate_regex(names.c_str(), &node_map);
  if (rc != PMIX_SUCCESS) return pmix_failure("PMIx_generate_regex", rc);
  rc = PMIx_generate_ppn(ppn.c_str(), &proc_map);
  if (rc != PMIX_SUCCESS) {
    std::free(node_map);
    return pmix_failure("PMIx_generate_ppn", rc);
  }
  // The maps may be binary ("blob:"): PMIx takes them as PMIX_REGEX values, as Slurm passes them.
  info_list job;
  job.add(PMIX_NODE_MAP, node_map, PMIX_REGEX);
  job.add(PMIX_PROC_MAP, proc_map, PMIX_REGEX);
  std::free(node_map);
  std::free(proc_map);

  const auto& here = node_ranks[req.node_index];
  std::string peers;
  for (auto rank : here) peers += (peers.empty() ? "" : ",") + std::to_string(rank);
  job.add_string(PMIX_JOBID, std::to_string(req.job_id) + "." + std::to_string(req.step_id));
  job.add_u32(PMIX_UNIV_SIZE, req.ntasks);
  job.add_u32(PMIX_JOB_SIZE, req.ntasks);
  job.add_u32(PMIX_MAX_PROCS, req.ntasks);
  job.add_u32(PMIX_APP_SIZE, req.ntasks);
  job.add_u32(PMIX_APPNUM, 0);
  job.add_rank(PMIX_APPLDR, 0);
  job.add_u32(PMIX_NUM_NODES, static_cast<uint32_t>(nodes.size()));
  job.add_bool(PMIX_SPAWNED, false);
  job.add_u32(PMIX_LOCAL_SIZE, static_cast<uint32_t>(here.size()));
  job.add_u32(PMIX_NODE_SIZE, static_cast<uint32_t>(here.size()));
  job.add_string(PMIX_LOCAL_PEERS, peers);
  if (!here.empty()) job.add_rank(PMIX_LOCALLDR, here.front());
  job.add_string(PMIX_TMPDIR, app_dir_);
  job.add_string(PMIX_NSDIR, app_dir_);
  for (uint32_t rank = 0; rank < req.ntasks; ++rank) {
    auto node = req.rank_nodes[rank];
    info_list proc;
    proc.add_rank(PMIX_RANK, rank);
    proc.add_u32(PMIX_APPNUM, 0);
    proc.add_rank(PMIX_APP_RANK, rank);
    proc.add_rank(PMIX_GLOBAL_RANK, rank);
    proc.add_u16(PMIX_LOCAL_RANK, local_rank[rank]);
    proc.add_u16(PMIX_NODE_RANK, local_rank[rank]);
    proc.add_u32(PMIX_NODEID, node);
    proc.add_string(PMIX_HOSTNAME, nodes[node]);
    job.add_array(PMIX_PROC_DATA, proc);
  }
  auto* infos = job.convert();
  if (infos == nullptr) return pmix_failure("PMIx_Info_list_add", job.status());
  op_wait done;
  rc = done.wait(PMIx_server_register_nspace(nspace_, static_cast<int>(here.size()),
                                             static_cast<pmix_info_t*>(infos->array), infos->size,
                                             op_wait::callback, &done));
  if (rc != PMIX_SUCCESS) return pmix_failure("PMIx_server_register_nspace", rc);
  return {};
}

shoal::error pmix_server::prepare_task(uint32_t, uint32_t rank, std::vector<std::string>& env,
                                       int& inherit_fd) {
  inherit_fd = -1;
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, nspace_, rank);
  char** added = static_cast<char**>(std::calloc(1, sizeof(char*)));
  if (added == nullptr) return {shoal::errc::system_error, "PMIx_server_setup_fork: no memory"};
  auto rc = PMIx_server_setup_fork(&proc, &added);
  for (char** entry = added; entry != nullptr && *entry != nullptr; ++entry) {
    std::string kv = *entry;
    auto eq = kv.find('=');
    if (eq != std::string::npos) set_env(env, kv.substr(0, eq), kv.substr(eq + 1));
    std::free(*entry);
  }
  std::free(added);
  if (rc != PMIX_SUCCESS) return pmix_failure("PMIx_server_setup_fork", rc);
  return {};
}

void pmix_server::task_started(uint32_t local_id, pid_t pid) {
  if (pid >= 0 || local_id >= tasks_.size()) return;
  drain();
  rank_lost(tasks_[local_id], "did not start");
}

void pmix_server::task_exited(uint32_t local_id, int status) {
  if (local_id >= tasks_.size()) return;
  // What PMIx told the progress thread before the task ended (its PMIx_Finalize) comes first.
  drain();
  auto& task = tasks_[local_id];
  if (task.ended || task.finalized) return;
  // A program that never spoke PMIx and ended well (a shell step under MpiDefault=pmix) holds
  // up no fence.
  if (!task.connected && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    task.ended = true;
    return;
  }
  rank_lost(task, rank_exit_text(status));
}

void pmix_server::rank_lost(local_task& task, const std::string& how) {
  task.ended = true;
  auto why = "rank " + std::to_string(task.rank) + " on " + step_.node_name + " " + how +
             " before PMIx_Finalize";
  // The event PMIx clients (Open MPI's default error handler) take for a peer's death.
  pmix_proc_t lost;
  PMIX_LOAD_PROCID(&lost, nspace_, task.rank);
  pmix_info_t affected;
  PMIX_INFO_LOAD(&affected, PMIX_EVENT_AFFECTED_PROC, &lost, PMIX_PROC);
  // Copied before the call returns; ignore_status runs on the progress thread.
  PMIx_Notify_event(PMIX_ERR_PROC_ABORTED, &lost, PMIX_RANGE_NAMESPACE, &affected, 1, ignore_status,
                    nullptr);
  PMIX_INFO_DESTRUCT(&affected);
  // The first death fails the step's fences; the ranks that die of it say nothing new.
  if (failed_.empty()) failed_ = why;
  if (!death_seen_ && step_.exchange != nullptr) step_.exchange->fail(why);
  death_seen_ = true;
  // Fences not yet in the exchange fail here; the one in it hears through the exchange.
  if (!in_exchange_) finish_fence(shoal::error{shoal::errc::unreachable, failed_});
  // PMIx takes a client it lost the connection to out of the node's fences, which then reach
  // us and fail. One that never connected it waits for forever: the ranks here would hang in
  // their fence (Open MPI's MPI_Init does not act on the event), so the step ends.
  if (task.connected || aborted_) return;
  for (auto& other : tasks_)
    if (!other.ended && !other.finalized) {
      aborted_ = true;
      if (step_.abort) step_.abort(task.rank, why);
      return;
    }
}

void pmix_server::add_fds(std::vector<pollfd>& fds) {
  fds.push_back(pollfd{wake_fd_, POLLIN, 0});
}

void pmix_server::handle_fds(const pollfd* fds, size_t count) {
  if (count < 1 || (fds[0].revents & POLLIN) == 0) return;
  uint64_t ignored;
  (void)!::read(wake_fd_, &ignored, sizeof ignored);
  drain();
}

void pmix_server::drain() {
  std::deque<pmix_event> events;
  {
    std::lock_guard lock{mu_};
    events.swap(queue_);
  }
  for (auto& ev : events) serve(ev);
}

pmix_server::local_task* pmix_server::task_of(uint32_t rank) {
  for (auto& task : tasks_)
    if (task.rank == rank) return &task;
  return nullptr;
}

void pmix_server::serve(pmix_event& ev) {
  switch (ev.what) {
    case pmix_event::kind::connected:
      if (auto* task = task_of(ev.rank)) task->connected = true;
      return;
    case pmix_event::kind::finalized:
      if (auto* task = task_of(ev.rank)) task->finalized = true;
      return;
    case pmix_event::kind::abort: {
      auto why = "rank " + std::to_string(ev.rank) + " called PMIx_Abort (status " +
                 std::to_string(ev.status) + ")" + (ev.text.empty() ? "" : ": " + ev.text);
      if (auto* task = task_of(ev.rank)) task->ended = true;  // killed with the step
      aborted_ = true;
      step_.abort_everywhere(ev.rank, why);
      if (ev.op_done != nullptr) ev.op_done(PMIX_SUCCESS, ev.cbdata);
      return;
    }
    case pmix_event::kind::fence:
      fences_.push_back(std::move(ev));
      start_next_fence();
      return;
  }
}

void pmix_server::start_next_fence() {
  if (in_exchange_ || fences_.empty()) return;
  if (!failed_.empty()) return finish_fence(shoal::error{shoal::errc::unreachable, failed_});
  in_exchange_ = true;
  if (step_.exchange == nullptr) {
    // A step of one node has no one to exchange with.
    return finish_fence(std::vector<std::string>{fences_.front().text});
  }
  std::weak_ptr<pmix_server*> self = self_;
  step_.exchange->allgather(fences_.front().text, [self](step_exchange::result result) {
    if (auto alive = self.lock()) (*alive)->finish_fence(std::move(result));
  });
}

void release_blob(void* blob) {
  delete static_cast<std::string*>(blob);
}

void pmix_server::finish_fence(step_exchange::result result) {
  in_exchange_ = false;
  if (fences_.empty()) return;
  if (!result) {
    auto text = "PMIx fence failed: " + shoal::describe(result.error());
    report(text);
    if (failed_.empty()) failed_ = shoal::describe(result.error());
    // Every fence waiting here gets the error: the step cannot complete another.
    while (!fences_.empty()) {
      auto ev = std::move(fences_.front());
      fences_.pop_front();
      auto rc = result.error() == shoal::errc::system_error ? PMIX_ERR_TIMEOUT : PMIX_ERROR;
      ev.fence_done(rc, nullptr, 0, ev.cbdata, nullptr, nullptr);
    }
    return;
  }
  auto ev = std::move(fences_.front());
  fences_.pop_front();
  // PMIx reads the blob after this returns and calls release_blob when done with it.
  auto* blob = new std::string;
  for (auto& part : *result) *blob += part;
  ev.fence_done(PMIX_SUCCESS, blob->data(), blob->size(), ev.cbdata, release_blob, blob);
  start_next_fence();
}

void pmix_server::report(const std::string& text) {
  if (!step_.report) return;
  // Once per node, as the node's first rank: every rank here gets the same error.
  uint32_t rank = tasks_.empty() ? 0 : tasks_.front().rank;
  step_.report(rank, text);
}

}  // namespace

shoal::expected<std::unique_ptr<mpi_server>> make_pmix_server(mpi_step step) {
  auto server = std::make_unique<pmix_server>(std::move(step));
  if (auto err = server->start()) return err;
  return std::unique_ptr<mpi_server>{std::move(server)};
}

bool pmix_server_has_run() {
  return server_started.load();
}

}  // namespace shoal::process
