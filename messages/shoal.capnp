@0xf261a3d10392567a;
# Everything that crosses a shoal process boundary. Never renumber an ordinal; add fields at the
# end of a struct so older peers keep decoding newer messages. The C++ structs (shoal::msg, names in
# snake_case), their codec and their field visitor are generated from this file at build time
# (messages/wire_gen.cpp): a field's default here is the C++ member's initializer, and it is what
# an older peer's message decodes to. messages/cxx.capnp's annotations say where C++ differs.

using Cxx = import "/capnp/c++.capnp";
using C = import "cxx.capnp";
$Cxx.namespace("shoal::wire");
$C.includes(["messages/states.hpp"]);

# The wire schema version, sent in front of every encoded message (messages/codec.hpp). Raise the
# minor when adding fields at the end of structs: peers of the same major still read each other.
# Raise the major (and reset the minor) for any change older peers cannot read; peers of another
# major then refuse each other's messages with errc::incompatible_version.
const wireMajor :UInt16 = 1;
const wireMinor :UInt16 = 12;

struct MachineStatus {
  nodeName @0 :Text;         # the configured node name this daemon speaks for
  hostname @1 :Text;         # gethostname() of the host the daemon runs on
  os @2 :Text;               # "uname -s -r" with blanks as dots, e.g. "Linux.6.1.0-18-amd64"
  cpus @3 :UInt32;           # logical processors (hwloc PUs)
  sockets @4 :UInt32;        # hwloc packages
  coresPerSocket @5 :UInt32;
  threadsPerCore @6 :UInt32;
  cpuMhz @7 :Float64;        # nominal CPU speed in MHz, 0 when unknown
  realMemoryMb @8 :UInt64;   # MemTotal from the OS, MiB
  virtualMemoryMb @9 :UInt64;  # MemTotal + SwapTotal, MiB
  tmpDiskMb @10 :UInt64;     # size of the TmpFS file system, MiB
  bootTime @11 :Int64;       # host boot time, Unix seconds
  daemonStartTime @12 :Int64;  # when this shoald started, Unix seconds
  daemonPid @13 :Int64;      # process id of this shoald
  credential @14 :Text;      # auth/munge: MUNGE credential over this status and the report
}

struct NodeInfo {
  name @0 :Text;
  state @1 :Text $C.type("node_state") $C.init("node_state::unknown");
                             # UNKNOWN IDLE ALLOCATED COMPLETING DOWN DRAINING DRAINED
  reason @2 :Text;           # why the node is down or drained, empty otherwise
  reasonTime @3 :Int64;      # when the reason was set, Unix seconds
  reasonUser @4 :Text;       # who set the reason
  stateSince @5 :Int64;      # when the node entered its state, Unix seconds
  lastResponse @6 :Int64;    # last heartbeat, Unix seconds (0: never)
  address @7 :Text;          # NodeHostname/NodeAddr from the config
  cpus @8 :UInt32;           # configured (or, when unset, reported) processors
  realMemoryMb @9 :UInt64;   # configured (or reported) memory, MiB
  tmpDiskMb @10 :UInt64;     # configured (or reported) TmpDisk, MiB
  weight @11 :UInt32 = 1;    # scheduling weight, lower is used first
  partitions @12 :List(Text);
  reported @13 :MachineStatus;  # the latest report; empty name when none yet
  jobIds @14 :List(UInt64);     # jobs holding the node
  features @15 :Text;
  speed @16 :Float64;        # Speed= (seed): configured CPU speed, MHz; 0: not configured
  os @17 :Text;              # OS= (seed): the minimum OS release configured; empty: none
  # gres
  gres @18 :Text;            # configured generic resources as scontrol shows them ("gpu:4",
                             # "gpu:tesla:2,nic:1"); empty: none
  gresUsed @19 :Text;        # held by jobs, per name with the devices' indices
                             # ("gpu:2(IDX:0-1)"; "gpu:0" when none); empty: no gres
  # power saving and cloud nodes (the power actor's word; docs/power.md)
  power @20 :UInt8 $C.type("power_state") $C.init("power_state::on");
  powerDownAsked @21 :Bool;  # POWER_DOWN (!): powered down once no job holds it
  cloud @22 :Bool;           # State=CLOUD: listed only while powered up or allocated
  lastBusy @23 :Int64;       # when a job last held the node, Unix seconds (0: never)
  hostname @24 :Text;        # NodeHostname: the config's, an admin's (nodehostname=) or, with
                             # cloud_reg_addrs, what the node registered with; empty: the name
  usage @25 :NodeUsage;      # the node's own figures, as its shoald last sent them
  maint @26 :Bool;           # in an active MAINT reservation (sinfo's maint, State=IDLE+MAINT)
  rebootRequested @27 :Bool; # REBOOT_REQUESTED (@): rebooted once no job holds it
  rebootIssued @28 :Bool;    # REBOOT_ISSUED (^): RebootProgram ran; DOWN until it registers again
}

# A node's own use of its CPUs and memory (seed 001: kernel and idle time, load), as its shoald
# reads it from /proc (process/node_usage.hpp). Sent to the node actor with a heartbeat only when
# the load or the free memory moved since the last one sent (actors/node_daemon.cpp).
struct NodeUsage {
  sampledAt @0 :Int64;       # Unix seconds of the reading; 0: none yet
  load1 @1 :Float64;         # run-queue load averages (/proc/loadavg)
  load5 @2 :Float64;
  load15 @3 :Float64;
  userMs @4 :UInt64;         # CPU time since boot over all CPUs: user and nice
  systemMs @5 :UInt64;       # kernel: system, irq, softirq
  idleMs @6 :UInt64;         # idle and iowait
  memTotalBytes @7 :UInt64;  # MemTotal
  memAvailableBytes @8 :UInt64;  # MemAvailable
}

struct PartitionInfo {
  name @0 :Text;
  state @1 :Text = "UP";     # UP DOWN DRAIN INACTIVE
  isDefault @2 :Bool;
  maxTimeS @3 :Int64 = -1;   # seconds; -1: unlimited
  defaultTimeS @4 :Int64 = -1;  # seconds; -1: unset (MaxTime applies)
  maxNodes @5 :UInt32;       # 0: unlimited
  nodes @6 :List(Text);      # in config order
  priority @7 :UInt32 = 1;   # PriorityTier
  overSubscribe @8 :Text = "NO";  # NO, EXCLUSIVE, YES:N or FORCE:N
  preemptMode @9 :Text = "OFF";   # PreemptMode: OFF, CANCEL, REQUEUE (its own or the cluster's)
  graceTimeS @10 :Int64;          # GraceTime, seconds
}

struct JobRequest {
  jobId @0 :UInt64;          # 0: a new job; otherwise a step inside that job's allocation
  name @1 :Text;
  user @2 :Text;
  uid @3 :UInt32;
  gid @4 :UInt32;
  partition @5 :Text;        # empty: the default partition
  minNodes @6 :UInt32;       # 0: unspecified
  ntasks @7 :UInt32;         # 0: unspecified
  cpusPerTask @8 :UInt32;    # 0: unspecified (1)
  timeLimitS @9 :Int64;      # 0: the partition default; -1: unlimited
  nodelist @10 :Text;        # hostlist the job must include
  exclude @11 :Text;         # hostlist the job must not use
  argv @12 :List(Text);
  env @13 :List(Text);       # KEY=VALUE
  cwd @14 :Text;
  batch @15 :Bool;
  script @16 :Text;          # batch script text
  stdoutPath @17 :Text;      # batch: output file pattern (%j = job id), relative to cwd
  stderrPath @18 :Text;      # batch: error file pattern; empty = with stdout
  requeue @19 :Bool;         # requeue instead of NODE_FAIL when a node fails
  label @20 :Bool;           # prefix output lines with the task rank
  nice @21 :Int32;
  nodesMax @22 :UInt32;      # 0: same as minNodes
  submitToken @23 :Text;     # chosen by the client; a retried submission with the same token
                             # returns the first one's job instead of creating another
  shape @24 :JobShape;       # torus options; unset on 1-D clusters
  cpuBind @25 :Text;         # --cpu-bind in canonical form (topology/cpu_binding.hpp); empty: none
  workload @26 :JobWorkload; # arrays, dependencies, begin time, hold, memory, sharing
  # gres
  gres @27 :Text;            # --gres per node, canonical ("gpu:2,nic:1"); empty: none (gpu:0 is
                             # none); the controller checks the names
  constraint @28 :Text;      # -C/--constraint as given (Slurm's syntax: a&b, a|b, [a|b], a*2);
                             # empty: any node; the controller parses and checks it
  io @29 :StepIo;            # shoal run's input, terminal and task-exit options; passed on to
                             # every launch of the step unchanged
  submitHost @30 :Text;      # gethostname() where the client ran (a step's SrunHost); empty:
                             # unknown (an older client)
  submitPid @31 :UInt32;     # that client's process id (a step's SrunHost:Pid); 0: unknown
  licenses @32 :Text;        # -L/--licenses as given (NAME[:COUNT],...); empty: none; the
                             # controller parses it and checks the names against Licenses=
}

# How a step's tasks get their standard input and what else srun's I/O options ask of the node
# (issue 33). Default: what a client that knows none of this gets, stdin from /dev/null.
struct StepIo {
  input @0 :Text;            # which tasks read the client's standard input (forwarded through
                             # the run connection, TaskInput): "all", a task id ("0": srun's
                             # default), or empty or "none": none (stdin from /dev/null)
  inputFile @1 :Text;        # -i FILE: the pattern each task opens on its node instead (%j %J %s
                             # %t %n %N %u %x %%, expanded per task); empty: none
  pty @2 :Bool;              # --pty: task 0 runs on a pseudo-terminal (stdin, stdout and stderr),
                             # the client's terminal in raw mode on the other end
  ptyRows @3 :UInt16;        # --pty: the client terminal's size at launch (0: leave the default)
  ptyCols @4 :UInt16;
  unbuffered @5 :Bool;       # -u: output is sent as it is read, partial lines without delay
  killOnBadExit @6 :Bool;    # -K: a task exiting non-zero (or killed) kills the step's others
  chdirRequired @7 :Bool;    # -D given: a working directory that does not exist fails the step
                             # (otherwise $HOME, then /tmp, stand in for it)
  multiProg @8 :Text;        # --multi-prog: the configuration file's text (Slurm's format); each
                             # task's command line comes from its line; empty: argv for all
  mpi @9 :Text;              # --mpi (or SLURM_MPI_TYPE, else MpiDefault=): the PMI server
                             # shoal-stepd runs for the step (pmi2, pmix, pmix_v4); empty or none:
                             # none (process/mpi_server.hpp)
  output @10 :Text;          # srun -o: the file pattern each task's stdout goes to on its node
                             # (%j %J %s %t %n %N %u %x %%, relative to the task's directory);
                             # stderr goes with it unless `error` is set; empty: streamed back
  error @11 :Text;           # srun -e: the same for stderr alone
  taskProlog @12 :Text;      # srun --task-prolog: run as the user before each task, after
                             # TaskProlog=, its export/unset/print lines applied too; empty: none
  taskEpilog @13 :Text;      # srun --task-epilog: run as the user after each task, before
                             # TaskEpilog=; empty: none
}

# A chunk of the client's standard input for a step's input tasks (StepIo.input), or its end.
struct TaskInput {
  jobId @0 :UInt64;
  stepId @1 :UInt32;
  data @2 :Data $C.type("std::string");
  eof @3 :Bool;              # the input ended after `data`: the tasks' stdin is closed
  rows @4 :UInt16;           # --pty: the client terminal's new size (0: unchanged)
  cols @5 :UInt16;
}

struct JobShape {
  geometry @0 :List(UInt32); # --geometry=AxBxC: empty, or three sizes (X, Y, Z)
  rotate @1 :Bool = true;    # false: --no-rotate, the geometry's axes stay as given
  connType @2 :Text;         # --conn-type: "", mesh or torus ("" = torus)
  nodeUse @3 :Text;          # --node-use: "", coprocessor or virtual
}

# What a job asks beyond nodes and tasks (issue 5). Kept apart so JobRequest stays readable.
struct JobWorkload {
  array @0 :Text;            # --array spec ("1-1000%50"); empty: not an array
  dependency @1 :Text;       # --dependency expression; empty: none
  killOnInvalidDep @2 :Bool; # cancel instead of pending DependencyNeverSatisfied
  beginTime @3 :Int64;       # Unix seconds; 0: now
  hold @4 :Bool;             # -H: submit held (priority 0, JobHeldUser)
  memPerNodeMb @5 :UInt64;   # --mem; 0: unspecified
  memPerCpuMb @6 :UInt64;    # --mem-per-cpu; 0: unspecified
  exclusive @7 :Bool;        # --exclusive: whole nodes even when they could be shared
  oversubscribe @8 :Bool;    # -s: share CPUs (nodes) with other jobs where OverSubscribe allows
  ntasksPerNode @9 :UInt32;  # --ntasks-per-node: at most this many tasks on a node; 0: no bound
  minCpus @10 :UInt32;       # --mincpus: nodes with fewer CPUs are not used; 0: any node
  account @11 :Text;         # -A/--account, recorded and shown (no limits)
  qos @12 :Text;             # -q/--qos, recorded and shown (no limits)
  comment @13 :Text;         # --comment
  mailType @14 :Text;        # --mail-type as scontrol shows it ("BEGIN,END"); empty: none asked
  mailUser @15 :Text;        # --mail-user
  openMode @16 :Text;        # --open-mode of the batch output: append, truncate; empty: append
  warnSignal @17 :Int32;     # --signal: sent WarnTimeS before the time limit; 0: none
  warnTimeS @18 :UInt32;     # --signal's @TIME in seconds (60 when not given); 0: never sent, as
                             # in Slurm
  warnBatchOnly @19 :Bool;   # --signal=B:...: only the batch shell; otherwise every step's tasks
                             # but the batch shell's (Slurm 22.05's KILL_STEPS_ONLY)
  warnReservation @20 :Bool; # --signal=R:...: recorded; no reservations here, so no effect
  allocation @21 :Bool;      # shoal alloc (salloc): the job runs nothing itself and holds its
                             # nodes for steps until its client releases it (op complete)
  cyclic @22 :Bool;          # --distribution=cyclic: ranks dealt to the nodes in turn (rank r on
                             # node r mod N); otherwise block (consecutive ranks fill a node)
  priority @23 :UInt32;      # an admin's fixed priority (scontrol update Priority=N); 0: the
                             # computed one (multifactor, or submit order)
  reservation @24 :Text;     # --reservation=NAME: runs only on its nodes while it is active
}

struct JobInfo {
  jobId @0 :UInt64;
  name @1 :Text;
  user @2 :Text;
  uid @3 :UInt32;
  partition @4 :Text;
  state @5 :Text $C.type("job_state") $C.init("job_state::pending");
                             # PENDING CONFIGURING RUNNING COMPLETING COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL
  reason @6 :Text;           # pending reason (Resources, Priority, PartitionDown, ...) or why it ended
  submitTime @7 :Int64;      # Unix seconds
  startTime @8 :Int64;       # 0: not started
  endTime @9 :Int64;         # 0: not ended
  timeLimitS @10 :Int64 = -1;  # seconds; -1: unlimited
  nodeCount @11 :UInt32;     # allocated, or requested while pending
  nodelist @12 :Text;        # compressed hostlist of the allocation
  ntasks @13 :UInt32;
  cpusPerTask @14 :UInt32 = 1;
  exitCode @15 :Int32;       # highest task exit code, 128+signal for a signalled task
  batch @16 :Bool;
  workDir @17 :Text;
  command @18 :Text;
  stdoutPath @19 :Text;
  stderrPath @20 :Text;
  requeueCount @21 :UInt32;
  priority @22 :UInt64;
  stepCount @23 :UInt32;
  requeue @24 :Bool;
  excludeNodes @25 :Text;
  requiredNodes @26 :Text;
  arrayJobId @27 :UInt64;    # 0: not part of an array
  arrayTaskId @28 :Int64 = -1;  # this task's index; -1: the array's pending tasks (or no array)
  arrayTasks @29 :Text;      # pending tasks folded as squeue prints them ("5-1000%50")
  dependency @30 :Text;      # what is still awaited, as submitted
  beginTime @31 :Int64;      # eligible from (Unix seconds); 0: at submission
  memPerNodeMb @32 :UInt64;  # memory per node the job holds or asks; 0: unspecified
  overSubscribe @33 :Text = "OK";  # YES (-s), NO (--exclusive) or OK (as the partition says)
  account @34 :Text;         # as submitted (-A), empty: none
  qos @35 :Text;             # as submitted (-q), empty: none
  comment @36 :Text;         # as submitted (--comment)
  mailType @37 :Text;        # as JobWorkload.mailType
  mailUser @38 :Text;        # as submitted (--mail-user), empty: none
  ntasksPerNode @39 :UInt32; # --ntasks-per-node; 0: not asked
  minCpus @40 :UInt32;       # --mincpus; 0: not asked
  exitSignal @41 :Int32;     # the signal that ended the task behind exitCode; 0: it exited (or
                             # nothing ran)
  # gres
  tresPerNode @42 :Text;     # --gres as scontrol shows it ("gres:gpu:2"); empty: none
  features @43 :Text;        # -C/--constraint as given; empty: none
  usage @44 :StepUsage;      # what the job's ended steps used together (CPU and I/O summed,
                             # peaks the highest with where); steps still running not counted
  licenses @45 :Text;        # -L as scontrol shows it ("fluent:2,ansys:1"); empty: none
  reservation @46 :Text;     # --reservation as submitted (squeue %v); empty: none
  suspendTime @47 :Int64;    # Unix seconds the job was last suspended (scontrol suspend); 0: never
  suspendedSecs @48 :Int64;  # seconds it spent suspended in this run, the current suspension
                             # left out (not counted against its time limit, as Slurm's
                             # tot_sus_time)
  preemptTime @49 :Int64;    # Unix seconds the scheduler preempted it (its GraceTime began); 0: not
  secsPreSuspend @50 :Int64; # seconds it had run when last suspended (scontrol's SecsPreSuspend)
}

# What the scheduler knows of a pending job at its last pass (shoal queue --start/--priority).
struct PendingDetail {
  jobId @0 :UInt64;
  reason @1 :Text;
  expectedStart @2 :Int64;   # Unix seconds; 0: unknown
  priority @3 :UInt64;
  ageFactor @4 :UInt64;      # weighted factors, as sprio prints them
  sizeFactor @5 :UInt64;
  partitionFactor @6 :UInt64;
  nice @7 :Int64;
  fairshareFactor @8 :UInt64;  # PriorityWeightFairshare x the association's fair-share factor
  qosFactor @9 :UInt64;      # PriorityWeightQOS x the QOS's priority over the largest
}

# hold, uhold, release, top, requeue on a list of jobs (scontrol's job commands).
struct JobControl {
  op @0 :Text;
  jobs @1 :List(Text);       # "123", "123_4" (array task), "123_[1-5]"
  uid @2 :UInt32;            # who asks
}

# scontrol update JobId=... KEY=VALUE ...: changes to queued (and, for a few keys, running) jobs.
struct JobUpdate {
  jobs @0 :List(Text);       # "123", "123_4" (a running array task)
  settings @1 :List(Text);   # KEY=VALUE as given (cluster/job_update.hpp reads them), StartTime=
                             # left out: the client resolves it into beginTime
  uid @2 :UInt32;            # who asks
  beginTime @3 :Int64;       # StartTime= in Unix seconds, as the client's clock and time zone
                             # read it; 0: not given
}

struct LaunchRequest {
  jobId @0 :UInt64;
  stepId @1 :UInt32;         # batch script: 0xfffffffe (as Slurm's "batch" step)
  user @2 :Text;
  uid @3 :UInt32;
  gid @4 :UInt32;
  argv @5 :List(Text);
  env @6 :List(Text);        # KEY=VALUE, the caller's environment
  cwd @7 :Text;
  nodelist @8 :Text;         # compressed hostlist of the step's nodes
  nodeIndex @9 :UInt32;      # this node's position in the step (SHOAL_NODEID)
  nodeCount @10 :UInt32;
  ntasks @11 :UInt32;        # tasks in the whole step
  ranks @12 :List(UInt32);   # global ranks to start on this node, in order (SHOAL_LOCALID = index)
  cpusPerTask @13 :UInt32 = 1;
  batch @14 :Bool;
  script @15 :Text;          # batch script text
  stdoutPath @16 :Text;      # batch: absolute output file path
  stderrPath @17 :Text;      # batch: absolute error file path; empty = with stdout
  switchData @18 :Data;      # opaque interconnect data for this step
  jobNodelist @19 :Text;     # compressed hostlist of the whole job (SHOAL_JOB_NODELIST)
  jobName @20 :Text;
  partition @21 :Text;
  jobNodeCount @22 :UInt32;
  cpuBind @23 :Text;         # --cpu-bind in canonical form; empty: leave affinity alone
  jobCpus @24 :List(UInt32); # the node's CPUs (0..CPUs-1) the job holds; empty: the whole node
  memLimitMb @25 :UInt64;    # the job's memory on this node; 0: no limit
  credential @26 :Text;      # auth/munge: the controller's MUNGE credential over this launch
  jobNtasks @27 :UInt32;     # tasks of the whole job (a batch script's SLURM_NTASKS); 0: not sent
  cpusPerTaskSet @28 :Bool;  # --cpus-per-task was given for this step (or batch job), as opposed
                             # to the default of 1: Slurm sets SLURM_CPUS_PER_TASK only then
  openMode @29 :Text;        # batch: --open-mode of the output files, append or truncate;
                             # empty: append
  # gres
  gres @30 :List(GresHeld);  # the devices the job holds on this node, one entry per GRES name
                             # of GresTypes= (no indices: none held, and the task environment's
                             # variables for it are removed, as Slurm does); empty: no GresTypes
  io @31 :StepIo;            # the step's input, terminal and exit options (JobRequest.io)
  nodeAliases @32 :Text;     # SLURM_NODE_ALIASES: name:addr:host of the job's cloud nodes,
                             # comma-separated; empty: none (not set in the tasks' environment)
  rankNodes @33 :List(UInt32);  # with a PMI server (io.mpi): each global rank's node index in
                             # the step, rank order (the ranks' process map); empty otherwise
  pmiTimeoutS @34 :UInt32;   # with a PMI server: PMIxTimeout=, seconds a fence waits for every
                             # node of the step before the ranks get an error
}

# gres: the devices of one generic resource name a job holds on one node.
struct GresHeld {
  node @0 :UInt32;           # in a job record: the node's position in the job's node list
  name @1 :Text;             # gpu, nic, ... (a GresTypes= name)
  indices @2 :List(UInt32);  # the devices' indices among the node's devices of that name, in
                             # gres.conf order (CUDA_VISIBLE_DEVICES), ascending
}

struct TaskOutput {
  jobId @0 :UInt64;
  stepId @1 :UInt32;
  rank @2 :Int32;
  stream @3 :UInt8 $C.type("stream_kind") $C.init("stream_kind::out");  # 1 stdout, 2 stderr
  data @4 :Data $C.type("std::string");
  nodeName @5 :Text;
}

struct TaskExit {
  rank @0 :UInt32;
  exitCode @1 :Int32;        # exit status when exited normally
  signal @2 :Int32;          # terminating signal, 0 when exited normally
}

# What a step's processes used (seed 001's job shepherd): on one node in StepExit, over all its
# nodes in StepRecord (CPU and I/O summed, peaks the highest with where, averages weighted by
# samples). From the step's cgroup where the host allows, else /proc and wait4
# (process/step_usage.hpp).
struct StepUsage {
  userCpuUs @0 :UInt64;
  systemCpuUs @1 :UInt64;
  maxRssBytes @2 :UInt64;    # the highest resident memory of the step's processes on a node
  maxRssNode @3 :Text;       # the node it was on
  maxRssTask @4 :Int32 = -1; # the rank holding the most there; -1: unknown
  aveRssBytes @5 :UInt64;    # the resident memory of a node's processes, averaged over samples
  maxVsizeBytes @6 :UInt64;
  maxVsizeNode @7 :Text;
  readBytes @8 :UInt64;
  writtenBytes @9 :UInt64;
  samples @10 :UInt64;       # samples behind aveRssBytes; 0: none
  tasks @11 :UInt32;         # the tasks these figures cover (summed over nodes); 0: not known
  minCpuUs @12 :UInt64;      # the lowest CPU time (user + system) of a task: each node's CPU
                             # over its tasks there, the lowest node's (sstat's MinCPU)
  minCpuNode @13 :Text;      # the node of minCpuUs
  minCpuTask @14 :Int32 = -1;  # the first rank on that node; -1: unknown
}

struct StepExit {
  jobId @0 :UInt64;
  stepId @1 :UInt32;
  nodeName @2 :Text;
  tasks @3 :List(TaskExit);
  launchError @4 :Text;      # non-empty when the tasks could not be started
  outOfMemory @5 :Bool;      # killed for using more than its memory limit
  usage @6 :StepUsage;       # what the step's processes used on this node
  prologFailed @7 :Bool;     # launchError is this node's failed Prolog (it names the script and
                             # its status): the job is requeued and the node drained
}

struct JobEvent {
  jobId @0 :UInt64;
  stepId @1 :UInt32;
  kind @2 :Text;             # queued allocated launched ended message
  state @3 :Text $C.type("job_state") $C.init("job_state::pending");
                             # the job state after the event
  nodelist @4 :Text;
  text @5 :Text;             # human-readable detail
  exitCode @6 :Int32;        # for "ended": highest task exit code (128+signal)
  nodeCount @7 :UInt32;      # nodes the step was launched on
}

struct NodeUpdate {
  nodes @0 :Text;            # hostlist expression
  state @1 :Text;            # DRAIN RESUME DOWN IDLE (case-insensitive); empty: keep
  reason @2 :Text;
  user @3 :Text;
  address @4 :Text;          # nodeaddr=: the node's new NodeAddr; empty: keep
  hostname @5 :Text;         # nodehostname=: its new NodeHostname; empty: keep
  reboot @6 :Text;           # scontrol reboot and cancel_reboot: REBOOT, REBOOT_ASAP or
                             # CANCEL_REBOOT; empty: none (reason= goes in reason)
  nextState @7 :Text;        # reboot nextstate=: RESUME, DOWN or UNDRAIN; empty: none given
}

# `shoal control update|create|delete partitionname=P Key=Value ...`: settings are applied as on
# a PartitionName= line (config/partition_edit.hpp).
struct PartitionEdit {
  action @0 :Text;           # update, create or delete
  name @1 :Text;
  settings @2 :List(Text);   # Key=Value, in the order given
  user @3 :Text;             # who asks (logged)
}

# `shoal control create reservation KEY=VALUE ...`, `update reservationname=R ...`, `delete
# reservationname=R` (scontrol's words, read by policy/reservation.hpp).
struct ReservationEdit {
  action @0 :Text;           # create, update or delete
  name @1 :Text;             # update, delete: ReservationName
  settings @2 :List(Text);   # Key=Value, in the order given
  user @3 :Text;             # who asks (logged)
}

# One reservation as `show reservation` prints it, and as it is saved (state key "reservations").
struct ReservationInfo {
  name @0 :Text;
  startTime @1 :Int64;       # Unix seconds
  endTime @2 :Int64;         # Unix seconds; 0: UNLIMITED
  nodes @3 :Text;            # hostlist
  nodeCount @4 :UInt32;
  coreCount @5 :UInt32;
  partition @6 :Text;        # empty: (null)
  flags @7 :Text;            # as scontrol prints them ("MAINT,SPEC_NODES"); empty: none
  users @8 :Text;            # comma-separated; empty: (null)
  accounts @9 :Text;         # comma-separated; empty: (null)
  active @10 :Bool;          # State=ACTIVE (listings only)
}

struct ReservationsRecord {
  reservations @0 :List(ReservationInfo);
}

# The partition edits that outlive a restart, replayed over the config's partitions at start
# (state key "partitions"): at most a delete and a create or update per partition.
struct PartitionEditsRecord {
  edits @0 :List(PartitionEdit);
}

struct MapNode {
  name @0 :Text;
  state @1 :Text $C.type("node_state") $C.init("node_state::unknown");  # as NodeInfo.state
  jobId @2 :UInt64;          # job holding the node, 0: none
  coord @3 :List(UInt32);    # X, Y, Z on a torus; empty on a 1-D cluster
}

struct MapAllocation {
  jobId @0 :UInt64;
  nodelist @1 :Text;         # box form (bgl[000x011]) on a torus, else a hostlist
  nodeCount @2 :UInt32;
  origin @3 :List(UInt32);   # torus: lowest corner of the prism before wrapping
  size @4 :List(UInt32);     # torus: extent in X, Y, Z
  connType @5 :Text;         # torus: mesh or torus
  nodeUse @6 :Text;          # torus: coprocessor or virtual
}

struct TopologyView {
  selectType @0 :Text;       # select/linear, select/consecutive or select/torus3d
  dims @1 :List(UInt32);     # X, Y, Z on a torus; empty on a 1-D cluster
  nodes @2 :List(MapNode);   # torus: grid order, x outermost; 1-D: config order
  allocations @3 :List(MapAllocation);  # one per running job, by job id
}

# -- Saved state (StateSaveLocation): what a restarted controller recovers -------------------------
# Each record is saved under a key ("job/ID", "array/ID", "node/NAME", "ctl") and replaced whole
# when its owner changes it (docs/architecture.md, "Durable state").

struct StepRecord {
  stepId @0 :UInt32;
  nodes @1 :List(UInt32);    # indices into the job's node list
  waiting @2 :List(Text);    # nodes whose tasks had not reported
  exitCode @3 :Int32;        # highest task exit code so far
  error @4 :Text;
  outOfMemory @5 :Bool;
  exitSignal @6 :Int32;      # the signal behind exitCode; 0: none
  usage @7 :StepUsage;       # over the nodes that reported so far
  startTime @8 :Int64;       # Unix seconds the step was launched
  endTime @9 :Int64;         # Unix seconds its last node reported; 0: running
  ntasks @10 :UInt32;
  nodelist @11 :Text;        # compressed hostlist of the step's nodes
  listing @12 :StepInfo;     # what step listings show of it (a record of before: unset)
}

struct JobRecord {
  request @0 :JobRequest;    # as resolved at submission (array tasks: with their own env and paths)
  info @1 :JobInfo;          # the listing view
  lifeState @2 :UInt32;      # policy::lifecycle_state
  lifeReason @3 :Text;
  lifeEnding @4 :UInt32;     # policy::lifecycle_state the job ends in (completing only)
  requeueReason @5 :Text;
  nodes @6 :List(Text);      # the allocation, in order
  cpus @7 :List(UInt32);     # CPUs held on each node (shared nodes), else empty
  mainStep @8 :UInt32;
  nextStep @9 :UInt32;
  steps @10 :List(StepRecord);
  lifeWarned @11 :Bool;      # the --signal warning was sent in this run
  # gres
  gres @12 :List(GresHeld);  # the devices held on each node (GresHeld.node); empty: none
  doneSteps @13 :List(StepRecord);  # steps that ended, for accounting (in launch order)
  lifeLent @14 :Bool;        # suspended for a preemptor: its CPUs are lent (PreemptMode=SUSPEND)
}

struct ArrayRecord {
  taskTemplate @0 :JobRequest;  # what each task is made from (--array cleared)
  info @1 :JobInfo;          # the array's pending line
  spec @2 :Text;             # the --array the job was submitted with
  pending @3 :Text;          # the task indices not started yet, in --array syntax ("" none)
}

struct NodeRecord {
  name @0 :Text;
  drain @1 :Bool;            # drained by an admin (DRAINING/DRAINED)
  down @2 :Bool;             # set DOWN by an admin
  reason @3 :Text;
  reasonTime @4 :Int64;
  reasonUser @5 :Text;
  address @6 :Text;          # NodeAddr set at run time (nodeaddr=, cloud_reg_addrs); empty: none
  hostname @7 :Text;         # NodeHostname set at run time; empty: none
}

# A node's power saving state as the power actor saves it (key power/NAME), so that a restart or a
# takeover neither resumes a node twice nor forgets one half-way.
struct PowerRecord {
  name @0 :Text;
  state @1 :UInt8 $C.type("power_state") $C.init("power_state::on");
  downAsked @2 :Bool;        # POWER_DOWN (!) pending
  deadline @3 :Int64;        # powering up/down: when ResumeTimeout/SuspendTimeout ends, Unix s
  programRun @4 :Bool;       # the Resume/SuspendProgram for this state was started
  since @5 :Int64;           # when the node entered the state, Unix seconds
}

struct ControllerRecord {
  nextJobId @0 :UInt64;
}

# What a node daemon reports when it (re)registers: the steps it runs, and the ones that ended
# while no controller heard of it (until the job releases the node).
struct StepRef {
  jobId @0 :UInt64;
  stepId @1 :UInt32;
}

struct NodeReport {
  running @0 :List(StepRef);
  ended @1 :List(StepExit);
}

# What a shoalctld answers to a ping (`shoal control ping`, and each controller watching the
# others): the controller in control answers, and so does a shoalctld that is not.
struct ControllerStatus {
  inControl @0 :Bool;        # it runs the cluster's controller now
  reclaiming @1 :Bool;       # a primary back in service, waiting for a backup to hand control back
}

# -- shoal-stepd, the per-step process (process/stepd_*.hpp) --------------------------------------
# shoald starts one shoal-stepd per job step, hands it a StepdSetup on a pipe, then talks to it
# over a unix stream socket (<SlurmdSpoolDir>/<node>/job<J>.step<S>.sock): each frame is a
# little-endian UInt32 byte count, then one encoded StepdFrame (version header included).

struct StepdCore {
  socket @0 :UInt32;         # hwloc package of the core
  numaNode @1 :UInt32;       # NUMA node of the core
  pus @2 :List(UInt32);      # OS indices of its hardware threads
}

struct StepdSetup {
  request @0 :LaunchRequest; # the step to run
  nodeName @1 :Text;         # the node this step runs on (SHOAL_NODENAME)
  socketPath @2 :Text;       # where to listen for shoald
  cores @3 :List(StepdCore); # this node's hwloc core table, for --cpu-bind and job CPUs
  taskProlog @4 :Text;       # TaskProlog= of shoald's config: run as the user before each task,
                             # its export/unset/print lines shape the task; empty: none
  taskEpilog @5 :Text;       # TaskEpilog=: run as the user after each task; empty: none
  scriptTimeoutS @6 :UInt32; # PrologEpilogTimeout= for both; 0: no limit
}

struct StepdHello {
  request @0 :LaunchRequest; # the step this process runs
  tasksRunning @1 :Bool;     # false once every task has exited
  pid @2 :Int32;             # process id of shoal-stepd
  nodeName @3 :Text;
}

# One node's part of a step's all-gather (PMI fences), or the whole of it.
struct ExchangeBlob {
  node @0 :UInt32;           # the node's index in the step
  data @1 :Data $C.type("std::string");
}

struct StepExchange {
  jobId @0 :UInt64;
  stepId @1 :UInt32;
  round @2 :UInt32;          # the all-gather's number in the step, from 1
  blobs @3 :List(ExchangeBlob);  # up the tree: the sender's subtree; down: every node, in order
  error @4 :Text;            # down only: why the round failed (a node gone, PMIxTimeout passed)
}

struct StepdFrame {
  kind @0 :UInt8;            # stepd -> shoald: 1 hello (first on every connection), 2 output,
                             # 3 exit, 9 input taken (one per input frame, once its data is in
                             # the tasks' pipes, so shoald can pace the client), 10 exchange
                             # (this node's blob for the next all-gather), 12 aborted (a rank
                             # aborted the step: exchange.error says why); shoald -> stepd:
                             # 4 signal, 5 kill, 6 ack (of exit), 7 attach (report output and
                             # exit to this connection), 8 input (for the input tasks), 11
                             # exchange (the round's every blob, or its error), 13 usage
                             # (sample now; answered by a 14 usage)
  hello @1 :StepdHello;      # kind 1
  output @2 :TaskOutput;     # kind 2
  exit @3 :StepExit;         # kind 3: sent until acknowledged, on every new connection
  signo @4 :Int32;           # kind 4: the signal for every task's process group
  input @5 :TaskInput;       # kind 8
  exchange @6 :StepExchange; # kinds 10 and 11
  usage @7 :StepUsage;       # kind 14 (stepd -> shoald): the step's use on this node now, from a
                             # sample taken on kind 13 (shoald -> stepd: sample now and answer)
}

# -- the CLI's front door (runtime/ctld/front_door.hpp) --------------------------------------------
# A client connects to a controller line's port + 1 (SlurmctldPort and the port after it) and
# sends frames: a little-endian UInt32 byte count, then one encoded ClientRequest (version header
# included). The front door answers each with one ClientReply frame, in order, on the same
# connection.

# What a client asks: the kinds of request, ClientRequest.op's values. The C++ enum msg::client_op,
# each kind's name and their count are generated from this list (messages/wire_gen.cpp), and the
# front door has a route for each (runtime/ctld/front_door/routing.cpp; the build fails without
# one). Adding a kind: its line here with the next ordinal, then its route and handler there
# (docs/architecture.md, "Adding a request kind"). Each comment reads: the ClientRequest fields the
# kind uses -> the ClientReply fields its answer fills.
enum ClientOp $C.type("uint8_t") {
  unknown @0;           # an unset op; refused, as is any number not listed here
  ping @1;              # -> status
  jobs @2;              # includeFinished -> jobs
  job @3;               # jobId -> jobs (one)
  nodes @4;             # -> nodes
  partitions @5;        # -> partitions
  config @6;            # -> text (the running configuration, rendered)
  cancel @7;            # target, signo, uid -> ok
  jobControl @8;        # control -> ok
  pending @9;           # -> pending
  map @10;              # -> map
  nodeUpdate @11;       # update -> ok
  setDebug @12;         # text (level), user -> text (the level now)
  debugFlags @13;       # text (changes), user -> text (the flags now on)
  diagReset @14;        # uid -> ok
  submit @15;           # submission -> jobs (the job)
  signal @16;           # jobId, signo -> ok (the signal for the job's tasks; srun's Ctrl-C)
  run @17;              # submission -> jobs (the job), and the job's stream (ClientReply.stream)
  attach @18;           # jobId (stepId: a step's) -> jobs (the job), and its (the step's) stream
                        # from now on
  collectors @19;       # -> collectors (`shoal control show collectors`)
  partitionSummary @20; # -> summary (`shoal info`'s default view)
  partitionEdit @21;    # partitionChange -> ok (update, create, delete partitionname=)
  testOnly @22;         # submission -> estimate (--test-only: when and where; nothing submitted)
  complete @23;         # jobId, exitCode, signo -> ok (shoal alloc releases its allocation)
  clusterIdentity @24;  # -> text: the cluster's TLS identity in a MUNGE credential only the asking
                        # uid may decode (a node daemon, before it connects to the daemons' port;
                        # docs/security.md)
  input @25;            # input -> ok, once the chunk is in the input tasks' pipes (or the step
                        # ended): standard input for the step this connection's run or attach
                        # streams; taken on that connection only, which proved its sender already
  accounting @26;       # query -> accounted (from the accounting store, sacct's
                        # selection; none without a store, errc::unreachable while it is away)
  acctmgrList @27;      # -> associations (everything the accounting store keeps of clusters,
                        # accounts, users, associations and QOS: sacctmgr list/show; errc::unreachable
                        # without a store or while it is away)
  acctmgrEdit @28;      # acctmgr -> text (sacctmgr add/modify/delete, admins only: what changed, as
                        # sacctmgr reports it)
  steps @29;            # jobId (0: every job), stepId (0xffffffff: every step of it) -> steps
                        # (the running steps, squeue -s and scontrol show steps; the batch
                        # script's as 0xfffffffe)
  stepUsage @30;        # jobId, stepId (0xffffffff: every step) -> accounted (one: the job, and
                        # its running steps with what they used so far, asked of their nodes
                        # now; sstat); errc::unknown_job for a job the controller does not hold
  jobUpdate @31;        # jobChange, uid -> ok (scontrol update JobId=: once every job named is
                        # changed and its record durable; the first refusal otherwise)
  reconfigure @32;      # uid -> text (scontrol reconfigure, admins only: shoalctld reads its
                        # file again as on SIGHUP; the text says what it applied and what waits
                        # for a restart; a file that does not parse is refused with its file:line)
  shares @33;           # -> shares (sshare: this cluster's association tree with each
                        # association's shares, decayed usage and fair-share factor, in sshare's
                        # order; empty without associations)
  reservationEdit @34;  # reservationChange, uid -> text (scontrol create|update|delete
                        # reservation, admins only: "Reservation created: NAME" on create)
  reservations @35;     # -> reservations (scontrol show reservation)
  token @36;            # text (for whom; "": the sender), lifespan -> text: an auth/jwt token
                        # (scontrol token); root and SlurmUser may name another user; refused
                        # for a request proven by a token, so a token cannot extend itself
}

struct ClientRequest {
  op @0 :UInt8;              # a ClientOp. A UInt8, not the enum: capnp encodes an enum as a UInt16
                             # and forbids changing a field's type, since older peers would read
                             # the field's bits at its old width
  credential @1 :Text;       # the caller's credential (AuthType); empty under auth/none
  includeFinished @2 :Bool;  # jobs: finished ones too
  jobId @3 :UInt64;          # job, signal, attach
  target @4 :Text;           # cancel: "12", "12_4" (an array task), "12_[1-5]"
  signo @5 :Int32;           # cancel: 0 cancels, else the signal for the tasks; signal
  uid @6 :UInt32;            # who asks (every request; the CLI sets it)
  text @7 :Text;             # setDebug: the level; debugFlags: the changes ("+F -F")
  user @8 :Text;             # setDebug, debugFlags: who asks
  submission @9 :JobRequest; # submit, run
  control @10 :JobControl;   # jobControl
  update @11 :NodeUpdate;    # nodeUpdate
  partitionChange @12 :PartitionEdit;  # partitionEdit
  exitCode @13 :Int32;       # complete: the allocation's command's exit status as a shell reports
                             # it (128+signal; signo then names the signal)
  stepId @14 :UInt32 = 0xffffffff;  # attach: the step whose client (`shoal run` inside a job)
                             # reattaches; 0xffffffff (msg::all_steps, and what an older client
                             # sends): the job's own client
  input @15 :TaskInput;      # input
  query @16 :AccountingQuery;  # accounting: what sacct selects
  acctmgr @17 :AcctmgrEdit;  # acctmgrEdit: the change
  jobChange @18 :JobUpdate;  # jobUpdate: the jobs and their changes
  reservationChange @19 :ReservationEdit;  # reservationEdit
  jobFields @20 :UInt64;     # jobs: the JobInfo fields the listing reads, bit n for field @n
                             # (messages/field_mask.hpp); 0: every field (an older client)
  filter @21 :JobFilter;     # jobs: which jobs the controller lists (the CLI filters again)
  lifespan @22 :UInt32;      # token: seconds it is valid; 0: AuthAltParameters' default (1800)
}

# Which jobs a listing keeps (messages/job_filter.hpp), applied by the controller before it
# copies and encodes them; each empty list keeps all, and the CLI's own filters still apply.
struct JobFilter {
  states @0 :List(Text);     # job states by their long names (RUNNING, PENDING, ...)
  users @1 :List(Text);      # owners' names, any case
  partitions @2 :List(Text); # any case
}

struct ClientReply {
  errorCode @0 :UInt8;       # 0: done; else the errc (messages/errc.hpp) of the refusal
  errorText @1 :Text;        # what the user is shown
  jobs @2 :List(JobInfo);    # jobs; job and submit: the one job
  nodes @3 :List(NodeInfo);  # nodes
  partitions @4 :List(PartitionInfo); # partitions
  pending @5 :List(PendingDetail);    # pending
  map @6 :TopologyView;      # map
  status @7 :ControllerStatus; # ping
  text @8 :Text;             # config (rendered), setDebug and debugFlags (what is now on)
  # run and attach stream what the job's client hears on the same connection, each in a frame of
  # its own, before and after the request's reply: a ClientStream (below; a UInt8, as
  # ClientRequest.op is).
  stream @9 :UInt8;
  output @10 :TaskOutput;
  exited @11 :StepExit;
  event @12 :JobEvent;
  collectors @13 :List(CollectorInfo); # collectors
  summary @14 :List(PartitionSummary); # partitionSummary
  estimate @15 :StartEstimate; # testOnly
  accounted @16 :List(AccountedJob);  # accounting
  associations @17 :AssociationData;  # acctmgrList
  steps @18 :List(StepInfo); # steps
  shares @19 :List(ShareInfo); # shares
  reservations @20 :List(ReservationInfo); # reservations
}

# sacctmgr add/modify/delete as the CLI read its words (accounting/associations.hpp applies it).
struct AcctmgrEdit {
  action @0 :Text;           # add, modify or delete
  entity @1 :Text;           # cluster, account, user or qos
  names @2 :List(Text);      # the names after the entity (add, delete)
  conditions @3 :List(Text); # NAME=VALUE: modify's before `set` (after `where`), delete's
  settings @4 :List(Text);   # NAME=VALUE: add's, and modify's after `set`
}

# What the accounting store keeps of who may run where (sacctmgr's objects). Limits of -1 are
# unset (sacctmgr prints them blank).
struct AssociationData {
  clusters @0 :List(AcctCluster);
  accounts @1 :List(AcctAccount);
  users @2 :List(AcctUser);
  associations @3 :List(Association);
  qos @4 :List(QosInfo);
}

struct AcctCluster {
  name @0 :Text;
  controlHost @1 :Text;      # the controller that registered it (ControlHost)
  controlPort @2 :UInt32;    # its SlurmctldPort
}

struct AcctAccount {
  name @0 :Text;
  description @1 :Text;
  organization @2 :Text;
}

struct AcctUser {
  name @0 :Text;
  defaultAccount @1 :Text;
  adminLevel @2 :Text;       # None, Operator or Administrator
}

# One association: an account's place in a cluster's tree (user empty), or a user's right to
# charge an account (in a partition, or in all when empty).
struct Association {
  cluster @0 :Text;
  account @1 :Text;
  user @2 :Text;
  partition @3 :Text;
  parent @4 :Text;           # an account's association: its parent account (empty for root)
  shares @5 :UInt32 = 1;     # Fairshare=
  priority @6 :Int64 = -1;
  grpJobs @7 :Int64 = -1;
  grpSubmit @8 :Int64 = -1;
  grpTres @9 :Text;          # "cpu=8,mem=1000M"
  grpWallMin @10 :Int64 = -1;
  maxJobs @11 :Int64 = -1;
  maxSubmit @12 :Int64 = -1;
  maxTres @13 :Text;         # MaxTRESPerJob
  maxWallMin @14 :Int64 = -1; # MaxWallDurationPerJob, minutes
  qos @15 :List(Text);       # the QOS it may use
  defaultQos @16 :Text;
}

struct QosInfo {
  name @0 :Text;
  description @1 :Text;
  priority @2 :UInt32;
  flags @3 :Text;
  usageFactor @4 :Float64 = 1.0;
  graceTimeS @5 :Int64;
  grpJobs @6 :Int64 = -1;
  grpSubmit @7 :Int64 = -1;
  grpTres @8 :Text;
  grpWallMin @9 :Int64 = -1;
  maxTres @10 :Text;         # MaxTRESPerJob
  maxWallMin @11 :Int64 = -1;
  maxTresPerUser @12 :Text;
  maxJobsPerUser @13 :Int64 = -1;
  maxSubmitPerUser @14 :Int64 = -1;
  maxTresPerAccount @15 :Text;
  maxJobsPerAccount @16 :Int64 = -1;
  maxSubmitPerAccount @17 :Int64 = -1;
  minTres @18 :Text;
  preempt @19 :List(Text);   # the QOS its jobs may preempt (PreemptType=preempt/qos)
  preemptMode @20 :Text;     # OFF, CANCEL, REQUEUE, SUSPEND; empty: the cluster's ("cluster")
}

# What sacct asks the accounting store (accounting/job_store.hpp's job_query; empty lists
# select all).
struct AccountingQuery {
  start @0 :Int64;           # -S, Unix seconds: jobs that had not ended before; 0: no bound
  end @1 :Int64;             # -E: jobs submitted by then; 0: no bound
  states @2 :List(Text);     # -s: final state names (COMPLETED, FAILED, ...)
  jobs @3 :List(Text);       # -j: "12", "12_3"
  uids @4 :List(UInt32);     # -u
  accounts @5 :List(Text);   # -A
  partitions @6 :List(Text); # -r
  nodes @7 :List(Text);      # -N: hostlist expressions
  names @8 :List(Text);      # --name
  withSteps @9 :Bool = true; # false: -X
  limit @10 :UInt32;         # 0: all
}

# A job as the accounting store keeps it: its listing view as it ended, and its steps.
struct AccountedJob {
  info @0 :JobInfo;          # ntasks: the CPUs it asked for (cpusPerTask 1)
  derivedExitCode @1 :Int32; # the highest exit code of its steps (128+signal)
  eligibleTime @2 :Int64;
  reqTres @3 :Text;          # "cpu=4,mem=2000M,node=1"
  allocTres @4 :Text;
  allocCpus @5 :UInt32;
  steps @6 :List(AccountedStep);
}

struct AccountedStep {
  stepId @0 :UInt32;         # as Slurm numbers them: 0xfffffffb batch, 0xfffffffc extern, 0...
  name @1 :Text;
  nodelist @2 :Text;
  nodeCount @3 :UInt32;
  ntasks @4 :UInt32;
  state @5 :Text;            # COMPLETED FAILED CANCELLED OUT_OF_MEMORY
  exitCode @6 :Int32;
  exitSignal @7 :Int32;
  startTime @8 :Int64;
  endTime @9 :Int64;
  usage @10 :StepUsage;
}

# What a frame of a run or attach connection carries (ClientReply.stream).
enum ClientStream $C.type("uint8_t") {
  reply @0;                  # the request's reply
  output @1;                 # output: what a task wrote
  stepExit @2;               # exited: a node's tasks ended
  event @3;                  # event: queued, allocated, message, ended
}

# When and where a job would start (sbatch/srun --test-only, Slurm's will_run), from the
# scheduler's real state; nothing is submitted.
struct StartEstimate {
  jobId @0 :UInt64;          # the id the job would get (not reserved)
  startTime @1 :Int64;       # Unix seconds: now when it could start at once
  nodelist @2 :Text;         # the nodes it would get
  nodeCount @3 :UInt32;
  cpus @4 :UInt32;           # processors it would hold (Slurm's proc_cnt)
  partition @5 :Text;
}

# `shoal info`'s default view, grouped by the controller: a line per partition and node state,
# without shipping every node's record (100,000 nodes: a few lines, not 100,000 records).
struct StateGroup {
  state @0 :Text $C.type("node_state") $C.init("node_state::unknown");
  count @1 :UInt32;
  nodes @2 :Text;            # hostlist, as `scontrol show hostlistsorted` prints it
  maint @3 :Bool;            # these nodes are in an active MAINT reservation (sinfo's maint)
}

struct PartitionSummary {
  partition @0 :PartitionInfo;  # its nodes list left empty
  groups @1 :List(StateGroup);  # in order of first appearance; empty: a partition without nodes
}

# -- heartbeat fan-in (seed 000's CollectorNodes; actors/collector.hpp) ----------------------------

# The collector manager's word to a collector: the nodes whose heartbeats it gathers. Each new list
# replaces the last; its version comes back in every report, so a report made for an older list
# is not read as news about the nodes of the new one.
struct CollectorList {
  nodes @0 :List(Text);
  version @1 :UInt64;
  intervalMs @2 :Int64;      # HeartBeatInterval: a round ends at 1.5 x this without every node
}

# One round of a collector: sent when every node of its list has beaten, or 1.5 x the interval
# after the round began. Only what changed travels: the nodes that stopped beating since the
# previous round and those that beat again, by name; the first round against a list names every
# silent node (full).
struct CollectorReport {
  collector @0 :Text;        # the collector node's name
  version @1 :UInt64;        # the CollectorList.version this round counted against
  round @2 :UInt64;          # counts from 1 in each collector's life
  answered @3 :UInt32;       # nodes of the list that beat this round
  silent @4 :List(Text);     # nodes that did not beat this round but did in the previous one
                             # (full: every node that did not beat)
  roundMs @5 :Int64;         # from the round's start to this report
  returned @6 :List(Text);   # nodes that beat this round but not in the previous one
  full @7 :Bool;             # the first round against this list: silent names them all
}

# The collector manager's mapping (StateSaveLocation), so that a restarted controller gives each
# collector back its own list instead of splitting the nodes anew.
struct CollectorMapRecord {
  collectors @0 :List(Text); # collector names, each with its nodes below
  nodes @1 :List(Text);      # for each collector, its list as a hostlist expression
}

# A line of `shoal control show collectors`.
struct CollectorInfo {
  name @0 :Text;
  state @1 :Text;            # UP (reporting), DOWN (lost or silent past HeartBeatTimeout),
                             # WAITING (configured, never announced)
  nodes @2 :UInt32;          # nodes in its list
  lastReport @3 :Int64;      # Unix seconds of its last report, 0: never
  roundMs @4 :Int64;         # its last round's length
  reports @5 :UInt64;        # reports received from it
}

# A running step as squeue -s and scontrol show steps list it: the job actor's view of each step
# it launched and that has not ended (ClientReply.steps).
struct StepInfo {
  jobId @0 :UInt64;
  stepId @1 :UInt32;         # 0, 1, ...; 0xfffffffe (msg::batch_step_id): the batch script's
  name @2 :Text;             # srun -J, else the command's name; "batch" for the batch script
  user @3 :Text;             # the job's owner
  uid @4 :UInt32;
  partition @5 :Text;        # the job's
  startTime @6 :Int64;       # Unix seconds it was launched
  timeLimitS @7 :Int64 = -1; # the step's own limit (srun -t inside a job); -1: unlimited
  nodelist @8 :Text;         # compressed hostlist of the nodes running its tasks
  nodeCount @9 :UInt32;
  ntasks @10 :UInt32;
  cpus @11 :UInt32;          # CPUs the step holds over all its nodes
  memMb @12 :UInt64;         # memory the step holds over all its nodes (MB); 0: unspecified
  arrayJobId @13 :UInt64;    # 0: not part of an array
  arrayTaskId @14 :Int64 = -1;  # the job's index in its array; -1: none
  distribution @15 :Text;    # Block, Cyclic (scontrol's Dist=); empty: none given (batch)
  srunHost @16 :Text;        # the host of the `shoal run` that launched it; empty: none (batch)
  srunPid @17 :UInt32;       # that client's process id; 0: none
  tresPerNode @18 :Text;     # the step's --gres as squeue's %b shows it; empty: none
}

# One line of sshare (ClientReply.shares): an association of the fair-share tree with the figures
# Slurm's classic fair-share computes for it (policy/fairshare.hpp).
struct ShareInfo {
  account @0 :Text;
  user @1 :Text;             # empty: the account's own line
  parent @2 :Text;           # the parent account (a user's: its account); empty for root
  depth @3 :UInt32;          # levels below root, for sshare's indented names
  rawShares @4 :UInt32;      # Fairshare=
  normShares @5 :Float64;    # its part of its siblings' shares x its parent's
  rawUsage @6 :Float64;      # CPU-seconds, decayed by PriorityDecayHalfLife (an account: its tree's)
  normUsage @7 :Float64;     # raw usage / the root's
  effectiveUsage @8 :Float64;  # mixed with the parent's as Slurm's classic fair-share does
  fairshare @9 :Float64;     # 2^(-effectiveUsage/normShares)
}

# The scheduler's fair-share usage ledger (StateSaveLocation, key "fairshare"): decayed
# CPU-seconds per user and account, so a restarted controller keeps the usage it charged.
struct UsageRecord {
  entries @0 :List(UsageEntry);
  at @1 :Int64;              # Unix seconds the usage was last decayed to
  resetAt @2 :Int64;         # Unix seconds of the last PriorityUsageResetPeriod wipe; 0: never
}

struct UsageEntry {
  user @0 :Text;
  account @1 :Text;
  cpuSeconds @2 :Float64;    # decayed to UsageRecord.at
}
