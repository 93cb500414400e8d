#include "messages/states.hpp"

#include <strings.h>

#include <string>

namespace shoal::msg {

namespace {

constexpr node_state all_node_states[] = {
    node_state::unknown, node_state::idle,     node_state::allocated, node_state::completing,
    node_state::down,    node_state::draining, node_state::drained,   node_state::mixed};
constexpr job_state all_job_states[] = {
    job_state::pending,   job_state::configuring,   job_state::running,   job_state::completing,
    job_state::completed, job_state::failed,        job_state::cancelled, job_state::timeout,
    job_state::node_fail, job_state::out_of_memory, job_state::preempted, job_state::suspended};

bool equal_nocase(std::string_view a, const char* b) {
  return a.size() == std::char_traits<char>::length(b) && strncasecmp(a.data(), b, a.size()) == 0;
}

}  // namespace

const char* to_string(node_state s) {
  switch (s) {
    case node_state::unknown:
      return "UNKNOWN";
    case node_state::idle:
      return "IDLE";
    case node_state::allocated:
      return "ALLOCATED";
    case node_state::completing:
      return "COMPLETING";
    case node_state::down:
      return "DOWN";
    case node_state::draining:
      return "DRAINING";
    case node_state::drained:
      return "DRAINED";
    case node_state::mixed:
      return "MIXED";
  }
  return "UNKNOWN";
}

const char* short_name(node_state s) {
  switch (s) {
    case node_state::unknown:
      return "unk";
    case node_state::idle:
      return "idle";
    case node_state::allocated:
      return "alloc";
    case node_state::completing:
      return "comp";
    case node_state::down:
      return "down";
    case node_state::draining:
      return "drng";
    case node_state::drained:
      return "drain";
    case node_state::mixed:
      return "mix";
  }
  return "unk";
}

const char* to_string(power_state s) {
  switch (s) {
    case power_state::on:
      return "";
    case power_state::powered_down:
      return "POWERED_DOWN";
    case power_state::powering_up:
      return "POWERING_UP";
    case power_state::powering_down:
      return "POWERING_DOWN";
  }
  return "";
}

const char* power_symbol(power_state s) {
  switch (s) {
    case power_state::on:
      return "";
    case power_state::powered_down:
      return "~";
    case power_state::powering_up:
      return "#";
    case power_state::powering_down:
      return "%";
  }
  return "";
}

const char* to_string(job_state s) {
  switch (s) {
    case job_state::pending:
      return "PENDING";
    case job_state::configuring:
      return "CONFIGURING";
    case job_state::running:
      return "RUNNING";
    case job_state::completing:
      return "COMPLETING";
    case job_state::completed:
      return "COMPLETED";
    case job_state::failed:
      return "FAILED";
    case job_state::cancelled:
      return "CANCELLED";
    case job_state::timeout:
      return "TIMEOUT";
    case job_state::node_fail:
      return "NODE_FAIL";
    case job_state::out_of_memory:
      return "OUT_OF_MEMORY";
    case job_state::preempted:
      return "PREEMPTED";
    case job_state::suspended:
      return "SUSPENDED";
  }
  return "PENDING";
}

const char* short_code(job_state s) {
  switch (s) {
    case job_state::pending:
      return "PD";
    case job_state::configuring:
      return "CF";
    case job_state::running:
      return "R";
    case job_state::completing:
      return "CG";
    case job_state::completed:
      return "CD";
    case job_state::failed:
      return "F";
    case job_state::cancelled:
      return "CA";
    case job_state::timeout:
      return "TO";
    case job_state::node_fail:
      return "NF";
    case job_state::out_of_memory:
      return "OOM";
    case job_state::preempted:
      return "PR";
    case job_state::suspended:
      return "S";
  }
  return "PD";
}

std::optional<node_state> parse_node_state(std::string_view text) {
  for (auto s : all_node_states)
    if (equal_nocase(text, to_string(s))) return s;
  return std::nullopt;
}

std::optional<job_state> parse_job_state(std::string_view text) {
  for (auto s : all_job_states)
    if (equal_nocase(text, to_string(s)) || equal_nocase(text, short_code(s))) return s;
  return std::nullopt;
}

bool is_finished(job_state s) {
  switch (s) {
    case job_state::completed:
    case job_state::failed:
    case job_state::cancelled:
    case job_state::timeout:
    case job_state::node_fail:
    case job_state::out_of_memory:
    case job_state::preempted:
      return true;
    default:
      return false;
  }
}

}  // namespace shoal::msg
