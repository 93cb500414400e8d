#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::cli {

/// The options `shoal run` and `shoal batch` share, named as srun/sbatch name them.
struct job_options {
  std::string nodes;  ///< -N: "N" or "MIN-MAX"
  uint32_t ntasks = 0;
  uint32_t cpus_per_task = 0;
  /// -n or -c given as no positive number ("0", "-1", "abc"; the numbers above hold 0 then): the
  /// option's name and the value as typed, refused as Slurm's parse_int refuses it.
  std::string bad_count;
  std::string bad_count_text;
  std::string partition;
  std::string time;
  std::string name;
  std::string nodelist;
  std::string exclude;
  std::string constraint;  ///< -C: node features (Slurm's syntax; the controller checks it)
  std::string licenses;    ///< -L: NAME[:COUNT],... (the controller parses and checks it)
  std::string output;
  std::string error;
  std::string chdir;
  bool label = false;
  bool requeue = false;
  int32_t nice = 0;
  std::string priority;  ///< --priority: N or TOP as typed (operators only; others' is dropped)
  uint64_t jobid = 0;
  std::string array;       ///< batch only: --array
  std::string dependency;  ///< -d
  std::string kill_on_invalid_dep;
  std::string begin;
  bool hold = false;
  std::string mem;
  std::string mem_per_cpu;
  bool exclusive = false;
  bool oversubscribe = false;
  std::string cpu_bind;  ///< --cpu-bind as typed; build_request checks it
  // -- 3-D torus (Blue Gene/L's srun options) --
  std::string geometry;    ///< -g AxBxC
  bool no_rotate = false;  ///< -R
  std::string conn_type;   ///< mesh | torus
  std::string node_use;    ///< coprocessor | virtual
  // -- Slurm options scripts carry (issue 18) --
  std::string ntasks_per_node;    ///< as typed: build_request checks it with Slurm's wording
  std::string ntasks_per_core;    ///< as typed; apply_task_density enforces it
  std::string ntasks_per_socket;  ///< as typed; apply_task_density enforces it
  std::string mincpus;            ///< as typed: CPUs a node needs to be used
  std::string wrap;               ///< batch only: the command the script wraps
  std::string export_env;         ///< --export: ALL (default), NONE, or VAR[=VALUE],...
  std::string export_file;        ///< --export-file: NUL-separated NAME=VALUE, a file or an fd
  bool parsable = false;          ///< batch only: print only the job id
  bool no_requeue = false;
  std::string comment;
  std::string account;
  std::string reservation;  ///< --reservation
  std::string qos;
  std::string open_mode;  ///< append | truncate (Slurm reads the first letter)
  std::string mail_type;
  std::string mail_user;
  std::string signal;      ///< --signal=[{R|B}:]SIG[@TIME] as typed; build_request checks it
  bool test_only = false;  ///< batch and run: print when and where it would start; submit nothing
  bool wait = false;       ///< batch only: -W, exit when the job ends, with its exit code
  std::string gres;        ///< --gres, per node (Slurm's syntax; checked in build_request)
  std::string gpus_per_node;  ///< --gpus-per-node=[TYPE:]N: gpu[:TYPE]:N added to --gres
  // Recognised, with no effect here (ignored_option_notes says so); build_request refuses the
  // values that would change what the job gets.
  std::string distribution;
  std::string hint;
  /// Slurm's options that mean nothing on shoal (--acctg-freq, --profile, --wckey, ...), in the
  /// order given: "NAME" or "NAME=VALUE" and why it is ignored (ignored_option_notes warns).
  std::vector<std::pair<std::string, std::string>> ignored;
  /// Where the ones with an optional value (--propagate[=RLIMIT]) put it while parsing.
  std::map<std::string, std::string> ignored_values;
  bool quiet = false;  ///< -Q/--quiet (sbatch, salloc, srun): no warnings for ignored options
  // -- shoal alloc (salloc) only --
  bool no_shell = false;     ///< --no-shell: get the allocation, print its id, exit
  int immediate = 0;         ///< -I/--immediate[=SECS]: give up after N s (-I alone: 1); 0: wait
  bool bell = false;         ///< --bell
  bool no_bell = false;      ///< --no-bell
  std::string kill_command;  ///< -K/--kill-command[=SIGNAL] as typed ("TERM" when bare)
  // -- shoal run (srun) only: input, terminal, task exits (issue 33) --
  std::string input;               ///< -i/--input: all, none, a task id or a file pattern
  bool unbuffered = false;         ///< -u
  std::string kill_on_bad_exit;    ///< -K/--kill-on-bad-exit[=0|1] as typed ("1" when bare)
  std::string no_kill;             ///< -k/--no-kill[=off] as typed ("on" when bare)
  bool overcommit = false;         ///< -O
  int verbose = 0;                 ///< -v, once per -v
  bool pty = false;                ///< --pty
  bool multi_prog = false;         ///< --multi-prog: the command is a configuration file
  std::string mpi;                 ///< --mpi=TYPE as typed (list: print the types and exit)
  bool external_launcher = false;  ///< --external-launcher: accepted, a step never waits here
  std::string task_prolog;         ///< --task-prolog=PROGRAM as typed
  std::string task_epilog;         ///< --task-epilog=PROGRAM as typed
  bool disable_status = false;     ///< -X/--disable-status
  bool quit_on_interrupt = false;  ///< --quit-on-interrupt
  int relative = -1;               ///< -r/--relative=N: the step starts at the allocation's node N
  std::string srun_prolog;         ///< --prolog=PROGRAM: run here before the step ("none": not)
  std::string srun_epilog;         ///< --epilog=PROGRAM: run here after the step ("none": not)
};

/// A count refused before anything is submitted, as Slurm refuses it.
struct count_refusal {
  std::string text;   ///< the error line, after "CMD: error: "
  int exit_code = 1;  ///< Slurm's: 1 (parse_int, a refused submission), 255 (verify_node_count)
  /// Slurm's controller refuses it: the command's words for a refused submission come first
  /// ("Batch job submission failed: ").
  bool submission = false;
};

/// The first count of `o` Slurm would refuse: -n, -c, --ntasks-per-node/core/socket and
/// --mincpus that are not positive numbers (`Invalid numeric value "0" for --ntasks.`, exit 1),
/// a --mem or --mem-per-cpu that is not a size (`Invalid --mem specification`, exit 255),
/// a -N that is not a count or MIN-MAX (`"abc" is not a valid node count`, `Maximum node count 1
/// is less than minimum node count 2`, exit 255), and a -N of no nodes ("0", "0-0", "-3": Slurm's
/// controller answers "Node count specification invalid", exit 1). nullopt when all are fine.
std::optional<count_refusal> refused_count(const job_options& o);

/// --ntasks-per-core and --ntasks-per-socket as numbers; 0 where not given.
struct task_density {
  uint32_t per_core = 0;
  uint32_t per_socket = 0;
};

/// The two options checked as sbatch checks them. Error: errc::invalid_request `Invalid numeric
/// value "0" for --ntasks-per-core.` (Slurm's parse_int wording).
shoal::expected<task_density> parse_task_density(const job_options& o);

/// A node as the density options see it: CPUs and their layout.
struct node_shape {
  uint32_t cpus = 0;
  uint32_t sockets = 0;
  uint32_t cores_per_socket = 0;
  uint32_t threads_per_core = 0;
};

/// The layout to schedule `cpus` CPUs by: sockets x cores x threads when those are all known
/// and multiply to `cpus`, else one socket of `cpus` one-thread cores (as shoald lays out a
/// node whose configured CPUs do not match its layout).
node_shape consistent_shape(uint32_t cpus, uint32_t sockets, uint32_t cores, uint32_t threads);

/// The most tasks of `cpus_per_task` CPUs each that `shape` takes under --ntasks-per-core and
/// --ntasks-per-socket (0: not given), as Slurm 22.05's cons_tres counts them (_allocate_sc):
/// each core offers min(threads, per_core x cpus_per_task) CPUs, each socket its cores' CPUs but
/// at most per_socket x cpus_per_task, and the node's tasks are its CPUs / cpus_per_task. 0 when
/// not one task fits.
uint32_t tasks_per_node_limit(const node_shape& shape, const task_density& d,
                              uint32_t cpus_per_task);

/// Declares the options on `app`; `batch` adds -o/-e, --wrap, --parsable, -a and -W and leaves
/// out -l; `alloc` (shoal alloc: neither batch nor run) leaves out -l, --open-mode and
/// --test-only, and adds salloc's --no-shell, -I/--immediate[=SECS], --bell, --no-bell and
/// -K/--kill-command[=SIGNAL] (their attached forms `-I60`, `-KINT` need
/// normalize_optional_values first).
void add_job_options(CLI::App& app, job_options& o, bool batch, bool alloc = false);

/// One line for each option given that shoal recognises but does not act on, naming it and
/// why ("--hint=compute_bound is ignored (use --cpu-bind to bind tasks)"), in option order;
/// empty when none.
/// Only values build_request accepts are described.
std::vector<std::string> ignored_option_notes(const job_options& o);

/// sbatch --export-file: the NAME=VALUE entries of the file `name` (or of the open descriptor it
/// names, 3 and above), each ended by a NUL. Error (errc::invalid_request): "Could not open user
/// environment file NAME".
shoal::expected<std::vector<std::string>> environment_file(const std::string& name);

/// The environment a job gets for `--export=spec`, as sbatch builds it (env_merge_filter):
/// empty or ALL: all of `env`; NONE: only its SHOAL_* and SLURM_* variables; otherwise the
/// comma-separated items in order, each ALL (all of `env`), NAME (its value in `env`, skipped
/// when unset) or NAME=VALUE, a later one replacing an earlier one of the same name, plus the
/// SHOAL_* and SLURM_* variables of `env`. Commas inside quotes do not split; quotes around a
/// whole item are dropped. Error: errc::invalid_request for an empty item or name.
shoal::expected<std::vector<std::string>> exported_environment(const std::string& spec,
                                                               const std::vector<std::string>& env);

/// Slurm's --mail-type list (NONE, BEGIN, END, FAIL, REQUEUE, ALL, ...; any case) in the form
/// scontrol shows it, "BEGIN,END"; "NONE" for NONE. Unknown words are dropped as Slurm drops
/// them. Error: errc::invalid_request ("Invalid --mail-type specification") when no word is
/// known.
shoal::expected<std::string> canonical_mail_type(const std::string& text);

/// The script `sbatch --wrap=CMD` submits.
std::string wrap_script(const std::string& command);

/// salloc's and srun's options with an optional value, as getopt reads them: the value only
/// attached (`-I60`, `--immediate=60`, `-KUSR1`), never the next word, which may be the command.
/// Rewrites `-I<digits>` to `--immediate=<digits>` and (with `kill_command`, salloc's)
/// `-K<signal>` to `--kill-command=<signal>` in `args` from index `first` up to the first word
/// that is not an option of `app` or an option's value (the command), or `--`.
void normalize_optional_values(const CLI::App& app, std::vector<std::string>& args, size_t first,
                               bool kill_command = true);

/// Turns parsed options plus the command (or, for batch, the script's arguments) into a request
/// with the caller's identity, environment and working directory.
/// Error: errc::invalid_request / errc::invalid_time naming the bad option (the torus options
/// included: a geometry that is not AxBxC, a --conn-type or --node-use outside their values),
/// with Slurm's wording where Slurm has one: a malformed --gres or --gpus-per-node ("Invalid
/// generic resource (gres) specification"; the controller checks the names), a bad
/// --ntasks-per-node, --ntasks-per-core, --ntasks-per-socket, --mincpus, --open-mode,
/// --mail-type, --distribution, --export or --signal
/// (B: is for batch only, as sbatch alone knows it). The request carries --gres in canonical form
/// (gpu:2), "" when it asks for nothing (gpu:0, none). Batch and run jobs get
/// SLURM_NTASKS_PER_CORE / SLURM_NTASKS_PER_SOCKET in their environment when asked, as Slurm
/// sets them.
shoal::expected<msg::job_request> build_request(const job_options& o, std::vector<std::string> argv,
                                                bool batch);

}  // namespace shoal::cli
