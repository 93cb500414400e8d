// `shoal control show collectors`: one line per CollectorNodes entry.

#include <string>
#include <vector>

#include "tools/format/listing.hpp"
#include "tools/format/table.hpp"

namespace shoal::cli {

using detail::iso_time;
using detail::layout;

std::string render_collectors(const std::vector<msg::collector_info>& collectors) {
  std::vector<std::vector<std::string>> rows;
  rows.reserve(collectors.size());
  for (auto& c : collectors)
    rows.push_back({c.name, c.state, std::to_string(c.nodes), iso_time(c.last_report, "Never"),
                    c.last_report == 0 ? std::string{"-"} : std::to_string(c.round_ms)});
  return layout({"COLLECTOR", "STATE", "NODES", "LAST_REPORT", "ROUND_MS"},
                {false, false, true, false, true}, rows, false);
}

nlohmann::json to_json(const msg::collector_info& c) {
  return {{"name", c.name},         {"state", c.state},
          {"nodes", c.nodes},       {"last_report", c.last_report},
          {"round_ms", c.round_ms}, {"reports", c.reports}};
}

}  // namespace shoal::cli
