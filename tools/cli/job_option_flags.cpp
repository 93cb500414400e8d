// The options batch, run and alloc take (sbatch's, srun's and salloc's), registered on their
// CLI11 apps: which flags exist, their forms and their --help text. What they mean for the
// request is job_options.cpp's.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tools/cli/job_options.hpp"
#include "topology/cpu_binding.hpp"

namespace shoal::cli {

namespace {

/// slurm_read_hostfile's list: the words of `path` (each line up to a `#`) joined by commas; ""
/// when it cannot be read or holds none.
std::string read_node_file(const std::string& path) {
  std::ifstream in{path};
  std::string line, word, out;
  while (std::getline(in, line)) {
    std::istringstream words{line.substr(0, line.find('#'))};
    while (words >> word) out += (out.empty() ? "" : ",") + word;
  }
  return out;
}

/// Size, partition, time limit, name, nodes, working directory, requeue, nice, CPU binding.
void add_basic_options(CLI::App& app, job_options& o) {
  app.add_option("-N,--nodes", o.nodes,
                 "Number of whole nodes (N; MIN-MAX is accepted and allocates MIN)");
  // What is no positive number is kept as typed, for refused_count to refuse in Slurm's words,
  // and leaves the number 0. The option keeps the text, so each layer (#SBATCH lines, input
  // variables, the command line) passes on what was typed.
  auto positive = [&o](uint32_t& target, const char* option) {
    return [&o, &target, option](const std::string& value) {
      char* end = nullptr;
      errno = 0;
      auto number = std::strtol(value.c_str(), &end, 10);
      if (end == value.c_str() || *end != '\0' || number <= 0 || errno == ERANGE ||
          number > INT32_MAX) {
        target = 0;
        o.bad_count = option;
        o.bad_count_text = value;
        return;
      }
      target = static_cast<uint32_t>(number);
      if (o.bad_count == option) o.bad_count.clear();  // a later layer set it right
    };
  };
  app.add_option_function<std::string>("-n,--ntasks", positive(o.ntasks, "--ntasks"),
                                       "Number of tasks (default: one per node)")
      ->type_name("UINT");
  app.add_option_function<std::string>(
         "-c,--cpus-per-task", positive(o.cpus_per_task, "--cpus-per-task"), "CPUs each task needs")
      ->type_name("UINT");
  app.add_option("-p,--partition", o.partition, "Partition (default: the Default=YES one)");
  app.add_option("-t,--time", o.time,
                 "Time limit: MIN, MIN:SEC, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED");
  app.add_option("-J,--job-name", o.name, "Job name (default: the command)");
  app.add_option("-w,--nodelist", o.nodelist, "Nodes the job must include (hostlist)");
  app.add_option_function<std::string>(
         "-F,--nodefile",
         [&o](const std::string& path) {
           auto names = read_node_file(path);
           if (names.empty())
             throw CLI::ValidationError("--nodefile", "Invalid --nodefile node file");
           o.nodelist = names;
         },
         "As -w, the nodes read from FILE (names or hostlists, any spacing, several lines)")
      ->type_name("FILE");
  app.add_option("-x,--exclude", o.exclude, "Nodes the job must not use (hostlist)");
  app.add_option("-C,--constraint", o.constraint,
                 "Node features the job needs: a&b (all), a|b (any), [a|b] (the same one on "
                 "every node), a*2 (at least 2 nodes with a), [a*2&b*4], parentheses to group");
  app.add_option("-L,--licenses", o.licenses,
                 "Licenses the job holds while it runs, of those Licenses= gives: "
                 "NAME[:COUNT][,NAME[:COUNT]...] (COUNT 1 when left out)");
  app.add_option("-D,--chdir", o.chdir, "Working directory of the tasks (default: here)");
  app.add_flag("--requeue", o.requeue, "Requeue the job if one of its nodes fails");
  app.add_option("--nice", o.nice,
                 "Lower the job's priority by this much (a negative one raises it: operators "
                 "only)");
  app.add_option("--priority", o.priority,
                 "A fixed priority, N or TOP (the highest); 0 submits it held. Operators only: "
                 "anyone else's is dropped, as Slurm drops it");
  // --cpu_bind: the spelling of Slurm before 19.05, which Open MPI's mpirun still passes.
  app.add_option("--cpu-bind,--cpu_bind", o.cpu_bind,
                 "Bind each task to CPUs: [quiet|verbose,]none|cores|threads|sockets|ldoms|rank|"
                 "map_cpu:LIST|mask_cpu:LIST (default none; --cpu-bind=help explains)")
      ->each([](const std::string& value) {
        // As srun: the option's own help, then exit.
        if (topology::is_cpu_bind_help(value)) {
          std::fputs(topology::cpu_bind_help(), stdout);
          std::exit(0);
        }
      });
}

/// Where (--jobid) and when the job may start: dependencies, --begin, --hold.
void add_start_options(CLI::App& app, job_options& o) {
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
}

/// Memory, sharing, the 3-D torus, and how tasks are spread over nodes, sockets and cores.
void add_resource_options(CLI::App& app, job_options& o) {
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
  app.add_option("--ntasks-per-node", o.ntasks_per_node,
                 "Tasks on each node: without -n, -n is nodes x this; with -n, at most this "
                 "many per node")
      ->type_name("N");
  app.add_option("--ntasks-per-core", o.ntasks_per_core,
                 "At most this many tasks on each core (the node's Sockets, CoresPerSocket and "
                 "ThreadsPerCore decide how many a node takes)")
      ->type_name("N");
  app.add_option("--ntasks-per-socket", o.ntasks_per_socket,
                 "At most this many tasks on each socket of a node")
      ->type_name("N");
  app.add_option("--mincpus", o.mincpus, "Use only nodes with at least this many CPUs")
      ->type_name("N");
}

/// The environment, what is recorded with the job, mail, warning signals, --test-only.
void add_record_options(CLI::App& app, job_options& o, bool batch, bool alloc) {
  app.add_option("--export", o.export_env,
                 "Environment the job gets: ALL (default), NONE (only SHOAL_* and SLURM_*), or "
                 "VAR[=VALUE],... (those, with SHOAL_* and SLURM_*; ALL in the list adds all)");
  app.add_flag("--no-requeue", o.no_requeue, "Never requeue the job (the default)");
  app.add_option("-A,--account", o.account, "Account to record with the job (no limits apply)");
  app.add_option("--reservation", o.reservation,
                 "Run in this reservation (scontrol create reservation): only on its nodes, "
                 "only while it is active, only for its users and accounts");
  app.add_option("-q,--qos", o.qos, "Quality of service to record with the job (no limits apply)");
  app.add_option("--comment", o.comment, "Comment to record with the job");
  app.add_option("--mail-type", o.mail_type,
                 "When to mail: NONE, BEGIN, END, FAIL, REQUEUE, ALL, ... (through the cluster's "
                 "MailProg; none without one)");
  app.add_option("--mail-user", o.mail_user, "Who the mail goes to (default: the job's owner)");
  if (!alloc)
    app.add_option("--open-mode", o.open_mode,
                   batch ? "How the output and error files are opened: append (default) or "
                           "truncate"
                         : "How -o/-e files are opened: truncate (the default, by the first task "
                           "on each node) or append");
  app.add_option("--signal", o.signal,
                 batch ? "[{R|B}:]SIG[@TIME]: send SIG (name or number) TIME seconds (default "
                         "60; 0: never) before the time limit, to every step's tasks but the "
                         "batch shell's; B: to the batch shell only; R: is accepted (no "
                         "effect)"
                       : "[R:]SIG[@TIME]: send SIG (name or number) to the job's steps TIME "
                         "seconds (default 60; 0: never) before the time limit; R: is accepted "
                         "(no effect)");
  if (!alloc)
    app.add_flag("--test-only", o.test_only,
                 "Submit nothing: print when and where the job would start now, as "
                 "\"Job N to start at TIME using N processors on nodes LIST in partition P\"");
}

/// Generic resources and task distribution.
void add_gres_options(CLI::App& app, job_options& o) {
  app.add_option("--gres", o.gres,
                 "Generic resources on each node: gpu, gpu:2, gpu:TYPE:2, a comma list, or none "
                 "(gpu:0 asks for nothing)");
  app.add_option("--gpus-per-node", o.gpus_per_node,
                 "GPUs on each node: N or TYPE:N (--gres=gpu:N)")
      ->type_name("[TYPE:]N");
  app.add_option("-m,--distribution", o.distribution,
                 "Task distribution across nodes: block (the default) or cyclic; plane, "
                 "arbitrary and a second level (block:cyclic) are accepted with a warning and "
                 "placed as their first level says (plane and arbitrary: block)");
  app.add_option("--hint", o.hint, "Accepted with a warning and ignored (use --cpu-bind)");
}

/// What only `batch` takes: the script, its output files, arrays, waiting.
void add_batch_options(CLI::App& app, job_options& o) {
  app.add_option("--wrap", o.wrap,
                 "Submit `#!/bin/sh` followed by this command instead of a script");
  app.add_flag("--parsable", o.parsable, "Print only the job id");
  app.add_option("--export-file", o.export_file,
                 "The job's environment from FILE (or an open file descriptor, 3 or more): "
                 "NAME=VALUE entries separated by NUL bytes, in place of this one's");
  app.add_flag("-W,--wait", o.wait,
               "Exit only when the job has ended, with its exit code (1 when a signal ended "
               "it; 0 for a job cancelled before it started), as sbatch -W");
  app.add_option("-a,--array", o.array,
                 "Job array indices: 1-100, 1-99:2, 1,3,5-7, with %N to run at most N at once");
  app.add_option("-o,--output", o.output,
                 "Output file (default: shoal-%j.out; %j job id, %u user, %x job name, "
                 "%A array job id, %a array task id)");
  app.add_option("-e,--error", o.error, "Error file (default: with the output)");
}

/// salloc's and srun's -I.
void add_immediate_option(CLI::App& app, job_options& o) {
  app.add_flag("-I{1},--immediate{1}", o.immediate,
               "Give up unless the allocation is granted within SECS seconds (-I alone: at "
               "once); the value only attached: -I60, --immediate=60")
      ->type_name("[=SECS]");
}

/// What only `alloc` takes: no shell, --immediate, the bell, --kill-command.
void add_alloc_options(CLI::App& app, job_options& o) {
  app.add_flag("--no-shell", o.no_shell,
               "Get the allocation, print its id and exit 0; it lasts until `scancel` or its "
               "time limit, and `srun --jobid=ID` runs steps in it");
  add_immediate_option(app, o);
  app.add_flag("--bell", o.bell, "Ring the terminal bell when the allocation is granted");
  app.add_flag("--no-bell", o.no_bell,
               "Never ring it (default: ring when the allocation took over 10 s)");
  app.add_flag("-K{TERM},--kill-command{TERM}", o.kill_command,
               "Signal for the command when the allocation ends first (default TERM, HUP at a "
               "terminal); the value only attached: -KINT, --kill-command=INT")
      ->type_name("[=SIGNAL]");
}

/// What only `run` takes: the label, the input and terminal, task exits, verbosity.
void add_run_options(CLI::App& app, job_options& o) {
  app.add_flag("-l,--label", o.label, "Prefix each output line with its task rank");
  app.add_option("-o,--output", o.output,
                 "Write the tasks' stdout (and stderr, without -e) to this file on each node "
                 "instead of here: %t task id, %n node id, %N node name, %j %J %s %u %x %% as "
                 "for -i; relative to the tasks' directory");
  app.add_option("-e,--error", o.error,
                 "Write the tasks' stderr to this file on each node (patterns as -o)");
  app.add_option("-i,--input", o.input,
                 "Where the tasks' stdin comes from: 0 (the default: task 0 reads this stdin), "
                 "all (every task reads it), none, a task id, or a file each task opens on its "
                 "node (%j %J %s %t %n %N %u %x %% as for sbatch -o)");
  app.add_flag("-u,--unbuffered", o.unbuffered,
               "Send the tasks' output as soon as it is read, partial lines without waiting");
  app.add_flag("-K{1},--kill-on-bad-exit{1}", o.kill_on_bad_exit,
               "Kill every task once one exits non-zero or by a signal (=0: do not)")
      ->type_name("[=0|1]");
  app.add_flag("-k{on},--no-kill{on}", o.no_kill,
               "Accepted for srun's sake: a failed node still ends the job here (=off: the "
               "same)")
      ->type_name("[=off]");
  app.add_flag("-O,--overcommit", o.overcommit,
               "Accepted for srun's sake: each task still gets a CPU of its own here");
  app.add_flag("-v,--verbose", o.verbose,
               "Tell what srun does on stderr (srun: ... lines); "
               "repeat for more");
  app.add_flag("--pty", o.pty,
               "Run task 0 on a pseudo-terminal connected to this terminal (raw mode; the "
               "window size follows it)");
  app.add_option("--task-prolog", o.task_prolog,
                 "Run PROGRAM as the user before each task, after TaskProlog=: its "
                 "`export NAME=VALUE`, `unset NAME` and `print TEXT` lines shape the task")
      ->type_name("PROGRAM");
  app.add_option("--task-epilog", o.task_epilog,
                 "Run PROGRAM as the user after each task ends, before TaskEpilog=")
      ->type_name("PROGRAM");
  add_immediate_option(app, o);
  app.add_flag("-X,--disable-status", o.disable_status,
               "A single Ctrl-C is passed to the tasks without the \"interrupt\" line");
  app.add_flag("--quit-on-interrupt", o.quit_on_interrupt,
               "A single Ctrl-C cancels the job (or step) at once");
  app.add_option("-r,--relative", o.relative,
                 "Inside an allocation: the step's nodes start at its node N (0 is the first), "
                 "-N of them; not with -w or -x")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--prolog", o.srun_prolog,
                 "Run PROGRAM here, with the command's words as its arguments, before the step "
                 "is asked for (SLURM_SCRIPT_CONTEXT=prolog_srun); when it fails, no step runs. "
                 "none: no prolog")
      ->type_name("PROGRAM");
  app.add_option("--epilog", o.srun_epilog,
                 "Run PROGRAM here, with the command's words as its arguments, after the step "
                 "ends (SLURM_SCRIPT_CONTEXT=epilog_srun). none: no epilog")
      ->type_name("PROGRAM");
  app.add_flag("--multi-prog", o.multi_prog,
               "The command is a configuration file: lines of RANKS PROGRAM [ARGS] (%t: task "
               "id, %o: offset in the line's ranks), as srun --multi-prog");
  app.add_option("--mpi", o.mpi,
                 "MPI type: none (the default; mpirun inside an allocation starts its ranks "
                 "through it), pmi2 (each rank gets PMI_FD, PMI_RANK and PMI_SIZE from a "
                 "PMI-1/PMI-2 server: MPICH, Intel MPI), pmix (or pmix_v4: shoal-stepd serves the "
                 "ranks PMIx, as Open MPI's direct launch wants), or list to print the types "
                 "shoal has (docs/mpi.md)")
      ->type_name("TYPE");
  app.add_flag("--external-launcher", o.external_launcher,
               "Accepted for MPI launchers (mpirun, Hydra): a step inside a job never waits "
               "for CPUs other steps hold here");
}

/// Which commands take an ignored option.
enum : uint8_t { in_batch = 1, in_run = 2, in_alloc = 4, in_all = 7 };

/// How an option Slurm has and shoal ignores is given.
enum class takes : uint8_t {
  nothing,   ///< a flag
  value,     ///< a value, attached or as the next word
  optional,  ///< an optional value, only attached (`--propagate=NPROC`), as getopt's
};

/// An option of Slurm's that site scripts pass and that means nothing on a shoal cluster: it is
/// accepted and named in one warning line (why_ignored), unless `why_ignored` is null (nothing
/// to warn about: what it asks is what shoal does anyway).
struct ignored_option {
  const char* names;  ///< CLI11's names
  const char* shown;  ///< the long name, for the warning
  uint8_t commands;
  takes form;
  const char* why_ignored;  ///< null: accepted silently (help says why in `quiet_help`)
  const char* quiet_help = nullptr;
};

// clang-format off
const ignored_option ignored_options[] = {
  {"--acctg-freq", "--acctg-freq", in_all, takes::value,
   "shoal samples each step's CPU and memory use at its own interval"},
  {"--profile", "--profile", in_all, takes::value, "shoal has no acct_gather_profile plugin"},
  {"--wckey", "--wckey", in_all, takes::value, "shoal keeps no workload characterization keys"},
  {"--propagate", "--propagate", in_batch | in_run, takes::optional,
   "tasks get the node's resource limits, not the submitter's"},
  {"--cpu-freq", "--cpu-freq", in_all, takes::value,
   "CPU frequencies are left as the node sets them"},
  {"--mem-bind", "--mem-bind", in_all, takes::value, "task memory is not bound to NUMA nodes"},
  {"--gres-flags", "--gres-flags", in_all, takes::value,
   "devices are chosen without regard to CPU affinity"},
  {"--delay-boot", "--delay-boot", in_all, takes::value, "powered-down nodes are resumed at once"},
  {"--power", "--power", in_all, takes::value, "shoal has no power management plugin options"},
  {"--spread-job", "--spread-job", in_all, takes::nothing,
   "nodes are picked by consecutive best fit"},
  {"--use-min-nodes", "--use-min-nodes", in_all, takes::nothing,
   "a range of node counts allocates its minimum"},
  {"--mcs-label", "--mcs-label", in_all, takes::value, "shoal has no MCS plugin"},
  {"--switches", "--switches", in_all, takes::value, "nodes are picked by consecutive best fit"},
  {"--time-min", "--time-min", in_all, takes::value, "the job is given its --time"},
  {"--tmp", "--tmp", in_all, takes::value, "nodes' temporary disk space is not counted"},
  {"--threads-per-core", "--threads-per-core", in_all, takes::value,
   "tasks take CPUs as the node lists them; use --cpu-bind to bind them"},
  {"--prefer", "--prefer", in_all, takes::value, "soft feature preferences are not weighed"},
  {"--get-user-env", "--get-user-env", in_batch | in_alloc, takes::optional,
   "the job gets the submitter's environment, as --export says"},
  {"--wait-all-nodes", "--wait-all-nodes", in_batch | in_alloc, takes::value,
   "the job starts once all its nodes are up"},
  {"-k,--no-kill", "--no-kill", in_batch | in_alloc, takes::optional,
   "a failed node still ends the job here"},
  {"-O,--overcommit", "--overcommit", in_batch | in_alloc, takes::nothing,
   "each task still gets a CPU of its own here"},
  {"--exact", "--exact", in_run, takes::nothing,
   "a step inside a job does not wait for CPUs other steps hold"},
  {"--msg-timeout", "--msg-timeout", in_run, takes::value,
   "shoal's clients keep their own timeouts"},
  {"--slurmd-debug", "--slurmd-debug", in_run, takes::value,
   "shoal-stepd logs through shoald's DebugFlags"},
  {"--compress", "--compress", in_run, takes::optional, "shoal has no sbcast"},
  {"--send-libs", "--send-libs", in_run, takes::optional, "shoal has no sbcast"},
  {"--accel-bind", "--accel-bind", in_run, takes::value,
   "devices are chosen without regard to CPU affinity"},
  {"--overlap", "--overlap", in_run, takes::nothing, nullptr,
   "Accepted: steps inside a job already share its CPUs here"},
  {"--ignore-pbs", "--ignore-pbs", in_batch, takes::nothing, nullptr,
   "Accepted: shoal reads no #PBS lines"},
  {"-v,--verbose", "--verbose", in_batch | in_alloc, takes::nothing, nullptr,
   "Accepted: sbatch and salloc have nothing more to say here"},
};
// clang-format on

/// Slurm's options that mean nothing here, for the command `which` (in_batch, in_run, in_alloc):
/// each given one is put in job_options::ignored, to be warned about once.
void add_ignored_options(CLI::App& app, job_options& o, uint8_t which) {
  app.add_flag("-Q,--quiet", o.quiet,
               "Accepted as Slurm's: no warnings about ignored options (errors are still shown)");
  for (const auto& opt : ignored_options) {
    if ((opt.commands & which) == 0) continue;
    std::string help = opt.why_ignored != nullptr
                           ? std::string{"Accepted with a warning and ignored: "} + opt.why_ignored
                           : std::string{opt.quiet_help};
    const char* why = opt.why_ignored;
    std::string shown = opt.shown;
    auto note = [&o, why, shown](const std::string& value) {
      if (why != nullptr) o.ignored.emplace_back(value.empty() ? shown : shown + "=" + value, why);
    };
    switch (opt.form) {
      case takes::nothing:
        app.add_flag_callback(
            opt.names, [note] { note(""); }, help);
        break;
      case takes::value:
        app.add_option_function<std::string>(opt.names, note, help)->type_name("TEXT");
        break;
      case takes::optional: {
        // A bare flag gives CLI11's default, "*": no value.
        std::string names;
        for (const char* c = opt.names;; ++c) {
          if (*c == ',' || *c == '\0') names += "{*}";
          if (*c == '\0') break;
          names += *c;
        }
        app.add_flag(names, o.ignored_values[shown], help)
            ->each([note](const std::string& v) { note(v == "*" ? "" : v); })
            ->type_name("[=TEXT]");
        break;
      }
    }
  }
}

}  // namespace

void add_job_options(CLI::App& app, job_options& o, bool batch, bool alloc) {
  add_basic_options(app, o);
  add_start_options(app, o);
  add_resource_options(app, o);
  add_record_options(app, o, batch, alloc);
  add_gres_options(app, o);
  if (batch)
    add_batch_options(app, o);
  else if (!alloc)
    add_run_options(app, o);
  else
    add_alloc_options(app, o);
  add_ignored_options(app, o, batch ? in_batch : alloc ? in_alloc : in_run);
}

}  // namespace shoal::cli
