#include "tools/cli/job_options.hpp"

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>

#include "config/begin_time.hpp"
#include "config/duration.hpp"
#include "config/memory_size.hpp"
#include "messages/errc.hpp"
#include "policy/array_spec.hpp"
#include "policy/dependency.hpp"
#include "tools/cli/identity.hpp"
#include "topology/cpu_binding.hpp"

extern char** environ;

namespace shoal::cli {

void add_job_options(CLI::App& app, job_options& o, bool batch) {
  app.add_option("-N,--nodes", o.nodes,
                 "Number of whole nodes (N; MIN-MAX is accepted and allocates MIN)");
  app.add_option("-n,--ntasks", o.ntasks, "Number of tasks (default: one per node)");
  app.add_option("-c,--cpus-per-task", o.cpus_per_task, "CPUs each task needs");
  app.add_option("-p,--partition", o.partition, "Partition (default: the Default=YES one)");
  app.add_option("-t,--time", o.time,
                 "Time limit: MIN, MIN:SEC, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED");
  app.add_option("-J,--job-name", o.name, "Job name (default: the command)");
  app.add_option("-w,--nodelist", o.nodelist, "Nodes the job must include (hostlist)");
  app.add_option("-x,--exclude", o.exclude, "Nodes the job must not use (hostlist)");
  app.add_option("-D,--chdir", o.chdir, "Working directory of the tasks (default: here)");
  app.add_flag("--requeue", o.requeue, "Requeue the job if one of its nodes fails");
  app.add_option("--nice", o.nice, "Lower the job's priority by this much");
  app.add_option("--cpu-bind", o.cpu_bind,
                 "Bind each task to CPUs: [quiet|verbose,]none|cores|threads|sockets|ldoms|rank|"
                 "map_cpu:LIST|mask_cpu:LIST (default none; --cpu-bind=help explains)")
      ->each([](const std::string& value) {
        // As srun: the option's own help, then exit.
        if (topology::is_cpu_bind_help(value)) {
          std::fputs(topology::cpu_bind_help(), stdout);
          std::exit(0);
        }
      });
  app.add_option("--jobid", o.jobid,
                 "Run as a step inside this running job (default: $SHOAL_JOB_ID when set)");
  app.add_option("-d,--dependency", o.dependency,
                 "Start only after other jobs: after|afterok|afternotok|afterany:ID[:ID...], "
                 "singleton; ',' means all of, '?' any of");
  app.add_option("--kill-on-invalid-dep", o.kill_on_invalid_dep,
                 "yes: cancel the job when its dependency can never be met (default: no, it "
                 "stays pending with reason DependencyNeverSatisfied)")
      ->check(CLI::IsMember({"yes", "no"}));
  app.add_option("-b,--begin", o.begin,
                 "Start no earlier than TIME: now+N[minutes|hours|days], HH:MM, "
                 "YYYY-MM-DD[THH:MM], MM/DD[/YY], today, tomorrow, midnight, noon");
  app.add_flag("-H,--hold", o.hold, "Submit held (release with `shoal control release ID`)");
  app.add_option("--mem", o.mem, "Memory per node, MB or with K|M|G|T (shared nodes only)");
  app.add_option("--mem-per-cpu", o.mem_per_cpu, "Memory per allocated CPU, MB or with K|M|G|T");
  app.add_flag("--exclusive", o.exclusive, "Hold whole nodes even where nodes are shared");
  app.add_flag("-s,--oversubscribe", o.oversubscribe,
               "Share CPUs (whole nodes under select/linear) with other jobs where the "
               "partition's OverSubscribe=YES allows it");
  app.add_option("-g,--geometry", o.geometry,
                 "3-D torus only: base partitions in X, Y and Z, as AxBxC (sets the node count)");
  app.add_flag("-R,--no-rotate", o.no_rotate,
               "3-D torus only: keep the geometry's axes as given (default: try rotations)");
  app.add_option("--conn-type", o.conn_type,
                 "3-D torus only: mesh (never wraps around the torus) or torus (default)");
  app.add_option("--node-use", o.node_use,
                 "3-D torus only: coprocessor (default) or virtual; recorded with the job");
  if (batch) {
    app.add_option("-a,--array", o.array,
                   "Job array indices: 1-100, 1-99:2, 1,3,5-7, with %N to run at most N at once");
    app.add_option("-o,--output", o.output,
                   "Output file (default: shoal-%j.out; %j job id, %u user, %x job name, "
                   "%A array job id, %a array task id)");
    app.add_option("-e,--error", o.error, "Error file (default: with the output)");
  } else {
    app.add_flag("-l,--label", o.label, "Prefix each output line with its task rank");
  }
}

namespace {

caf::expected<uint32_t> parse_node_count(const std::string& text) {
  if (text.empty()) return 0u;
  auto min_part = text.substr(0, text.find('-'));
  char* end = nullptr;
  auto value = std::strtoul(min_part.c_str(), &end, 10);
  if (min_part.empty() || *end != '\0' || value == 0 || value > 1'000'000)
    return make_error(errc::invalid_request,
                      "invalid node count '" + text + "' (use -N N or -N MIN-MAX, N >= 1)");
  return static_cast<uint32_t>(value);
}

/// "AxBxC" (x or X) -> {A, B, C}, each 1 or more.
caf::expected<std::vector<uint32_t>> parse_geometry(const std::string& text) {
  std::vector<uint32_t> out;
  size_t pos = 0;
  while (pos <= text.size() && out.size() < 4) {
    auto end = text.find_first_of("xX", pos);
    if (end == std::string::npos) end = text.size();
    auto part = text.substr(pos, end - pos);
    char* stop = nullptr;
    auto value = std::strtoul(part.c_str(), &stop, 10);
    if (part.empty() || *stop != '\0' || part[0] == '-' || part[0] == '+' || value == 0 ||
        value > 4096)
      break;
    out.push_back(static_cast<uint32_t>(value));
    pos = end + 1;
  }
  if (out.size() != 3 || pos != text.size() + 1)
    return make_error(errc::invalid_request,
                      "invalid --geometry '" + text + "' (use AxBxC, such as 2x2x2)");
  return out;
}

/// Unique per submission: host, process, time and randomness.
std::string submission_token() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::random_device rd;
  auto stamp = std::chrono::system_clock::now().time_since_epoch().count();
  return std::string{host} + ":" + std::to_string(getpid()) + ":" + std::to_string(stamp) + ":" +
         std::to_string((static_cast<uint64_t>(rd()) << 32) | rd());
}

std::string working_directory() {
  char buf[PATH_MAX];
  return getcwd(buf, sizeof buf) != nullptr ? buf : "/";
}

}  // namespace

caf::expected<msg::job_request> build_request(const job_options& o, std::vector<std::string> argv,
                                              bool batch) {
  msg::job_request req;
  auto nodes = parse_node_count(o.nodes);
  if (!nodes) return std::move(nodes.error());
  req.min_nodes = *nodes;
  if (!o.geometry.empty()) {
    auto geometry = parse_geometry(o.geometry);
    if (!geometry) return std::move(geometry.error());
    req.shape.geometry = std::move(*geometry);
  }
  req.shape.rotate = !o.no_rotate;
  if (!o.conn_type.empty()) {
    std::string type;
    for (char c : o.conn_type)
      type += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (type != "mesh" && type != "torus")
      return make_error(errc::invalid_request,
                        "invalid --conn-type '" + o.conn_type + "' (use mesh or torus)");
    req.shape.conn_type = type;
  }
  if (!o.node_use.empty()) {
    std::string use;
    for (char c : o.node_use) use += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (use != "coprocessor" && use != "virtual")
      return make_error(errc::invalid_request,
                        "invalid --node-use '" + o.node_use + "' (use coprocessor or virtual)");
    req.shape.node_use = use;
  }
  if (!o.time.empty()) {
    auto limit = config::parse_time_limit(o.time);
    if (!limit) return std::move(limit.error());
    if (*limit == 0) return make_error(errc::invalid_time, "a time limit of 0 is not allowed (-t)");
    req.time_limit_s = *limit;
  }
  auto user = current_user();
  req.user = user.name;
  req.uid = user.uid;
  req.gid = user.gid;
  req.ntasks = o.ntasks;
  req.cpus_per_task = o.cpus_per_task;
  req.partition = o.partition;
  req.name = o.name;
  req.nodelist = o.nodelist;
  req.exclude = o.exclude;
  req.label = o.label;
  req.requeue = o.requeue;
  if (!o.cpu_bind.empty()) {
    auto bind = topology::parse_cpu_bind(o.cpu_bind);
    if (!bind) return std::move(bind.error());
    req.cpu_bind = topology::to_string(*bind);
  }
  req.nice = o.nice;
  req.batch = batch;
  req.cwd = o.chdir.empty() ? working_directory() : o.chdir;
  req.stdout_path = o.output;
  req.stderr_path = o.error;
  req.argv = std::move(argv);
  for (char** e = environ; *e != nullptr; ++e) req.env.emplace_back(*e);
  req.submit_token = submission_token();
  auto& w = req.workload;
  // Syntax is checked here so a typo is a usage error; the controller checks the limits
  // (MaxArraySize) and that dependency targets exist.
  if (!o.array.empty()) {
    auto spec = policy::parse_array_spec(o.array, UINT32_MAX);
    if (!spec) return std::move(spec.error());
  }
  if (!o.dependency.empty()) {
    auto dep = policy::parse_dependency(o.dependency);
    if (!dep) return std::move(dep.error());
  }
  w.array = o.array;
  w.dependency = o.dependency;
  w.kill_on_invalid_dep = o.kill_on_invalid_dep == "yes";
  w.hold = o.hold;
  w.exclusive = o.exclusive;
  w.oversubscribe = o.oversubscribe;
  if (!o.begin.empty()) {
    auto at = config::parse_begin_time(o.begin, static_cast<int64_t>(std::time(nullptr)));
    if (!at) return std::move(at.error());
    w.begin_time = *at;
  }
  if (o.exclusive && o.oversubscribe)
    return make_error(errc::invalid_request,
                      "--exclusive and --oversubscribe are mutually exclusive");
  if (!o.mem.empty() && !o.mem_per_cpu.empty())
    return make_error(errc::invalid_request, "--mem and --mem-per-cpu are mutually exclusive");
  if (!o.mem.empty()) {
    auto mb = config::parse_memory_mb(o.mem, "--mem");
    if (!mb) return std::move(mb.error());
    w.mem_per_node_mb = *mb;
  }
  if (!o.mem_per_cpu.empty()) {
    auto mb = config::parse_memory_mb(o.mem_per_cpu, "--mem-per-cpu");
    if (!mb) return std::move(mb.error());
    w.mem_per_cpu_mb = *mb;
  }
  return req;
}

}  // namespace shoal::cli
