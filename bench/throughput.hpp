#pragma once

// Figure (b): how fast a burst of trivial batch jobs is accepted and run to completion.

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "bench/support.hpp"
#include "messages/states.hpp"

namespace shoal::bench {

/// How a phase reaches the cluster: the bench's own actor system and controller handle (to watch
/// the queue and, for the API phase, to submit), and the CLI binary.
struct cluster_access {
  caf::actor_system* sys = nullptr;
  caf::actor controller;
  std::string shoal_path;
  std::chrono::milliseconds poll_every{20};  ///< how often the queue is polled during a burst
};

/// The figures of one burst. Times start when the first submission starts.
struct throughput_result {
  std::string label;
  size_t jobs = 0;                           ///< submissions attempted
  size_t accepted = 0;                       ///< submissions the controller answered with a job
  std::vector<std::string> submit_failures;  ///< one line per refused or failed submission
  double submit_s = 0;                       ///< until the last submission was answered
  double end_to_end_s = 0;                   ///< until every accepted job was seen finished
  bool all_finished = false;                 ///< false: the deadline passed first
  std::map<msg::job_state, size_t> states;   ///< the phase's jobs by state at the end
  std::vector<std::string> problems;         ///< jobs that did not end COMPLETED (first 10)
  size_t output_files = 0;                   ///< shoal-*.out files the jobs left in the dir
  summary submit_latency;   ///< per `shoal batch` process (CLI burst only; zero for the API)
  summary poll_rtt;         ///< round trip of each poll of the active jobs
  size_t jobs_in_view = 0;  ///< the most active jobs one poll listed
};

/// Submits `jobs` copies of `#!/bin/sh\ntrue` with the real CLI (`shoal batch job.sh`), from
/// `submitters` threads in parallel, each running the CLI serially, in `dir` (which receives the
/// script and the jobs' output files). Watches the controller until they all finished or
/// `deadline` passed.
throughput_result run_cli_burst(const cluster_access& access, size_t jobs, unsigned submitters,
                                const std::string& dir, std::chrono::seconds deadline);

/// Submits `jobs` copies of the same script through the actor API over one connection, all
/// requests sent before the first reply is awaited, and watches them as run_cli_burst does.
throughput_result run_api_burst(const cluster_access& access, size_t jobs, const std::string& dir,
                                std::chrono::seconds deadline);

/// What one pending array costs the controller: its resident memory before and after a held
/// `--array=1-N` (nothing starts) is accepted. The array is cancelled afterwards.
struct pending_array_memory {
  size_t tasks = 0;
  long rss_before_kib = 0;
  long rss_after_kib = 0;
  double submit_s = 0;  ///< the one request, until its reply
  std::string error;    ///< set when the submission or the cancel failed
};

pending_array_memory measure_pending_array(const cluster_access& access, size_t tasks,
                                           const std::string& dir, pid_t controller);

/// Submits one job array of `jobs` tasks (`--array=1-N`, the same script) through the actor API
/// and watches every task as run_cli_burst does: the figure to set beside run_api_burst's
/// separate submissions.
throughput_result run_array_burst(const cluster_access& access, size_t jobs, const std::string& dir,
                                  std::chrono::seconds deadline);

}  // namespace shoal::bench
