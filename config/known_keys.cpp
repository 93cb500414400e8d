#include "config/known_keys.hpp"

#include <algorithm>
#include <cctype>

namespace shoal::config {

namespace {

// Each list in the order its keys are tried by the parser's groups; a test parses every entry
// (test/unit/config/known_keys_test.cpp), so a key listed here is one the parser takes.
// One group of keys a line reads better than one key a line.
// clang-format off

const std::vector<std::string_view> main_keys = {
    // the controller, its ports and timeouts (config_main_keys.cpp, controller_key)
    "SlurmctldHost", "ControlMachine", "BackupController", "SlurmctldTimeout", "MessageTimeout",
    "SlurmctldPort", "MachStatusPort", "MetricsPort", "NodeMetricsPort", "ControllerListen",
    // who may do what (access_key)
    "AdminUsers", "AuthType", "AuthInfo", "AuthAltTypes", "AuthAltParameters", "SlurmUser",
    "PrivateData",
    // the node daemons (daemon_key)
    "CollectMetrics", "SlurmEnv", "HeartBeatInterval", "SlurmdTimeout", "HeartBeatTimeout",
    "KillWait", "SlurmdParameters", "PMIxTimeout", "MinJobAge", "StateSaveLocation", "TmpFS",
    "SlurmdSpoolDir", "ReturnToService",
    // logging (logging_key)
    "SlurmctldLogFile", "SlurmdLogFile", "SlurmctldDebug", "SlurmdDebug", "SlurmctldSyslogDebug",
    "SlurmdSyslogDebug", "DebugFlags", "MachStatusDebug", "LogTimeFormat", "LogFileMaxSize",
    "LogFileCount",
    // resources (resource_key)
    "SelectType", "SwitchType", "MpiDefault", "SwitchParameters", "MailProg", "ClusterName",
    "CollectorNodes", "GresTypes", "GresConf", "DefaultPartition", "Licenses",
    // included files
    "NodeSpecConf", "PartitionConf",
    // power saving (power_settings.cpp)
    "SuspendProgram", "ResumeProgram", "ResumeFailProgram", "SuspendTime", "SuspendTimeout",
    "ResumeTimeout", "TCPTimeout", "SuspendRate", "ResumeRate", "SuspendExcNodes",
    "SuspendExcParts", "SuspendExcStates", "SlurmctldParameters", "ReconfigFlags",
    "CommunicationParameters",
    // accounting (accounting_settings.cpp)
    "AccountingStorageType", "AccountingStorageLoc", "AccountingStorageHost",
    "AccountingStorageUser", "AccountingStoragePass", "AccountingStoragePort",
    "AccountingStorageEnforce",
    // scheduling (scheduler_settings.cpp)
    "SchedulerType", "SchedulerParameters", "PriorityType", "PriorityWeightAge",
    "PriorityWeightJobSize", "PriorityWeightPartition", "PriorityMaxAge", "PriorityFavorSmall",
    "PriorityWeightFairshare", "PriorityWeightQOS", "PriorityDecayHalfLife",
    "PriorityUsageResetPeriod", "PriorityCalcPeriod", "MaxArraySize",
    "PreemptType", "PreemptMode", "PreemptExemptTime",
    // prologs and epilogs (prolog_settings.cpp)
    "Prolog", "Epilog", "PrologSlurmctld", "EpilogSlurmctld", "TaskProlog", "TaskEpilog",
    "PrologFlags", "PrologEpilogTimeout",
    // health checks (health_settings.cpp)
    "HealthCheckProgram", "HealthCheckInterval", "HealthCheckNodeState", "RebootProgram",
    // the seed's daemons' binaries (read, nothing to do)
    "MachStatusManager", "MachStatusDaemon",
    // Slurm's, accepted with a warning that they have no effect (compat_keys)
    "ProctrackType", "TaskPlugin", "SlurmctldPidFile", "SlurmdPidFile", "JobCompType",
    "SlurmdPort",
    // lines of their own
    "NodeName", "PartitionName",
};

const std::vector<std::string_view> node_keys = {
    "NodeAddr", "NodeHostname", "CPUs", "Procs", "Sockets", "CoresPerSocket", "ThreadsPerCore",
    "Weight", "Speed", "RealMemory", "VirtualMemory", "TmpDisk", "OS", "Features", "Feature",
    "Gres", "Simulate", "State", "Partition",
};

const std::vector<std::string_view> partition_keys = {
    "Nodes", "Default", "MaxTime", "DefaultTime", "State", "MaxNodes", "PriorityTier", "Priority",
    "PriorityJobFactor", "OverSubscribe", "Shared", "SuspendTime", "SuspendTimeout",
    "ResumeTimeout", "PowerDownOnIdle", "PreemptMode", "GraceTime",
};

const std::vector<std::string_view> gres_keys = {
    "Name", "Type", "File", "Files", "Count", "NodeName", "AutoDetect", "Cores", "CPUs", "Links",
    "Flags",
};

// clang-format on

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

}  // namespace

const std::vector<std::string_view>& known_keys(key_set set) {
  switch (set) {
    case key_set::node:
      return node_keys;
    case key_set::partition:
      return partition_keys;
    case key_set::gres:
      return gres_keys;
    case key_set::main:
      break;
  }
  return main_keys;
}

size_t key_distance(std::string_view a, std::string_view b) {
  // Three rows of the optimal-string-alignment table: the two before and this one.
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1]))
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, row);
  }
  return prev[b.size()];
}

std::string nearest_key(std::string_view word, key_set set) {
  size_t limit = word.size() <= 4 ? 1 : word.size() <= 8 ? 2 : 3;
  std::string_view best;
  size_t best_distance = limit + 1;
  for (auto key : known_keys(set)) {
    auto d = key_distance(word, key);
    if (d < best_distance) {
      best = key;
      best_distance = d;
    }
  }
  return std::string{best};
}

std::string unknown_key_text(std::string_view word, key_set set) {
  auto text = "unknown key '" + std::string{word} + "'";
  auto near = nearest_key(word, set);
  if (!near.empty()) text += " (did you mean " + near + "?)";
  return text;
}

}  // namespace shoal::config
