#include "tools/cli/job_options.hpp"

#include <fcntl.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <set>

#include "config/begin_time.hpp"
#include "config/duration.hpp"
#include "config/memory_size.hpp"
#include "messages/errc.hpp"
#include "policy/array_spec.hpp"
#include "policy/dependency.hpp"
#include "policy/gres.hpp"
#include "policy/warn_signal.hpp"
#include "tools/cli/identity.hpp"
#include "topology/cpu_binding.hpp"

extern char** environ;

namespace shoal::cli {

void normalize_optional_values(const CLI::App& app, std::vector<std::string>& args, size_t first,
                               bool kill_command) {
  for (size_t i = first; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--" || a.size() < 2 || a[0] != '-') return;  // the command starts here
    if (a.rfind("--", 0) == 0) {
      // --name VALUE takes the next word when the option wants one and no '=' holds it.
      if (a.find('=') != std::string::npos) continue;
      const auto* opt = app.get_option_no_throw(a);
      if (opt != nullptr && opt->get_type_size_min() > 0 && opt->get_expected_min() > 0) ++i;
      continue;
    }
    auto flag = std::string{"-"} + a[1];
    if (a.size() > 2 && (a[1] == 'I' || (a[1] == 'K' && kill_command))) {
      args[i] = (a[1] == 'I' ? "--immediate=" : "--kill-command=") + a.substr(2);
      continue;
    }
    const auto* opt = app.get_option_no_throw(flag);
    if (a.size() == 2 && opt != nullptr && opt->get_type_size_min() > 0 &&
        opt->get_expected_min() > 0)
      ++i;
  }
}

namespace {

shoal::expected<uint32_t> parse_node_count(const std::string& text) {
  if (text.empty()) return 0u;
  auto min_part = text.substr(0, text.find('-'));
  char* end = nullptr;
  auto value = std::strtoul(min_part.c_str(), &end, 10);
  if (min_part.empty() || *end != '\0' || value == 0 || value > 1'000'000)
    return shoal::error(errc::invalid_request,
                        "invalid node count '" + text + "' (use -N N or -N MIN-MAX, N >= 1)");
  return static_cast<uint32_t>(value);
}

/// "AxBxC" (x or X) -> {A, B, C}, each 1 or more.
shoal::expected<std::vector<uint32_t>> parse_geometry(const std::string& text) {
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
    return shoal::error(errc::invalid_request,
                        "invalid --geometry '" + text + "' (use AxBxC, such as 2x2x2)");
  return out;
}

/// Unique per submission: host, process, time and randomness.
std::string submission_token() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  // getrandom(2), not std::random_device: the latter probes the CPU with cpuid first, which
  // traps to the hypervisor in a VM and cost about 1% of a `shoal batch`.
  uint64_t nonce = 0;
  if (::getrandom(&nonce, sizeof nonce, 0) != static_cast<ssize_t>(sizeof nonce))
    nonce = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  auto stamp = std::chrono::system_clock::now().time_since_epoch().count();
  return std::string{host} + ":" + std::to_string(getpid()) + ":" + std::to_string(stamp) + ":" +
         std::to_string(nonce);
}

std::string working_directory() {
  char buf[PATH_MAX];
  return getcwd(buf, sizeof buf) != nullptr ? buf : "/";
}

std::string upper(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

/// Slurm's parse_int for a count that must be positive, with its wording.
shoal::expected<uint32_t> positive_count(const std::string& text, const char* option) {
  if (text.empty()) return 0u;
  char* end = nullptr;
  errno = 0;
  auto value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || value <= 0 || errno == ERANGE || value > INT32_MAX)
    return shoal::error(errc::invalid_request,
                        "Invalid numeric value \"" + text + "\" for " + option + ".");
  return static_cast<uint32_t>(value);
}

/// The first level of a --distribution value ("cyclic" of "cyclic:block,Pack"), checked as
/// Slurm's verify_dist_type accepts it.
shoal::expected<std::string> distribution_kind(const std::string& text) {
  auto first = upper(text.substr(0, text.find_first_of(":,")));
  if (first == "*") return std::string{"BLOCK"};
  if (first == "BLOCK" || first == "CYCLIC" || first == "ARBITRARY") return first;
  if (first.rfind("PLANE=", 0) == 0) {
    auto size = first.substr(6);
    if (!size.empty() && size.size() < 10 &&
        size.find_first_not_of("0123456789") == std::string::npos &&
        std::strtoul(size.c_str(), nullptr, 10) > 0)
      return std::string{"PLANE"};
  }
  return shoal::error(errc::invalid_request, "Invalid --distribution specification");
}

/// Splits an --export list on commas outside quotes, dropping quotes around a whole item (as
/// Slurm's find_quote_token).
std::vector<std::string> export_items(const std::string& spec) {
  std::vector<std::string> items;
  std::string item;
  char quote = 0;
  auto finish = [&] {
    if (item.size() >= 2 && (item.front() == '"' || item.front() == '\'') &&
        item.back() == item.front())
      item = item.substr(1, item.size() - 2);
    items.push_back(item);
    item.clear();
  };
  for (char c : spec) {
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == ',') {
      finish();
      continue;
    }
    item += c;
  }
  finish();
  return items;
}

std::string name_of(const std::string& entry) {
  return entry.substr(0, entry.find('='));
}

bool kept_always(const std::string& entry) {
  return entry.rfind("SLURM_", 0) == 0 || entry.rfind("SHOAL_", 0) == 0;
}

}  // namespace

std::optional<count_refusal> refused_count(const job_options& o) {
  if (!o.bad_count.empty())
    return count_refusal{
        "Invalid numeric value \"" + o.bad_count_text + "\" for " + o.bad_count + ".", 1, false};
  for (auto [text, option] :
       {std::pair{&o.ntasks_per_node, "--ntasks-per-node"},
        std::pair{&o.ntasks_per_core, "--ntasks-per-core"},
        std::pair{&o.ntasks_per_socket, "--ntasks-per-socket"}, std::pair{&o.mincpus, "--mincpus"}})
    if (auto count = positive_count(*text, option); !count)
      return count_refusal{describe(count.error()), 1, false};
  // arg_set_mem's words, left with slurm_process_option_or_exit's exit(-1).
  for (auto [text, option] :
       {std::pair{&o.mem, "--mem"}, std::pair{&o.mem_per_cpu, "--mem-per-cpu"}})
    if (!text->empty() && !config::parse_memory_mb(*text, option))
      return count_refusal{std::string{"Invalid "} + option + " specification", 255, false};
  if (o.nodes.empty()) return std::nullopt;
  // verify_node_count: a count, or MIN-MAX where an empty MIN is 0.
  auto number = [](const std::string& text, long& value) {
    char* end = nullptr;
    value = std::strtol(text.c_str(), &end, 10);
    while (std::isspace(static_cast<unsigned char>(*end))) ++end;
    return *end == '\0';
  };
  long min = 0;
  long max = 0;
  auto dash = o.nodes.find('-');
  auto min_text = o.nodes.substr(0, dash);
  if (!number(min_text, min))
    return count_refusal{"\"" + min_text + "\" is not a valid node count", 255, false};
  if (dash != std::string::npos) {
    auto max_text = o.nodes.substr(dash + 1);
    if (!number(max_text, max))
      return count_refusal{"\"" + max_text + "\" is not a valid node count", 255, false};
    if (max != 0 && max < min)
      return count_refusal{"Maximum node count " + std::to_string(max) +
                               " is less than minimum node count " + std::to_string(min),
                           255, false};
  }
  if (min <= 0) return count_refusal{"Node count specification invalid", 1, true};
  return std::nullopt;
}

shoal::expected<task_density> parse_task_density(const job_options& o) {
  task_density d;
  auto core = positive_count(o.ntasks_per_core, "--ntasks-per-core");
  if (!core) return std::move(core.error());
  auto socket = positive_count(o.ntasks_per_socket, "--ntasks-per-socket");
  if (!socket) return std::move(socket.error());
  d.per_core = *core;
  d.per_socket = *socket;
  return d;
}

node_shape consistent_shape(uint32_t cpus, uint32_t sockets, uint32_t cores, uint32_t threads) {
  node_shape s{cpus, sockets, cores, threads};
  if (sockets == 0 || cores == 0 || threads == 0 ||
      uint64_t{sockets} * cores * threads != uint64_t{cpus})
    s = node_shape{cpus, 1, cpus, 1};
  return s;
}

uint32_t tasks_per_node_limit(const node_shape& shape, const task_density& d,
                              uint32_t cpus_per_task) {
  uint64_t cpt = std::max<uint32_t>(1, cpus_per_task);
  // Usable CPUs per core: all its threads, or as many as per_core tasks need.
  uint64_t per_core_cpus = shape.threads_per_core;
  if (d.per_core > 0) per_core_cpus = std::min<uint64_t>(per_core_cpus, d.per_core * cpt);
  // A socket gives its cores' usable CPUs, at most per_socket tasks' worth; tasks then take
  // the node's CPUs cpus_per_task at a time.
  uint64_t socket_cpus = uint64_t{shape.cores_per_socket} * per_core_cpus;
  if (d.per_socket > 0) socket_cpus = std::min<uint64_t>(socket_cpus, d.per_socket * cpt);
  return static_cast<uint32_t>(std::min<uint64_t>(UINT32_MAX, socket_cpus * shape.sockets / cpt));
}

std::vector<std::string> ignored_option_notes(const job_options& o) {
  std::vector<std::string> notes;
  if (!o.distribution.empty()) {
    auto kind = distribution_kind(o.distribution);
    // Block and cyclic across nodes are what shoal does; a second level (how CPUs are picked
    // within a node), plane and arbitrary are not.
    bool done = kind && (*kind == "BLOCK" || *kind == "CYCLIC") &&
                o.distribution.find_first_of(":,") == std::string::npos;
    if (!done)
      notes.push_back("--distribution=" + o.distribution + " is ignored (tasks are placed " +
                      (kind && *kind == "CYCLIC" ? "cyclic" : "in block order") + " across nodes)");
  }
  if (!o.hint.empty())
    notes.push_back("--hint=" + o.hint + " is ignored (use --cpu-bind to bind tasks)");
  // Each option once (a #SBATCH line and the command line may both give it): the last value.
  for (size_t i = 0; i < o.ignored.size(); ++i) {
    const auto& [given, why] = o.ignored[i];
    auto name = given.substr(0, given.find('='));
    bool later =
        std::any_of(o.ignored.begin() + static_cast<std::ptrdiff_t>(i) + 1, o.ignored.end(),
                    [&](const auto& x) { return x.first.substr(0, x.first.find('=')) == name; });
    if (!later) notes.push_back(given + " is ignored (" + why + ")");
  }
  if (o.quiet) notes.clear();
  return notes;
}

shoal::expected<std::vector<std::string>> environment_file(const std::string& name) {
  char* end = nullptr;
  long fd = std::strtol(name.c_str(), &end, 10);
  bool is_fd = *end == '\0' && fd >= 3 && fd <= ::sysconf(_SC_OPEN_MAX) &&
               ::fcntl(static_cast<int>(fd), F_GETFL) >= 0;
  int in = is_fd ? static_cast<int>(fd) : ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return shoal::error(errc::invalid_request, "Could not open user environment file " + name);
  std::string text;
  char buf[4096];
  for (;;) {
    auto n = ::read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(in);
  // As env_array_from_file: entries end at a NUL; the text after the last NUL is not one.
  std::vector<std::string> out;
  for (size_t start = 0, nul = text.find('\0'); nul != std::string::npos && nul != start;
       start = nul + 1, nul = text.find('\0', start)) {
    auto entry = text.substr(start, nul - start);
    if (entry.find('=') != std::string::npos) out.push_back(std::move(entry));
  }
  return out;
}

shoal::expected<std::vector<std::string>> exported_environment(
    const std::string& spec, const std::vector<std::string>& env) {
  if (spec.empty() || upper(spec) == "ALL") return env;
  std::vector<std::string> out;
  auto put = [&out](const std::string& entry) {
    auto name = name_of(entry);
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const std::string& e) { return name_of(e) == name; });
    if (same != out.end())
      *same = entry;
    else
      out.push_back(entry);
  };
  if (upper(spec) != "NONE") {
    for (auto& item : export_items(spec)) {
      if (upper(item) == "ALL") {
        for (auto& e : env) put(e);
        continue;
      }
      if (item.empty() || item.front() == '=')
        return shoal::error(errc::invalid_request,
                            "invalid --export '" + spec +
                                "' (use ALL, NONE or VAR[=VALUE],... with no empty item)");
      if (item.find('=') != std::string::npos) {
        put(item);
        continue;
      }
      for (auto& e : env)
        if (name_of(e) == item) put(e);
    }
  }
  for (auto& e : env)
    if (kept_always(e)) put(e);
  return out;
}

shoal::expected<std::string> canonical_mail_type(const std::string& text) {
  // Slurm's bits, in the order print_mail_type lists them.
  static const char* const order[] = {
      "ARRAY_TASKS", "INVALID_DEPEND", "BEGIN",         "END",           "FAIL",      "REQUEUE",
      "STAGE_OUT",   "TIME_LIMIT_50",  "TIME_LIMIT_80", "TIME_LIMIT_90", "TIME_LIMIT"};
  std::set<std::string> set;
  bool none = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    auto end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    auto word = upper(text.substr(pos, end - pos));
    pos = end + 1;
    if (word == "NONE") {
      set.clear();
      none = true;
      break;
    }
    if (word == "ALL") {
      set.insert({"INVALID_DEPEND", "BEGIN", "END", "FAIL", "REQUEUE", "STAGE_OUT"});
      continue;
    }
    for (auto* known : order)
      if (word == known) set.insert(word);
  }
  if (set.empty() && !none)
    return shoal::error(errc::invalid_request, "Invalid --mail-type specification");
  if (none) return std::string{"NONE"};
  std::string out;
  for (auto* known : order)
    if (set.count(known) != 0) out += (out.empty() ? "" : ",") + std::string{known};
  return out;
}

std::string wrap_script(const std::string& command) {
  // Word for word what sbatch submits, so `scontrol write batch_script`-style readers agree.
  return "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n" + command + "\n";
}

namespace {

/// -N, the 3-D torus shape and -t.
shoal::error set_size_and_time(const job_options& o, msg::job_request& req) {
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
      return shoal::error(errc::invalid_request,
                          "invalid --conn-type '" + o.conn_type + "' (use mesh or torus)");
    req.shape.conn_type = type;
  }
  if (!o.node_use.empty()) {
    std::string use;
    for (char c : o.node_use) use += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (use != "coprocessor" && use != "virtual")
      return shoal::error(errc::invalid_request,
                          "invalid --node-use '" + o.node_use + "' (use coprocessor or virtual)");
    req.shape.node_use = use;
  }
  if (!o.time.empty()) {
    auto limit = config::parse_time_limit(o.time);
    if (!limit) return std::move(limit.error());
    if (*limit == 0)
      return shoal::error(errc::invalid_time, "a time limit of 0 is not allowed (-t)");
    req.time_limit_s = *limit;
  }
  return {};
}

/// Who submits, what the tasks run and where, their environment and binding.
shoal::error set_tasks(const job_options& o, std::vector<std::string> argv, bool batch,
                       msg::job_request& req) {
  auto user = current_user();
  req.user = user.name;
  req.uid = user.uid;
  req.gid = user.gid;
  req.ntasks = o.ntasks;
  req.cpus_per_task = o.cpus_per_task;
  req.partition = o.partition;
  req.name = o.name;
  req.nodelist = o.nodelist;
  req.constraint = o.constraint;
  req.licenses = o.licenses;
  req.exclude = o.exclude;
  req.label = o.label;
  req.requeue = o.requeue && !o.no_requeue;
  if (!o.cpu_bind.empty()) {
    auto bind = topology::parse_cpu_bind(o.cpu_bind);
    if (!bind) return std::move(bind.error());
    req.cpu_bind = topology::to_string(*bind);
  }
  req.nice = o.nice;
  req.batch = batch;
  // A relative -D is the submission directory's, as in Slurm (the node daemon has another cwd).
  req.cwd = o.chdir.empty()          ? working_directory()
            : o.chdir.front() == '/' ? o.chdir
                                     : working_directory() + "/" + o.chdir;
  req.stdout_path = o.output;
  req.stderr_path = o.error;
  req.argv = std::move(argv);
  std::vector<std::string> own_env;
  if (!o.export_file.empty()) {
    auto from_file = environment_file(o.export_file);
    if (!from_file) return std::move(from_file.error());
    own_env = std::move(*from_file);
  } else {
    for (char** e = environ; *e != nullptr; ++e) own_env.emplace_back(*e);
  }
  auto env = exported_environment(o.export_env, own_env);
  if (!env) return std::move(env.error());
  req.env = std::move(*env);
  req.submit_token = submission_token();
  // Where the client runs: a step's SrunHost:Pid in scontrol show steps.
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) req.submit_host = host;
  req.submit_pid = static_cast<uint32_t>(::getpid());
  return {};
}

/// Arrays, dependencies, holds, sharing, --begin and memory.
shoal::error set_scheduling(const job_options& o, msg::job_request& req) {
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
  if (!o.priority.empty()) {
    // slurm_opt.c's arg_set_priority: TOP, or a number from 0 below NO_VAL.
    char* end = nullptr;
    auto n = std::strtoll(o.priority.c_str(), &end, 10);
    if (strcasecmp(o.priority.c_str(), "TOP") == 0)
      w.priority = UINT32_MAX - 1;
    else if (n < 0)
      return shoal::error(errc::invalid_request, "Priority must be >= 0");
    else if (n >= static_cast<long long>(UINT32_MAX - 1) || *end != '\0' ||
             end == o.priority.c_str())
      return shoal::error(errc::invalid_request,
                          *end != '\0' || end == o.priority.c_str()
                              ? "Invalid --priority '" + o.priority + "' (a number, or TOP)"
                              : "Priority must be < " + std::to_string(UINT32_MAX - 1));
    else if (n == 0)
      w.hold = true;
    else
      w.priority = static_cast<uint32_t>(n);
  }
  w.exclusive = o.exclusive;
  w.oversubscribe = o.oversubscribe;
  if (!o.begin.empty()) {
    auto at = config::parse_begin_time(o.begin, static_cast<int64_t>(std::time(nullptr)));
    if (!at) return std::move(at.error());
    w.begin_time = *at;
  }
  if (o.exclusive && o.oversubscribe)
    return shoal::error(errc::invalid_request,
                        "--exclusive and --oversubscribe are mutually exclusive");
  if (!o.mem.empty() && !o.mem_per_cpu.empty())
    return shoal::error(errc::invalid_request, "--mem and --mem-per-cpu are mutually exclusive");
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
  return {};
}

/// Tasks per node, core and socket, and --mincpus.
shoal::error set_task_density(const job_options& o, msg::job_request& req) {
  auto& w = req.workload;
  auto per_node = positive_count(o.ntasks_per_node, "--ntasks-per-node");
  if (!per_node) return std::move(per_node.error());
  w.ntasks_per_node = *per_node;
  auto density = parse_task_density(o);
  if (!density) return std::move(density.error());
  {
    // As sbatch and srun put them in the job's environment.
    auto put = [&](const char* name, uint32_t value) {
      if (value == 0) return;
      auto prefix = std::string{name} + "=";
      auto& env = req.env;
      env.erase(std::remove_if(env.begin(), env.end(),
                               [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }),
                env.end());
      env.push_back(prefix + std::to_string(value));
    };
    put("SLURM_NTASKS_PER_CORE", density->per_core);
    put("SLURM_NTASKS_PER_SOCKET", density->per_socket);
  }
  auto mincpus = positive_count(o.mincpus, "--mincpus");
  if (!mincpus) return std::move(mincpus.error());
  w.min_cpus = *mincpus;
  return {};
}

/// Output files' open mode, mail, the warning signal, and what is only recorded.
shoal::error set_notices(const job_options& o, bool batch, msg::job_request& req) {
  auto& w = req.workload;
  if (!o.open_mode.empty()) {
    // As Slurm: the first letter decides.
    auto first = std::tolower(static_cast<unsigned char>(o.open_mode.front()));
    if (first != 'a' && first != 't')
      return shoal::error(errc::invalid_request, "Invalid --open-mode specification");
    w.open_mode = first == 'a' ? "append" : "truncate";
  }
  if (!o.mail_type.empty()) {
    auto mail = canonical_mail_type(o.mail_type);
    if (!mail) return std::move(mail.error());
    w.mail_type = *mail == "NONE" ? std::string{} : *mail;
  }
  w.mail_user = o.mail_user;
  if (!o.signal.empty()) {
    auto warn = policy::parse_warn_signal(o.signal, batch);
    if (!warn) return std::move(warn.error());
    w.warn_signal = warn->signo;
    w.warn_time_s = warn->time_s;
    w.warn_batch_only = warn->batch_only;
    w.warn_reservation = warn->reservation;
  }
  w.account = o.account;
  w.reservation = o.reservation;
  w.qos = o.qos;
  w.comment = o.comment;
  return {};
}

/// Generic resources (--gres, --gpus-per-node) and the task distribution.
shoal::error set_gres_and_distribution(const job_options& o, bool batch, msg::job_request& req) {
  auto gres_spec = o.gres == "none" ? std::string{} : o.gres;
  if (!o.gpus_per_node.empty()) {
    // --gpus-per-node=[TYPE:]N is --gres=gpu[:TYPE]:N (a bare TYPE would read as a count).
    if (!std::isdigit(static_cast<unsigned char>(o.gpus_per_node.back())))
      return shoal::error(errc::invalid_request, "Invalid generic resource (gres) specification");
    gres_spec += (gres_spec.empty() ? "gpu:" : ",gpu:") + o.gpus_per_node;
  }
  auto gres = policy::parse_gres_request(gres_spec);
  if (!gres) return std::move(gres.error());
  req.gres = policy::gres_text(*gres);
  if (!o.distribution.empty()) {
    auto kind = distribution_kind(o.distribution);
    if (!kind) return std::move(kind.error());
    req.workload.cyclic = *kind == "CYCLIC";
    // As sbatch: the job's environment carries the distribution, so a bare srun in the script
    // (which reads SLURM_DISTRIBUTION) lays its tasks out the same way.
    if (batch) {
      auto& env = req.env;
      env.erase(std::remove_if(
                    env.begin(), env.end(),
                    [](const std::string& e) { return e.rfind("SLURM_DISTRIBUTION=", 0) == 0; }),
                env.end());
      env.push_back("SLURM_DISTRIBUTION=" + o.distribution);
    }
  }
  return {};
}

}  // namespace

shoal::expected<msg::job_request> build_request(const job_options& o, std::vector<std::string> argv,
                                                bool batch) {
  msg::job_request req;
  if (auto bad = refused_count(o)) return shoal::error(errc::invalid_request, bad->text);
  if (auto err = set_size_and_time(o, req)) return err;
  if (auto err = set_tasks(o, std::move(argv), batch, req)) return err;
  if (auto err = set_scheduling(o, req)) return err;
  if (auto err = set_task_density(o, req)) return err;
  if (auto err = set_notices(o, batch, req)) return err;
  if (auto err = set_gres_and_distribution(o, batch, req)) return err;
  return req;
}

}  // namespace shoal::cli
