// What a job's running steps used so far (sstat): each node still running a step is asked now,
// down the chain job -> node actor -> shoald -> shepherd -> shoal-stepd, which samples the step
// on the spot. Nothing travels while nobody asks.

#include <memory>

#include "accounting/from_record.hpp"
#include "actors/job_internals.hpp"
#include "cluster/step_usage.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"

namespace shoal::actors::job_detail {

namespace {

/// How long a node may take to answer; one that does not adds nothing to the figures.
constexpr auto node_patience = std::chrono::seconds{15};

/// One answer being put together: the reply, and how many nodes it still waits for.
struct usage_gather {
  msg::accounted_job reply;
  size_t waiting = 0;
  caf::typed_response_promise<msg::accounted_job> rp;

  void one_answered() {
    if (--waiting == 0) rp.deliver(reply);
  }
};

}  // namespace

caf::result<msg::accounted_job> live_usage(job_self self, uint32_t step) {
  auto& st = self->state;
  auto gather = std::make_shared<usage_gather>();
  gather->reply.info = st.info;
  // What to ask: (index in reply.steps, step id, node index).
  struct question {
    size_t at;
    uint32_t step;
    size_t node;
  };
  std::vector<question> questions;
  for (auto& [id, run] : st.steps) {
    if (step != msg::all_steps && id != step) continue;
    msg::accounted_step s;
    s.step_id = accounting::store_step_id(id);
    s.name = id == msg::batch_step_id ? "batch" : st.info.name;
    s.nodelist = run.nodelist;
    s.node_count = static_cast<uint32_t>(run.nodes.size());
    s.ntasks = run.ntasks;
    s.state = "RUNNING";
    s.start_time = run.start_time;
    s.usage = run.usage;  // the nodes that reported their end already
    for (auto node : run.nodes)
      if (node < st.nodes.size() && run.waiting.count(st.nodes[node]) != 0)
        questions.push_back({gather->reply.steps.size(), id, node});
    gather->reply.steps.push_back(std::move(s));
  }
  if (questions.empty()) return gather->reply;
  gather->waiting = questions.size();
  gather->rp = self->make_response_promise<msg::accounted_job>();
  for (auto& q : questions) {
    auto name = st.nodes[q.node];
    self->request(st.node_actors[q.node], node_patience, msg::usage_atom_v, st.info.job_id, q.step)
        .then(
            [gather, at = q.at, name](msg::step_usage& part) {
              cluster::add_node_usage(gather->reply.steps[at].usage, part, name);
              gather->one_answered();
            },
            [gather](caf::error&) { gather->one_answered(); });
  }
  return gather->rp;
}

}  // namespace shoal::actors::job_detail
