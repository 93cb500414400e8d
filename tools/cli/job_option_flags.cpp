// The options batch, run and alloc take (sbatch's, srun's and salloc's), registered on their
// CLI11 apps: which flags exist, their forms and their --help text. What they mean for the
// request is job_options.cpp's.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/cli/job_options.hpp"
#include "topology/cpu_binding.hpp"

namespace shoal::cli {

namespace {

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
  app.add_option("-x,--exclude", o.exclude, "Nodes the job must not use (hostlist)");
  app.add_option("-C,--constraint", o.constraint,
                 "Node features the job needs: a&b (all), a|b (any), [a|b] (the same one on "
                 "every node), a*2 (at least 2 nodes with a), [a*2&b*4], parentheses to group");
  app.add_option("-L,--licenses", o.licenses,
                 "Licenses the job holds while it runs, of those Licenses= gives: "
                 "NAME[:COUNT][,NAME[:COUNT]...] (COUNT 1 when left out)");
  app.add_option("-D,--chdir", o.chdir, "Working directory of the tasks (default: here)");
  app.add_flag("--requeue", o.requeue, "Requeue the job if one of its nodes fails");
  app.add_option("--nice", o.nice, "Lower the job's priority by this much");
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
                         "reservations here)"
                       : "[R:]SIG[@TIME]: send SIG (name or number) to the job's steps TIME "
                         "seconds (default 60; 0: never) before the time limit; R: is accepted "
                         "(no reservations here)");
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

/// What only `alloc` takes: no shell, --immediate, the bell, --kill-command.
void add_alloc_options(CLI::App& app, job_options& o) {
  app.add_flag("--no-shell", o.no_shell,
               "Get the allocation, print its id and exit 0; it lasts until `scancel` or its "
               "time limit, and `srun --jobid=ID` runs steps in it");
  app.add_flag("-I{1},--immediate{1}", o.immediate,
               "Give up unless the allocation is granted within SECS seconds (-I alone: at "
               "once); the value only attached: -I60, --immediate=60")
      ->type_name("[=SECS]");
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
}

}  // namespace shoal::cli
