#include "messages/codec.hpp"

#include <cstring>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include "messages/errc.hpp"
#include "messages/shoal.capnp.h"

namespace shoal::msg {

namespace {

// -- helpers ------------------------------------------------------------------------------------

template <class Builder>
void set_texts(Builder&& list, const std::vector<std::string>& xs) {
  for (unsigned i = 0; i < xs.size(); ++i) list.set(i, xs[i]);
}

std::vector<std::string> get_texts(capnp::List<capnp::Text>::Reader list) {
  std::vector<std::string> out;
  out.reserve(list.size());
  for (auto t : list) out.emplace_back(t.cStr(), t.size());
  return out;
}

std::string str(capnp::Text::Reader t) {
  return std::string{t.cStr(), t.size()};
}

node_state node_state_from(capnp::Text::Reader t) {
  return parse_node_state(std::string_view{t.cStr(), t.size()}).value_or(node_state::unknown);
}

job_state job_state_from(capnp::Text::Reader t) {
  return parse_job_state(std::string_view{t.cStr(), t.size()}).value_or(job_state::pending);
}

template <class Wire, class T, class Fill>
std::vector<char> encode_with(const T& x, Fill fill) {
  capnp::MallocMessageBuilder mb;
  fill(mb.initRoot<Wire>(), x);
  auto words = capnp::messageToFlatArray(mb);
  auto bytes = words.asBytes();
  return std::vector<char>(bytes.begin(), bytes.end());
}

template <class Wire, class T, class Read>
caf::error decode_with(const std::vector<char>& buf, T& x, Read read) {
  if (buf.empty() || buf.size() % sizeof(capnp::word) != 0)
    return make_error(errc::malformed_message, "message size is not a whole number of words");
  // Copy into word-aligned storage: the byte vector carries no alignment guarantee.
  auto words = kj::heapArray<capnp::word>(buf.size() / sizeof(capnp::word));
  std::memcpy(words.begin(), buf.data(), buf.size());
  try {
    capnp::FlatArrayMessageReader reader{words};
    T result;
    read(reader.getRoot<Wire>(), result);
    x = std::move(result);
    return caf::none;
  } catch (const kj::Exception& e) {
    return make_error(errc::malformed_message, e.getDescription().cStr());
  }
}

// -- per type -----------------------------------------------------------------------------------

void fill(wire::MachineStatus::Builder b, const machine_status& x) {
  b.setNodeName(x.node_name);
  b.setHostname(x.hostname);
  b.setOs(x.os);
  b.setCpus(x.cpus);
  b.setSockets(x.sockets);
  b.setCoresPerSocket(x.cores_per_socket);
  b.setThreadsPerCore(x.threads_per_core);
  b.setCpuMhz(x.cpu_mhz);
  b.setRealMemoryMb(x.real_memory_mb);
  b.setVirtualMemoryMb(x.virtual_memory_mb);
  b.setTmpDiskMb(x.tmp_disk_mb);
  b.setBootTime(x.boot_time);
  b.setDaemonStartTime(x.daemon_start_time);
  b.setDaemonPid(x.daemon_pid);
}

void read(wire::MachineStatus::Reader r, machine_status& x) {
  x.node_name = str(r.getNodeName());
  x.hostname = str(r.getHostname());
  x.os = str(r.getOs());
  x.cpus = r.getCpus();
  x.sockets = r.getSockets();
  x.cores_per_socket = r.getCoresPerSocket();
  x.threads_per_core = r.getThreadsPerCore();
  x.cpu_mhz = r.getCpuMhz();
  x.real_memory_mb = r.getRealMemoryMb();
  x.virtual_memory_mb = r.getVirtualMemoryMb();
  x.tmp_disk_mb = r.getTmpDiskMb();
  x.boot_time = r.getBootTime();
  x.daemon_start_time = r.getDaemonStartTime();
  x.daemon_pid = r.getDaemonPid();
}

void fill(wire::NodeInfo::Builder b, const node_info& x) {
  b.setName(x.name);
  b.setState(to_string(x.state));
  b.setReason(x.reason);
  b.setReasonTime(x.reason_time);
  b.setReasonUser(x.reason_user);
  b.setStateSince(x.state_since);
  b.setLastResponse(x.last_response);
  b.setAddress(x.address);
  b.setCpus(x.cpus);
  b.setRealMemoryMb(x.real_memory_mb);
  b.setTmpDiskMb(x.tmp_disk_mb);
  b.setWeight(x.weight);
  set_texts(b.initPartitions(x.partitions.size()), x.partitions);
  fill(b.initReported(), x.reported);
  auto ids = b.initJobIds(x.job_ids.size());
  for (unsigned i = 0; i < x.job_ids.size(); ++i) ids.set(i, x.job_ids[i]);
  b.setFeatures(x.features);
}

void read(wire::NodeInfo::Reader r, node_info& x) {
  x.name = str(r.getName());
  x.state = node_state_from(r.getState());
  x.reason = str(r.getReason());
  x.reason_time = r.getReasonTime();
  x.reason_user = str(r.getReasonUser());
  x.state_since = r.getStateSince();
  x.last_response = r.getLastResponse();
  x.address = str(r.getAddress());
  x.cpus = r.getCpus();
  x.real_memory_mb = r.getRealMemoryMb();
  x.tmp_disk_mb = r.getTmpDiskMb();
  x.weight = r.getWeight();
  x.partitions = get_texts(r.getPartitions());
  read(r.getReported(), x.reported);
  for (auto id : r.getJobIds()) x.job_ids.push_back(id);
  x.features = str(r.getFeatures());
}

void fill(wire::PartitionInfo::Builder b, const partition_info& x) {
  b.setName(x.name);
  b.setState(x.state);
  b.setIsDefault(x.is_default);
  b.setMaxTimeS(x.max_time_s);
  b.setDefaultTimeS(x.default_time_s);
  b.setMaxNodes(x.max_nodes);
  set_texts(b.initNodes(x.nodes.size()), x.nodes);
  b.setPriority(x.priority);
  b.setOverSubscribe(x.over_subscribe);
}

void read(wire::PartitionInfo::Reader r, partition_info& x) {
  x.name = str(r.getName());
  x.state = str(r.getState());
  x.is_default = r.getIsDefault();
  x.max_time_s = r.getMaxTimeS();
  x.default_time_s = r.getDefaultTimeS();
  x.max_nodes = r.getMaxNodes();
  x.nodes = get_texts(r.getNodes());
  x.priority = r.getPriority();
  x.over_subscribe = str(r.getOverSubscribe());
}

template <class Builder>
void set_u32s(Builder&& list, const std::vector<uint32_t>& xs) {
  for (unsigned i = 0; i < xs.size(); ++i) list.set(i, xs[i]);
}

std::vector<uint32_t> get_u32s(capnp::List<uint32_t>::Reader list) {
  std::vector<uint32_t> out;
  out.reserve(list.size());
  for (auto v : list) out.push_back(v);
  return out;
}

void fill(wire::JobShape::Builder b, const job_shape& x) {
  set_u32s(b.initGeometry(x.geometry.size()), x.geometry);
  b.setRotate(x.rotate);
  b.setConnType(x.conn_type);
  b.setNodeUse(x.node_use);
}

void read(wire::JobShape::Reader r, job_shape& x) {
  x.geometry = get_u32s(r.getGeometry());
  x.rotate = r.getRotate();
  x.conn_type = str(r.getConnType());
  x.node_use = str(r.getNodeUse());
}

void fill(wire::JobRequest::Builder b, const job_request& x) {
  b.setJobId(x.job_id);
  b.setName(x.name);
  b.setUser(x.user);
  b.setUid(x.uid);
  b.setGid(x.gid);
  b.setPartition(x.partition);
  b.setMinNodes(x.min_nodes);
  b.setNtasks(x.ntasks);
  b.setCpusPerTask(x.cpus_per_task);
  b.setTimeLimitS(x.time_limit_s);
  b.setNodelist(x.nodelist);
  b.setExclude(x.exclude);
  set_texts(b.initArgv(x.argv.size()), x.argv);
  set_texts(b.initEnv(x.env.size()), x.env);
  b.setCwd(x.cwd);
  b.setBatch(x.batch);
  b.setScript(x.script);
  b.setStdoutPath(x.stdout_path);
  b.setStderrPath(x.stderr_path);
  b.setRequeue(x.requeue);
  b.setLabel(x.label);
  b.setNice(x.nice);
  b.setNodesMax(x.nodes_max);
  b.setSubmitToken(x.submit_token);
  auto w = b.initWorkload();
  w.setArray(x.workload.array);
  w.setDependency(x.workload.dependency);
  w.setKillOnInvalidDep(x.workload.kill_on_invalid_dep);
  w.setBeginTime(x.workload.begin_time);
  w.setHold(x.workload.hold);
  w.setMemPerNodeMb(x.workload.mem_per_node_mb);
  w.setMemPerCpuMb(x.workload.mem_per_cpu_mb);
  w.setExclusive(x.workload.exclusive);
  w.setOversubscribe(x.workload.oversubscribe);
  fill(b.initShape(), x.shape);
  b.setCpuBind(x.cpu_bind);
}

void read(wire::JobRequest::Reader r, job_request& x) {
  x.job_id = r.getJobId();
  x.name = str(r.getName());
  x.user = str(r.getUser());
  x.uid = r.getUid();
  x.gid = r.getGid();
  x.partition = str(r.getPartition());
  x.min_nodes = r.getMinNodes();
  x.ntasks = r.getNtasks();
  x.cpus_per_task = r.getCpusPerTask();
  x.time_limit_s = r.getTimeLimitS();
  x.nodelist = str(r.getNodelist());
  x.exclude = str(r.getExclude());
  x.argv = get_texts(r.getArgv());
  x.env = get_texts(r.getEnv());
  x.cwd = str(r.getCwd());
  x.batch = r.getBatch();
  x.script = str(r.getScript());
  x.stdout_path = str(r.getStdoutPath());
  x.stderr_path = str(r.getStderrPath());
  x.requeue = r.getRequeue();
  x.label = r.getLabel();
  x.nice = r.getNice();
  x.nodes_max = r.getNodesMax();
  x.submit_token = str(r.getSubmitToken());
  auto w = r.getWorkload();
  x.workload.array = str(w.getArray());
  x.workload.dependency = str(w.getDependency());
  x.workload.kill_on_invalid_dep = w.getKillOnInvalidDep();
  x.workload.begin_time = w.getBeginTime();
  x.workload.hold = w.getHold();
  x.workload.mem_per_node_mb = w.getMemPerNodeMb();
  x.workload.mem_per_cpu_mb = w.getMemPerCpuMb();
  x.workload.exclusive = w.getExclusive();
  x.workload.oversubscribe = w.getOversubscribe();
  read(r.getShape(), x.shape);
  x.cpu_bind = str(r.getCpuBind());
}

void fill(wire::JobInfo::Builder b, const job_info& x) {
  b.setJobId(x.job_id);
  b.setName(x.name);
  b.setUser(x.user);
  b.setUid(x.uid);
  b.setPartition(x.partition);
  b.setState(to_string(x.state));
  b.setReason(x.reason);
  b.setSubmitTime(x.submit_time);
  b.setStartTime(x.start_time);
  b.setEndTime(x.end_time);
  b.setTimeLimitS(x.time_limit_s);
  b.setNodeCount(x.node_count);
  b.setNodelist(x.nodelist);
  b.setNtasks(x.ntasks);
  b.setCpusPerTask(x.cpus_per_task);
  b.setExitCode(x.exit_code);
  b.setBatch(x.batch);
  b.setWorkDir(x.work_dir);
  b.setCommand(x.command);
  b.setStdoutPath(x.stdout_path);
  b.setStderrPath(x.stderr_path);
  b.setRequeueCount(x.requeue_count);
  b.setPriority(x.priority);
  b.setStepCount(x.step_count);
  b.setRequeue(x.requeue);
  b.setExcludeNodes(x.exclude_nodes);
  b.setRequiredNodes(x.required_nodes);
  b.setArrayJobId(x.array_job_id);
  b.setArrayTaskId(x.array_task_id);
  b.setArrayTasks(x.array_tasks);
  b.setDependency(x.dependency);
  b.setBeginTime(x.begin_time);
  b.setMemPerNodeMb(x.mem_per_node_mb);
  b.setOverSubscribe(x.over_subscribe);
}

void read(wire::JobInfo::Reader r, job_info& x) {
  x.job_id = r.getJobId();
  x.name = str(r.getName());
  x.user = str(r.getUser());
  x.uid = r.getUid();
  x.partition = str(r.getPartition());
  x.state = job_state_from(r.getState());
  x.reason = str(r.getReason());
  x.submit_time = r.getSubmitTime();
  x.start_time = r.getStartTime();
  x.end_time = r.getEndTime();
  x.time_limit_s = r.getTimeLimitS();
  x.node_count = r.getNodeCount();
  x.nodelist = str(r.getNodelist());
  x.ntasks = r.getNtasks();
  x.cpus_per_task = r.getCpusPerTask();
  x.exit_code = r.getExitCode();
  x.batch = r.getBatch();
  x.work_dir = str(r.getWorkDir());
  x.command = str(r.getCommand());
  x.stdout_path = str(r.getStdoutPath());
  x.stderr_path = str(r.getStderrPath());
  x.requeue_count = r.getRequeueCount();
  x.priority = r.getPriority();
  x.step_count = r.getStepCount();
  x.requeue = r.getRequeue();
  x.exclude_nodes = str(r.getExcludeNodes());
  x.required_nodes = str(r.getRequiredNodes());
  x.array_job_id = r.getArrayJobId();
  x.array_task_id = r.getArrayTaskId();
  x.array_tasks = str(r.getArrayTasks());
  x.dependency = str(r.getDependency());
  x.begin_time = r.getBeginTime();
  x.mem_per_node_mb = r.getMemPerNodeMb();
  x.over_subscribe = str(r.getOverSubscribe());
}

void fill(wire::LaunchRequest::Builder b, const launch_request& x) {
  b.setJobId(x.job_id);
  b.setStepId(x.step_id);
  b.setUser(x.user);
  b.setUid(x.uid);
  b.setGid(x.gid);
  set_texts(b.initArgv(x.argv.size()), x.argv);
  set_texts(b.initEnv(x.env.size()), x.env);
  b.setCwd(x.cwd);
  b.setNodelist(x.nodelist);
  b.setNodeIndex(x.node_index);
  b.setNodeCount(x.node_count);
  b.setNtasks(x.ntasks);
  auto ranks = b.initRanks(x.ranks.size());
  for (unsigned i = 0; i < x.ranks.size(); ++i) ranks.set(i, x.ranks[i]);
  b.setCpusPerTask(x.cpus_per_task);
  b.setBatch(x.batch);
  b.setScript(x.script);
  b.setStdoutPath(x.stdout_path);
  b.setStderrPath(x.stderr_path);
  b.setSwitchData(kj::arrayPtr(reinterpret_cast<const capnp::byte*>(x.switch_data.data()),
                               x.switch_data.size()));
  b.setJobNodelist(x.job_nodelist);
  b.setJobName(x.job_name);
  b.setPartition(x.partition);
  b.setJobNodeCount(x.job_node_count);
  b.setCpuBind(x.cpu_bind);
  auto cpus = b.initJobCpus(x.job_cpus.size());
  for (unsigned i = 0; i < x.job_cpus.size(); ++i) cpus.set(i, x.job_cpus[i]);
  b.setMemLimitMb(x.mem_limit_mb);
}

void read(wire::LaunchRequest::Reader r, launch_request& x) {
  x.job_id = r.getJobId();
  x.step_id = r.getStepId();
  x.user = str(r.getUser());
  x.uid = r.getUid();
  x.gid = r.getGid();
  x.argv = get_texts(r.getArgv());
  x.env = get_texts(r.getEnv());
  x.cwd = str(r.getCwd());
  x.nodelist = str(r.getNodelist());
  x.node_index = r.getNodeIndex();
  x.node_count = r.getNodeCount();
  x.ntasks = r.getNtasks();
  for (auto rank : r.getRanks()) x.ranks.push_back(rank);
  x.cpus_per_task = r.getCpusPerTask();
  x.batch = r.getBatch();
  x.script = str(r.getScript());
  x.stdout_path = str(r.getStdoutPath());
  x.stderr_path = str(r.getStderrPath());
  auto data = r.getSwitchData();
  x.switch_data.assign(data.begin(), data.end());
  x.job_nodelist = str(r.getJobNodelist());
  x.job_name = str(r.getJobName());
  x.partition = str(r.getPartition());
  x.job_node_count = r.getJobNodeCount();
  x.cpu_bind = str(r.getCpuBind());
  for (auto cpu : r.getJobCpus()) x.job_cpus.push_back(cpu);
  x.mem_limit_mb = r.getMemLimitMb();
}

void fill(wire::TaskOutput::Builder b, const task_output& x) {
  b.setJobId(x.job_id);
  b.setStepId(x.step_id);
  b.setRank(x.rank);
  b.setStream(static_cast<uint8_t>(x.stream));
  b.setData(kj::arrayPtr(reinterpret_cast<const capnp::byte*>(x.data.data()), x.data.size()));
  b.setNodeName(x.node_name);
}

void read(wire::TaskOutput::Reader r, task_output& x) {
  x.job_id = r.getJobId();
  x.step_id = r.getStepId();
  x.rank = r.getRank();
  x.stream = r.getStream() == 2 ? stream_kind::err : stream_kind::out;
  auto data = r.getData();
  x.data.assign(reinterpret_cast<const char*>(data.begin()), data.size());
  x.node_name = str(r.getNodeName());
}

void fill(wire::StepExit::Builder b, const step_exit& x) {
  b.setJobId(x.job_id);
  b.setStepId(x.step_id);
  b.setNodeName(x.node_name);
  auto tasks = b.initTasks(x.tasks.size());
  for (unsigned i = 0; i < x.tasks.size(); ++i) {
    tasks[i].setRank(x.tasks[i].rank);
    tasks[i].setExitCode(x.tasks[i].exit_code);
    tasks[i].setSignal(x.tasks[i].signal);
  }
  b.setLaunchError(x.launch_error);
  b.setOutOfMemory(x.out_of_memory);
}

void read(wire::StepExit::Reader r, step_exit& x) {
  x.job_id = r.getJobId();
  x.step_id = r.getStepId();
  x.node_name = str(r.getNodeName());
  for (auto t : r.getTasks()) x.tasks.push_back({t.getRank(), t.getExitCode(), t.getSignal()});
  x.launch_error = str(r.getLaunchError());
  x.out_of_memory = r.getOutOfMemory();
}

void fill(wire::JobEvent::Builder b, const job_event& x) {
  b.setJobId(x.job_id);
  b.setStepId(x.step_id);
  b.setKind(x.kind);
  b.setState(to_string(x.state));
  b.setNodelist(x.nodelist);
  b.setText(x.text);
  b.setExitCode(x.exit_code);
  b.setNodeCount(x.node_count);
}

void read(wire::JobEvent::Reader r, job_event& x) {
  x.job_id = r.getJobId();
  x.step_id = r.getStepId();
  x.kind = str(r.getKind());
  x.state = job_state_from(r.getState());
  x.nodelist = str(r.getNodelist());
  x.text = str(r.getText());
  x.exit_code = r.getExitCode();
  x.node_count = r.getNodeCount();
}

void fill(wire::NodeUpdate::Builder b, const node_update& x) {
  b.setNodes(x.nodes);
  b.setState(x.state);
  b.setReason(x.reason);
  b.setUser(x.user);
}

void read(wire::NodeUpdate::Reader r, node_update& x) {
  x.nodes = str(r.getNodes());
  x.state = str(r.getState());
  x.reason = str(r.getReason());
  x.user = str(r.getUser());
}

void fill(wire::PendingDetail::Builder b, const pending_detail& x) {
  b.setJobId(x.job_id);
  b.setReason(x.reason);
  b.setExpectedStart(x.expected_start);
  b.setPriority(x.priority);
  b.setAgeFactor(x.age_factor);
  b.setSizeFactor(x.size_factor);
  b.setPartitionFactor(x.partition_factor);
  b.setNice(x.nice);
}

void read(wire::PendingDetail::Reader r, pending_detail& x) {
  x.job_id = r.getJobId();
  x.reason = str(r.getReason());
  x.expected_start = r.getExpectedStart();
  x.priority = r.getPriority();
  x.age_factor = r.getAgeFactor();
  x.size_factor = r.getSizeFactor();
  x.partition_factor = r.getPartitionFactor();
  x.nice = r.getNice();
}

void fill(wire::JobControl::Builder b, const job_control& x) {
  b.setOp(x.op);
  set_texts(b.initJobs(x.jobs.size()), x.jobs);
  b.setUid(x.uid);
}

void read(wire::JobControl::Reader r, job_control& x) {
  x.op = str(r.getOp());
  x.jobs = get_texts(r.getJobs());
  x.uid = r.getUid();
}

void fill(wire::TopologyView::Builder b, const topology_view& x) {
  b.setSelectType(x.select_type);
  set_u32s(b.initDims(x.dims.size()), x.dims);
  auto nodes = b.initNodes(x.nodes.size());
  for (unsigned i = 0; i < x.nodes.size(); ++i) {
    const auto& n = x.nodes[i];
    nodes[i].setName(n.name);
    nodes[i].setState(to_string(n.state));
    nodes[i].setJobId(n.job_id);
    set_u32s(nodes[i].initCoord(n.coord.size()), n.coord);
  }
  auto allocs = b.initAllocations(x.allocations.size());
  for (unsigned i = 0; i < x.allocations.size(); ++i) {
    const auto& a = x.allocations[i];
    allocs[i].setJobId(a.job_id);
    allocs[i].setNodelist(a.nodelist);
    allocs[i].setNodeCount(a.node_count);
    set_u32s(allocs[i].initOrigin(a.origin.size()), a.origin);
    set_u32s(allocs[i].initSize(a.size.size()), a.size);
    allocs[i].setConnType(a.conn_type);
    allocs[i].setNodeUse(a.node_use);
  }
}

void read(wire::TopologyView::Reader r, topology_view& x) {
  x.select_type = str(r.getSelectType());
  x.dims = get_u32s(r.getDims());
  for (auto n : r.getNodes())
    x.nodes.push_back(
        {str(n.getName()), node_state_from(n.getState()), n.getJobId(), get_u32s(n.getCoord())});
  for (auto a : r.getAllocations())
    x.allocations.push_back({a.getJobId(), str(a.getNodelist()), a.getNodeCount(),
                             get_u32s(a.getOrigin()), get_u32s(a.getSize()), str(a.getConnType()),
                             str(a.getNodeUse())});
}

}  // namespace

#define SHOAL_DEFINE_CODEC(type, wire_type)                                                      \
  std::vector<char> encode(const type& x) {                                                      \
    return encode_with<wire::wire_type>(                                                         \
        x, [](wire::wire_type::Builder b, const type& v) { fill(b, v); });                       \
  }                                                                                              \
  caf::error decode(const std::vector<char>& buf, type& x) {                                     \
    return decode_with<wire::wire_type>(buf, x,                                                  \
                                        [](wire::wire_type::Reader r, type& v) { read(r, v); }); \
  }

SHOAL_DEFINE_CODEC(machine_status, MachineStatus)
SHOAL_DEFINE_CODEC(node_info, NodeInfo)
SHOAL_DEFINE_CODEC(partition_info, PartitionInfo)
SHOAL_DEFINE_CODEC(job_request, JobRequest)
SHOAL_DEFINE_CODEC(job_info, JobInfo)
SHOAL_DEFINE_CODEC(launch_request, LaunchRequest)
SHOAL_DEFINE_CODEC(task_output, TaskOutput)
SHOAL_DEFINE_CODEC(step_exit, StepExit)
SHOAL_DEFINE_CODEC(job_event, JobEvent)
SHOAL_DEFINE_CODEC(node_update, NodeUpdate)
SHOAL_DEFINE_CODEC(pending_detail, PendingDetail)
SHOAL_DEFINE_CODEC(job_control, JobControl)
SHOAL_DEFINE_CODEC(topology_view, TopologyView)

}  // namespace shoal::msg
