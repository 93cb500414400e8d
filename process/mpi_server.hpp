#pragma once

// The PMI servers of a step (srun --mpi=pmi2|pmix): what shoal-stepd gives an MPI program's ranks
// so that started directly (`shoal run -n8 ./app`) they find each other instead of starting as
// singletons. The server runs in shoal-stepd, beside the tasks it serves (as Slurm's mpi plugins
// run in slurmstepd), so a restart of shoald does not take it away. The data the ranks publish
// crosses nodes through step_exchange: stepd -> shoald's shepherd -> the step's other shepherds,
// along a tree (actors/shepherd_exchange.hpp).

#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::process {

/// The step's all-gather across its nodes. One round at a time: a server calls allgather again
/// only after the previous round's `done` ran.
class step_exchange {
 public:
  /// Every node's blob, in node order (launch_request::node_index), this node's included.
  using result = shoal::expected<std::vector<std::string>>;
  using done_fn = std::function<void(result)>;

  virtual ~step_exchange() = default;

  /// Contributes this node's `blob` to the step's next all-gather. `done` runs later from
  /// shoal-stepd's poll loop (never inside this call) with every node's blob, or with the error
  /// that ended the round: errc::unreachable when a node's step ended or its daemon went before
  /// it joined, errc::system_error naming the timeout (PMIxTimeout) and the nodes that did not
  /// join. Either way the text is for the ranks' users: the server shows it on the tasks' stderr.
  virtual void allgather(std::string blob, done_fn done) = 0;

  /// Fails the step's open round (or its next one, when none is open) on every node with `why`,
  /// instead of this node's blob: a rank here ended before joining it, so waiting for it would
  /// only end in the timeout. A round already waiting here gets `done` with the error too.
  virtual void fail(std::string why) = 0;
};

/// What a server may do to the step besides answering its ranks.
struct mpi_step {
  /// The step: ranks here, ntasks, nodes, rank_nodes (every rank's node), pmi_timeout_s.
  const msg::launch_request* request = nullptr;
  std::string node_name;
  step_exchange* exchange = nullptr;
  /// A directory only this step uses (mode 0700, owned by the step's user when stepd switches
  /// user), for the server's sockets; removed with its contents after the step.
  std::string scratch_dir;
  /// Writes `text` (one line, newline added) to the step's stderr as rank `rank`'s output.
  std::function<void(uint32_t rank, const std::string& text)> report;
  /// Ends the step here: every task on this node is killed; `why` is reported first (report()).
  std::function<void(uint32_t rank, const std::string& why)> abort;
  /// Tells the step's other nodes to end their tasks too (null: nobody to tell).
  std::function<void(const std::string& why)> spread_abort;

  /// A rank asked for the whole step's end (MPI_Abort, PMI's abort): every node's tasks end, as
  /// Slurm's srun ends the step. A rank merely lost ends only this node's part: the other
  /// nodes learn of it through their fences, with the reason.
  void abort_everywhere(uint32_t rank, const std::string& why) const {
    if (abort) abort(rank, why);
    if (spread_abort) spread_abort(why);
  }
};

/// A PMI server for one step on this node. Single-threaded from shoal-stepd's view: every call
/// comes from its poll loop. A server with threads of its own (PMIx's progress thread) wakes the
/// loop through a descriptor it adds in add_fds.
class mpi_server {
 public:
  virtual ~mpi_server() = default;

  /// Before the task with local id `local_id` (global rank `rank`) starts: appends what the task
  /// needs in its environment, and sets `inherit_fd` to a descriptor the task keeps under the same
  /// number (PMI-2's PMI_FD; -1: none). An error fails the step before the task starts.
  virtual shoal::error prepare_task(uint32_t local_id, uint32_t rank, std::vector<std::string>& env,
                                    int& inherit_fd) = 0;

  /// The task is running (or failed to start: pid -1): the parent's copy of its inherited
  /// descriptor may be closed now.
  virtual void task_started(uint32_t local_id, pid_t pid) = 0;

  /// The task ended (`status` as waitpid reports it). A rank that ends before finalizing fails
  /// what waits on it (a fence), so the others get an error instead of waiting for it.
  virtual void task_exited(uint32_t local_id, int status) = 0;

  /// Appends the server's descriptors to shoal-stepd's poll set.
  virtual void add_fds(std::vector<pollfd>& fds) = 0;

  /// Serves `fds[0..count)`, those add_fds appended, in the same order.
  virtual void handle_fds(const pollfd* fds, size_t count) = 0;
};

/// True when `type` (StepIo::mpi) asks for a PMI server: anything but empty, none and openmpi
/// (make_mpi_server then makes one, or refuses a type it does not serve).
bool wants_pmi_server(const std::string& type);

/// The server `step.request->io.mpi` names: PMI-2 (`pmi2`, which also serves the PMI-1 wire
/// protocol, as Slurm's mpi/pmi2 does), PMIx (`pmix`, `pmix_v4`); null for `none`, `openmpi`
/// and an empty type. Errors: errc::invalid_request for a type shoal does not serve,
/// errc::system_error when the server cannot start (the text names the call).
shoal::expected<std::unique_ptr<mpi_server>> make_mpi_server(mpi_step step);

}  // namespace shoal::process
