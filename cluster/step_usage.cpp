#include "cluster/step_usage.hpp"

namespace shoal::cluster {

void add_node_usage(msg::step_usage& total, const msg::step_usage& part, const std::string& node) {
  total.user_cpu_us += part.user_cpu_us;
  total.system_cpu_us += part.system_cpu_us;
  total.read_bytes += part.read_bytes;
  total.written_bytes += part.written_bytes;
  if (part.max_rss_bytes > total.max_rss_bytes || total.max_rss_node.empty()) {
    total.max_rss_bytes = part.max_rss_bytes;
    total.max_rss_node = node;
    total.max_rss_task = part.max_rss_task;
  }
  if (part.max_vsize_bytes > total.max_vsize_bytes || total.max_vsize_node.empty()) {
    total.max_vsize_bytes = part.max_vsize_bytes;
    total.max_vsize_node = node;
  }
  if (part.tasks != 0 && (total.min_cpu_node.empty() || part.min_cpu_us < total.min_cpu_us)) {
    total.min_cpu_us = part.min_cpu_us;
    total.min_cpu_node = node;
    total.min_cpu_task = part.min_cpu_task;
  }
  total.tasks += part.tasks;
  auto samples = total.samples + part.samples;
  if (samples > 0) {
    // In long double: bytes x samples can pass 2^64 for a long step with a large footprint.
    long double sum = static_cast<long double>(total.ave_rss_bytes) * total.samples +
                      static_cast<long double>(part.ave_rss_bytes) * part.samples;
    total.ave_rss_bytes = static_cast<uint64_t>(sum / samples);
  }
  total.samples = samples;
}

void add_step_usage(msg::step_usage& total, const msg::step_usage& step) {
  total.user_cpu_us += step.user_cpu_us;
  total.system_cpu_us += step.system_cpu_us;
  total.read_bytes += step.read_bytes;
  total.written_bytes += step.written_bytes;
  if (step.max_rss_bytes > total.max_rss_bytes) {
    total.max_rss_bytes = step.max_rss_bytes;
    total.max_rss_node = step.max_rss_node;
    total.max_rss_task = step.max_rss_task;
  }
  if (step.max_vsize_bytes > total.max_vsize_bytes) {
    total.max_vsize_bytes = step.max_vsize_bytes;
    total.max_vsize_node = step.max_vsize_node;
  }
}

}  // namespace shoal::cluster
