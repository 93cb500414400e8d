#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/accounting_settings.hpp"
#include "config/defaults.hpp"
#include "config/health_settings.hpp"
#include "config/log_settings.hpp"
#include "config/power_settings.hpp"
#include "config/prolog_settings.hpp"
#include "config/scheduler_settings.hpp"
#include "messages/errc.hpp"
#include "policy/licenses.hpp"
#include "topology/node_selection.hpp"

namespace shoal::config {

/// How daemons and clients prove who they are (AuthType=, AuthInfo=; docs/security.md).
struct auth_settings {
  /// auth/munge (the default, as Slurm's): every request carries a MUNGE credential that the
  /// receiver verifies. auth/none: a request's uid is believed (single-user clusters only;
  /// the daemons warn at start).
  bool munge = true;
  std::string munge_socket = "/run/munge/munge.socket.2";  ///< AuthInfo=socket=PATH
  /// AuthAltTypes=auth/jwt: the front door also takes a JSON Web Token (HS256, Slurm's claims
  /// `sun`, `exp`, `iat`) in place of a MUNGE credential, as shoalrestd forwards them.
  bool jwt = false;
  /// AuthAltParameters=jwt_key=PATH: the HS256 key. Read by shoalctld when it starts, not by
  /// the parser, so that clients need not be able to read it.
  std::string jwt_key_path;
};

/// One kind of generic resource on a node (Gres=NAME[:TYPE]:COUNT), with the device files
/// gres.conf gives it.
struct node_gres {
  std::string name;                ///< a GresTypes= name: gpu, mps, nic, ...
  std::string type;                ///< Type= (gpu:tesla:2): "" when not typed
  uint64_t count = 0;              ///< devices (or units, for counted-only kinds)
  std::vector<std::string> files;  ///< gres.conf File=, one per device in order; empty when
                                   ///< gres.conf names none (Count= only, or no line)

  friend bool operator==(const node_gres& a, const node_gres& b) {
    return a.name == b.name && a.type == b.type && a.count == b.count && a.files == b.files;
  }
  friend bool operator!=(const node_gres& a, const node_gres& b) { return !(a == b); }
};

/// One compute node as configured (NodeName= line, or the seed's NodeSpecConf Name= line).
/// Resources left at 0 are taken from what the node reports.
struct node_config {
  std::string name;
  std::string address;  ///< NodeHostname=/NodeAddr=; defaults to the name
  /// SlurmdParameters=config_overrides (cluster_config::config_overrides, for every node): a
  /// report of fewer resources than configured does not drain it.
  bool trust_config = false;
  /// ReturnToService= (cluster_config::return_to_service, for every node): 0, 1 or 2.
  uint8_t return_to_service = 0;
  /// ResumeTimeout= (power_settings::resume_timeout_s, for every node): how long a node
  /// rebooted by `scontrol reboot` has to register again before it is DOWN, "reboot timed out".
  int64_t reboot_timeout_s = 60;
  uint32_t cpus = 0;               ///< CPUs=
  uint32_t sockets = 0;            ///< Sockets=
  uint32_t cores_per_socket = 0;   ///< CoresPerSocket=
  uint32_t threads_per_core = 0;   ///< ThreadsPerCore=
  double speed = 0;                ///< Speed= (seed) / CPU MHz
  uint64_t real_memory_mb = 0;     ///< RealMemory=
  uint64_t virtual_memory_mb = 0;  ///< VirtualMemory= (seed)
  uint64_t tmp_disk_mb = 0;        ///< TmpDisk=
  std::string os;                  ///< OS= (seed): minimum OS release, e.g. Linux.2.4.7-10
  uint32_t weight = 1;             ///< Weight=: lower is scheduled first (0 to max_node_weight)
  std::string features;            ///< Features= (or Feature=): names separated by commas
  std::string initial_state;       ///< State= (UNKNOWN, DOWN, DRAIN, IDLE, ...); empty = UNKNOWN
  std::vector<std::string> partitions;  ///< seed Partition=1,3 (names "1","3"); empty = none.
                                        ///< After parsing: every partition holding the node, in
                                        ///< partition order (also the implied "0" and those
                                        ///< whose PartitionName= Nodes= list it)
  bool partitions_given = false;        ///< true when a Partition= key applied (even an empty one)
  bool simulate = false;                ///< Simulate=YES (shoal's): its shoald runs no process
  /// Gres= (items of count 0 left out), refined by gres.conf: a kind's devices are numbered
  /// from 0 per name in this order (what CUDA_VISIBLE_DEVICES names).
  std::vector<node_gres> gres;
  std::string file;  ///< where the record was defined
  int line = 0;
};

/// One partition (PartitionName= line, or implied by the seed's numbered Partition= keys).
struct partition_config {
  std::string name;
  std::vector<std::string> nodes;  ///< expanded, in config order
  bool is_default = false;         ///< Default=YES (or DefaultPartition=)
  std::string state = "UP";        ///< State=UP|DOWN|DRAIN|INACTIVE
  int64_t max_time_s = -1;         ///< MaxTime=, -1 unlimited
  int64_t default_time_s = -1;     ///< DefaultTime=, -1 = use MaxTime
  uint32_t max_nodes = 0;          ///< MaxNodes=, 0 unlimited
  uint32_t priority = 1;           ///< PriorityTier=
  uint32_t job_factor = 1;         ///< PriorityJobFactor=: the multifactor partition factor
  bool exclusive = false;          ///< OverSubscribe=EXCLUSIVE: jobs always get whole nodes
  /// OverSubscribe=YES[:N] or FORCE[:N]: up to N sharing jobs per CPU (per node under a
  /// whole-node SelectType); 1 = NO.
  uint32_t oversubscribe = 1;
  bool force = false;  ///< FORCE: every job shares; YES: only jobs submitted with -s
  /// SuspendTime=, SuspendTimeout=, ResumeTimeout= of this partition (unset: the global ones;
  /// effective_power_timing combines them)
  partition_power_timing power;
  bool power_down_on_idle = false;  ///< PowerDownOnIdle=YES: its nodes power down once idle
  /// PreemptMode= of this partition (unset: the cluster's PreemptMode)
  std::optional<policy::preempt_mode> preempt_mode;
  int64_t grace_time_s = 0;  ///< GraceTime= (seconds)
  std::string file;
  int line = 0;
};

/// SelectType=select/torus3d: the X x Y x Z grid of base partitions, read from the node names
/// (prefix plus one base-36 digit per dimension, as Blue Gene/L's bgl000..bgl733).
struct torus_grid {
  std::string prefix;                ///< the one name prefix every node shares, e.g. "bgl"
  std::array<int, 3> dims{0, 0, 0};  ///< X, Y, Z: the highest digit in each dimension, plus one
};

/// One SlurmctldHost= line (or ControlMachine=/BackupController=): a shoalctld that may be in
/// control. Lines are in failover order: the first is the primary, the second the backup.
struct controller_host {
  std::string name;     ///< NAME: the host name `shoalctld --controller` (or the host) matches
  std::string address;  ///< ADDR in NAME(ADDR) or NAME(ADDR:PORT); NAME when not given
  uint16_t port = 0;    ///< PORT in NAME(ADDR:PORT); SlurmctldPort when not given

  friend bool operator==(const controller_host& a, const controller_host& b) {
    return a.name == b.name && a.address == b.address && a.port == b.port;
  }
  friend bool operator!=(const controller_host& a, const controller_host& b) { return !(a == b); }
};

/// The whole cluster configuration, as every shoal process reads it.
struct cluster_config {
  std::string path;                               ///< the main file ("" for the embedded default)
  std::string cluster_name = "shoal";             ///< ClusterName=
  std::vector<controller_host> controller_hosts;  ///< SlurmctldHost= (repeatable) /
                                                  ///< ControlMachine= then BackupController=;
                                                  ///< the first is the primary, then backups
  uint16_t controller_port = defaults::controller_port;  ///< SlurmctldPort= / MachStatusPort=
  /// SlurmctldTimeout=: a backup takes over when the controllers before it stay silent this long
  int64_t slurmctld_timeout_s = defaults::slurmctld_timeout_s;
  /// MessageTimeout=: how long a client waits for an answer (and, with no backup, for the
  /// controller)
  int64_t message_timeout_s = defaults::message_timeout_s;
  std::vector<std::string> collector_nodes;  ///< CollectorNodes= (seed), expanded
  /// HeartBeatInterval= (seconds, may be fractional)
  int64_t heartbeat_interval_ms = defaults::heartbeat_interval_ms;
  /// SlurmdTimeout= / HeartBeatTimeout=
  int64_t heartbeat_timeout_ms = defaults::heartbeat_timeout_ms;
  int64_t kill_wait_s = defaults::kill_wait_s;      ///< KillWait=
  int64_t min_job_age_s = defaults::min_job_age_s;  ///< MinJobAge=: a finished job stays listed
  std::string state_save_location = "/var/spool/shoal";  ///< StateSaveLocation=
  std::string node_spool_dir = "/var/spool/shoald";      ///< SlurmdSpoolDir= (%n, %h expanded)
  std::string tmp_fs = "/tmp";                           ///< TmpFS=
  std::string ctld_log_file;                             ///< SlurmctldLogFile=; empty: stderr
  std::string node_log_file;                             ///< SlurmdLogFile=; empty: stderr
  std::string ctld_debug = "info";  ///< SlurmctldDebug= (level name or 0-9 number)
  std::string node_debug = "info";  ///< SlurmdDebug=
  std::string ctld_syslog_debug;    ///< SlurmctldSyslogDebug=; empty: no syslog
  std::string node_syslog_debug;    ///< SlurmdSyslogDebug=; empty: no syslog
  debug_flag_set debug_flags = 0;   ///< DebugFlags= / MachStatusDebug= (log_settings.hpp)
  std::string log_time_format = "iso8601_ms";  ///< LogTimeFormat=
  uint64_t log_file_max_size = 0;              ///< LogFileMaxSize= bytes; 0: no size rotation
  uint32_t log_file_count = 5;                 ///< LogFileCount=: rotated files kept (shoal keys)
  topology::selection_policy select_type =
      topology::selection_policy::consecutive;  ///< SelectType=
                                                ///< for 1-D clusters (unused when torus3d)
  bool torus3d = false;  ///< SelectType=select/torus3d (alias select/bluegene): `torus` holds the
                         ///< grid; every node is a base partition of it, the grid is complete
  torus_grid torus;
  std::string switch_type = "switch/none";  ///< SwitchType=, as written; the runtime builds the
                                            ///< matching interconnect::switch_manager
  /// MpiDefault=: the MPI type of a step that names none (srun --mpi, SLURM_MPI_TYPE), as Slurm
  /// spells it (config/mpi_type.hpp); only none (and openmpi, its alias) starts ranks that know
  /// each other, so srun warns when this names another
  std::string mpi_default = "none";
  /// PMIxTimeout= (Slurm's mpi.conf key): seconds a PMI fence waits for every node of the step
  /// before its ranks get an error (PMI-2 and PMIx alike)
  int64_t pmi_timeout_s = defaults::pmi_timeout_s;
  /// SlurmdParameters=config_overrides: a node reporting less than its NodeName line (fewer
  /// CPUs, less memory) is taken as configured instead of drained (Slurm's; for test clusters
  /// that declare more than their host has)
  bool config_overrides = false;
  std::string switch_parameters;  ///< SwitchParameters=, as written (comma-separated key=value,
                                  ///< each plugin reads its own: docs/interconnect.md)
  uint16_t metrics_port = defaults::metrics_port;  ///< MetricsPort=: shoalctld's /metrics; 0 = off
  /// NodeMetricsPort=: each shoald's; 0 = off (shoald --metrics-port overrides)
  uint16_t node_metrics_port = defaults::node_metrics_port;
  bool collect_metrics = true;           ///< CollectMetrics=NO: actors meter nothing and
                                         ///< no endpoint runs (for overhead benchmarks)
  bool slurm_env = true;                 ///< SlurmEnv=NO (shoal's): tasks get no SLURM_*
                                         ///< variables and no Slurm command names on PATH
                                         ///< (Slurm runs beside shoal); shoald's config counts
  std::vector<std::string> admin_users;  ///< AdminUsers= (shoal's): user names that may
                                         ///< administer the cluster, beside root and the
                                         ///< user shoalctld runs as (SlurmUser)
  std::string slurm_user;                ///< SlurmUser=: may administer too; empty: none
  auth_settings auth;                    ///< AuthType=, AuthInfo=
  bool private_jobs = false;             ///< PrivateData=jobs: users list only their jobs
  bool listen_all = false;         ///< ControllerListen=all (shoal's): shoalctld's ports listen on
                                   ///< every address; by default only on its SlurmctldHost address
  scheduler_settings scheduling;   ///< SchedulerType=, Priority*=, MaxArraySize=, ...
  std::string node_spec_conf;      ///< NodeSpecConf= (seed), as resolved
  std::string partition_conf;      ///< PartitionConf= (seed), as resolved; "" if absent
  std::vector<node_config> nodes;  ///< in config order, names unique
  std::vector<partition_config> partitions;  ///< in config order, names unique
  std::vector<std::string> warnings;         ///< "file:line: key 'TaskPlugin' is accepted ...", ...
  std::vector<std::string> gres_types;  ///< GresTypes=: the generic resource names nodes may have
  std::string gres_conf;  ///< the gres.conf read (GresConf=, or gres.conf beside the main file);
                          ///< "" when none
  /// MailProg=: run for each --mail-type event, as slurmctld runs it; "": no mail (Slurm's
  /// default, /bin/mail, is not assumed).
  std::string mail_prog;
  accounting_settings accounting;  ///< AccountingStorage*= (config/accounting_settings.hpp)
  power_settings power;  ///< SuspendTime=, ResumeProgram=, SlurmctldParameters=, ... (the guide's)
  prolog_settings prologs;  ///< Prolog=, Epilog=, PrologFlags=, TaskProlog=, ... (prolog_settings)
  health_settings health;   ///< HealthCheckProgram=, HealthCheckInterval=, HealthCheckNodeState=
  /// ReturnToService= (Slurm's values and default): when a DOWN node is in service again by
  /// itself. 0: never (an admin resumes it); 1: a node DOWN for not responding, once it
  /// registers or answers again with a valid configuration; 2: a node DOWN for any reason, once
  /// it registers with a valid configuration.
  uint8_t return_to_service = 0;
  /// Licenses=: the cluster-wide licenses jobs ask for with -L, in config order, names unique.
  policy::license_list licenses;
};

/// Weight='s highest value, as Slurm's.
constexpr uint64_t max_node_weight = 4'294'967'280u;

/// A node's Features= as a list (order kept, empty items dropped).
std::vector<std::string> feature_list(const node_config& node);

/// auth/jwt's key file: AuthAltParameters=jwt_key=, else Slurm's default,
/// StateSaveLocation/jwt_hs256.key.
std::string jwt_key_path(const cluster_config& cfg);

/// The SuspendTime, SuspendTimeout and ResumeTimeout power saving uses for `node`, from the
/// global keys and the partitions holding it (effective_power_timing's rule).
power_timing node_power_timing(const cluster_config& cfg, const node_config& node);

/// Reads a config file (and the NodeSpecConf/PartitionConf files it names). The format is
/// Slurm's `Key=Value` lines (blanks around `=` allowed, `#` starts a comment, keys
/// case-insensitive). Errors (errc::invalid_config) name "file:line: what is wrong"; an
/// unreadable main file gives "path: cannot read: <strerror>". Never logs, never throws.
///
/// Details:
/// - Several pairs may share a line; values may be double-quoted. After `=` and a blank, an end
///   of line or `Ident=` means an empty value (`Partition= `). `Key=a=b` keeps "a=b".
/// - `NodeName=`/`PartitionName=` (and the seed's `Name=`) must start their line. Their `DEFAULT`
///   records set defaults for later lines and merge when repeated (across included files too).
/// - NodeSpecConf=/PartitionConf= are read where they appear, as if included there; relative
///   paths resolve against the main file's directory, and an absolute path that does not exist
///   falls back to its base name in that directory (with a warning). A missing NodeSpecConf is
///   an error, a missing PartitionConf a warning. Inside an included file both are ignored.
/// - Nodes from seed `Name=` lines without a Partition= key (not even from a DEFAULT) are in
///   partition "0"; `NodeName=` nodes are only in partitions that list them.
/// - Partitions come in order of first appearance (a PartitionName= line, or the first node
///   naming a seed number); a PartitionName= line may name a seed number and then shares it.
///   Each partition's nodes are kept in config (NodeName) order.
/// - An unknown key is an error naming the nearest known key ("file:line: unknown key
///   'SlurmctldPrt' (did you mean SlurmctldPort?)"), on every kind of line and in gres.conf, as
///   Slurm refuses one. Slurm keys shoal reads without acting on them add a "file:line: ..."
///   entry to `warnings`.
/// - SelectType=select/torus3d (or Slurm's historical select/bluegene) reads the grid from the
///   node names: every node is one prefix plus three base-36 digits (0-9, A-Z: X, Y, Z), the
///   same prefix for all, and the names fill the grid 0..X-1 x 0..Y-1 x 0..Z-1 completely
///   (`NodeName=bgl[000x733]` declares 8x4x4). Otherwise an error naming the node's line (or
///   the SelectType line for a missing base partition).
/// - GresTypes= lists the generic resource names; a node's Gres= naming another is an error at
///   the node's line ("Invalid GRES configured on node ..."). Devices come from gres.conf: the
///   file GresConf= names (relative to the main file's directory; missing is an error), else
///   `gres.conf` in the main file's directory when there is one (as Slurm finds it beside
///   slurm.conf). Its lines are `[NodeName=HOSTLIST] Name=NAME [Type=TYPE] [File=PATHS]
///   [Count=N]` (File= a hostlist-style expression such as /dev/nvidia[0-3], one device each;
///   Count= without File= counts devices with no file). A line without NodeName= applies to
///   every node whose Gres= has NAME. Per node and name the devices must number what Gres=
///   says (per type when Gres= gives types), else an error at the gres.conf line. AutoDetect=
///   and keys shoal does not act on (Cores=, Links=, Flags=) are warnings; other keys errors.
shoal::expected<cluster_config> load_config(const std::string& path);

/// As load_config, for a client of the controller (the CLI): NodeName=, Name= and
/// PartitionName= lines are skipped, with the checks that need them, so the result has no nodes
/// or partitions and a 100,000-node config costs a command nothing. Everything else (controller
/// lines, ports, AuthType, timeouts) is read and checked as load_config does.
shoal::expected<cluster_config> load_client_config(const std::string& path);

/// Parses config text; `source` names it in messages (a file path, or "<embedded>").
/// `base_dir` resolves relative NodeSpecConf/PartitionConf paths ("" = the working directory).
/// As load_config, but `path` of the result stays empty.
shoal::expected<cluster_config> parse_config(const std::string& text, const std::string& source,
                                             const std::string& base_dir);

/// The embedded default: a local cluster of `nodes` node daemons on 127.0.0.1, named
/// node[1-N], one partition "debug" (Default=YES), controller on `port`, short heartbeats.
std::string default_config_text(unsigned nodes, uint16_t port);

/// As default_config_text, for a local 3-D torus: SelectType=select/torus3d, base partitions
/// named bgl000 up to the grid's far corner (`NodeName=bgl[000x733]` for 8x4x4), all in the
/// default partition "debug". Precondition: each dimension is 1 to 36.
std::string torus_config_text(const std::array<int, 3>& dims, uint16_t port);

/// `base` (config text) with `overrides` (config text) written over it, each key once, as a
/// person would edit the file: a line of `overrides` that sets one key replaces the first line
/// of the result setting that key (any case; later lines setting it are dropped), or is appended
/// when none does. Lines of repeatable keys (SlurmctldHost=, NodeName=, PartitionName=, ...),
/// lines with several pairs, comments and lines that do not parse are appended as written.
std::string merge_config_text(std::string base, const std::string& overrides);

/// The name of the base partition at (x, y, z): `prefix` plus one base-36 digit per dimension.
std::string base_partition_name(const std::string& prefix, int x, int y, int z);

/// The running configuration as `Key = Value` lines (what `shoal control show config` prints):
/// a "Configuration data as of <path or <embedded>>" line, the keys in alphabetical order with
/// padded names, then NodeName= lines (runs of equally set nodes share one) and PartitionName=
/// lines. Without the first line it parses back to an equivalent cluster: membership is written
/// on the PartitionName= lines only, and NodeSpecConf/PartitionConf only as comments.
std::string render_config(const cluster_config& cfg);

/// A SlurmctldHost= value as written back: NAME, NAME(ADDRESS), or NAME(ADDRESS:PORT) when the
/// line's port is not SlurmctldPort.
std::string controller_host_text(const controller_host& host, const cluster_config& cfg);

/// Where node `node`'s step sockets live (shoal-stepd, one per running step): SlurmdSpoolDir
/// with "%n" as the node name and "%h" as `host` (the short host name), as Slurm expands it;
/// when the value names no node (no "%n"), the node's own subdirectory of it, so that several
/// daemons sharing a host never see each other's steps.
std::string node_spool_dir(const cluster_config& cfg, const std::string& node,
                           const std::string& host);

/// A partition's OverSubscribe as scontrol prints it: NO, EXCLUSIVE, YES:N or FORCE:N.
std::string over_subscribe_text(const partition_config& p);

/// Seconds a client keeps waiting for a controller in control while a backup may take over:
/// 1.5 x SlurmctldTimeout, never less than MessageTimeout (Slurm's clients wait as long). The
/// controller remembers a submission's token for longer than this, so a retry finds its job.
int64_t takeover_patience_s(const cluster_config& cfg);

}  // namespace shoal::config
