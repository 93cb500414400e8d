#pragma once

// `--mpi=pmi2`: the PMI server of one step on this node, as Slurm's mpi/pmi2 plugin runs it in
// slurmstepd. Each local task gets one end of a socketpair as PMI_FD and speaks PMI-1 or PMI-2
// over it (process/pmi_wire.hpp: MPICH's default client speaks PMI-1, Slurm's libpmi2 and
// MPICH built --with-pmi=pmi2 speak PMI-2). A fence (PMI-1 barrier_in, PMI-2 kvs-fence)
// completes once every local rank joined and the step's other nodes did too: this node's puts
// since the last fence go to step_exchange::allgather, and every node's come back.
//
// What each task finds in its environment: PMI_FD (the descriptor), PMI_RANK, PMI_SIZE and
// PMI_JOBID ("jobid.stepid", also the KVS name); PMI_ID, PMI_PORT and PMI_SPAWNED are removed,
// since a client would prefer them to the descriptor or think itself spawned.

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "process/mpi_server.hpp"
#include "process/pmi_wire.hpp"

namespace shoal::process {

class pmi2_server final : public mpi_server {
 public:
  /// `step.request` and `step.exchange` must outlive the server.
  explicit pmi2_server(mpi_step step);
  ~pmi2_server() override;
  pmi2_server(const pmi2_server&) = delete;
  pmi2_server& operator=(const pmi2_server&) = delete;

  // -- mpi_server --
  shoal::error prepare_task(uint32_t local_id, uint32_t rank, std::vector<std::string>& env,
                            int& inherit_fd) override;
  void task_started(uint32_t local_id, pid_t pid) override;
  void task_exited(uint32_t local_id, int status) override;
  void add_fds(std::vector<pollfd>& fds) override;
  void handle_fds(const pollfd* fds, size_t count) override;

 private:
  /// One local task's PMI connection.
  struct connection {
    uint32_t rank = 0;
    int fd = -1;        ///< the server's end; -1 once closed
    int child_fd = -1;  ///< the task's end, until the task started
    pmi_reader reader;
    std::string out;  ///< answers not written yet
    bool spoke = false;
    bool initialized = false;  ///< sent its init
    bool finalized = false;
    bool exited = false;
    std::string exit_how;  ///< how it ended ("exited with code 3"), once exited
    bool in_fence = false;
    bool close_after_write = false;
    bool in_spawn = false;         ///< inside a PMI-1 mcmd (spawn) until its endcmd line
    std::string fence_thrid;       ///< PMI-2 thrid of its pending fence, echoed in the answer
    bool waits_node_attr = false;  ///< an info-getnodeattr with wait=TRUE is unanswered
    std::string node_attr_key;
    std::string node_attr_thrid;
  };

  // -- connections --
  void read_from(connection& c);
  void write_to(connection& c);
  void close_connection(connection& c);
  void answer(connection& c, const pmi_command& cmd);
  void answer(connection& c, pmi_wire wire, const pmi_command& cmd);

  // -- commands --
  void on_message(connection& c, const std::string& message);
  void on_init(connection& c, const pmi_command& cmd);
  void on_pmi1(connection& c, const pmi_command& cmd);
  void on_pmi2(connection& c, const pmi_command& cmd);
  void on_abort(connection& c, const std::string& what);
  const std::string* job_value(const std::string& key) const;

  // -- fences --
  void join_fence(connection& c, std::string thrid);
  void start_round();
  void end_round(const step_exchange::result& result);
  void answer_fence(connection& c, const std::string& error);
  /// Fails every local rank waiting in a fence, and each later fence, with `why`, then ends
  /// the step when one waited.
  void fail_fences(const std::string& why);
  /// Ends the step through mpi_step::abort with failed_ (shown as `rank`'s), the first time only.
  void end_step(uint32_t rank);
  void rank_gone(connection& c, const std::string& how, bool clean);

  mpi_step step_;
  std::string jobid_;  ///< PMI_JOBID and the KVS name
  uint32_t size_ = 0;
  std::string mapping_;
  std::vector<connection> conns_;  ///< by local id
  std::vector<size_t> polled_;     ///< the connection behind each descriptor add_fds added
  pmi_kvs kvs_;
  std::map<std::string, std::string> node_attrs_;
  size_t fence_joined_ = 0;  ///< local ranks waiting in the current fence
  bool round_open_ = false;  ///< allgather called, its done not run yet
  std::string failed_;       ///< why fences fail from now on; empty: they do not
  bool fail_sent_ = false;   ///< step_exchange::fail called
  bool ended_ = false;       ///< end_step ran
  /// Expires with the server, so an allgather's done that runs later does nothing.
  std::shared_ptr<pmi2_server*> self_;
};

}  // namespace shoal::process
