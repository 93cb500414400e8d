#pragma once

// The default of each setting that more than one place starts from, written here once:
// cluster_config's members take them, and so does every struct that carries a setting beside
// it (an actor's setup, a client's wait). Slurm's defaults unless said otherwise.

#include <cstdint>

namespace shoal::config::defaults {

/// SlurmctldPort=: shoal's own (Slurm's is 6817), so shoal and Slurm can share a host.
inline constexpr uint16_t controller_port = 6917;
/// MetricsPort= (shoal's): shoalctld's /metrics.
inline constexpr uint16_t metrics_port = 6920;
/// NodeMetricsPort= (shoal's): each shoald's /metrics.
inline constexpr uint16_t node_metrics_port = 6921;

/// HeartBeatInterval=, in milliseconds.
inline constexpr int64_t heartbeat_interval_ms = 30'000;
/// SlurmdTimeout= / HeartBeatTimeout=, in milliseconds: a node silent this long is DOWN.
inline constexpr int64_t heartbeat_timeout_ms = 300'000;
/// KillWait=: seconds between SIGTERM and SIGKILL.
inline constexpr int64_t kill_wait_s = 30;
/// PMIxTimeout=: seconds a PMI fence waits for the step's every node (Slurm's default).
inline constexpr int64_t pmi_timeout_s = 300;
/// MinJobAge=: seconds a finished job stays listed (and a dependency target) after its end.
inline constexpr int64_t min_job_age_s = 300;
/// MessageTimeout=: seconds a client waits for an answer.
inline constexpr int64_t message_timeout_s = 10;
/// SlurmctldTimeout=: seconds of the primary's silence before a backup takes over.
inline constexpr int64_t slurmctld_timeout_s = 120;

}  // namespace shoal::config::defaults
