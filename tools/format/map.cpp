#include "tools/format/map.hpp"

#include <algorithm>
#include <map>

namespace shoal::cli {

namespace {

constexpr size_t screen_width = 80;
constexpr size_t line_nodes = 50;

/// Letters by job id, in the order of the view's allocations.
std::map<uint64_t, char> letters_of(const msg::topology_view& view) {
  std::map<uint64_t, char> out;
  for (size_t i = 0; i < view.allocations.size(); ++i)
    out[view.allocations[i].job_id] = map_letter(i);
  return out;
}

char cell(const msg::map_node& n, const std::map<uint64_t, char>& letters) {
  if (n.job_id != 0) {
    auto it = letters.find(n.job_id);
    if (it != letters.end()) return it->second;
  }
  switch (n.state) {
    case msg::node_state::down:
    case msg::node_state::drained:
    case msg::node_state::draining:
      return '#';
    case msg::node_state::unknown:
      return '?';
    default:
      return '.';
  }
}

std::string torus_picture(const msg::topology_view& view, const std::map<uint64_t, char>& letters) {
  auto X = view.dims[0], Y = view.dims[1], Z = view.dims[2];
  // grid[x][y][z], filled from the nodes' coordinates (robust to any order).
  std::vector<char> grid(static_cast<size_t>(X) * Y * Z, '?');
  for (auto& n : view.nodes) {
    if (n.coord.size() != 3 || n.coord[0] >= X || n.coord[1] >= Y || n.coord[2] >= Z) continue;
    grid[(static_cast<size_t>(n.coord[0]) * Y + n.coord[1]) * Z + n.coord[2]] = cell(n, letters);
  }
  auto block_width = std::max<size_t>(Z, 2 + std::to_string(X - 1).size()) + 2;
  auto per_band = std::max<size_t>(1, screen_width / block_width);
  std::string out;
  for (size_t first = 0; first < X; first += per_band) {
    auto last = std::min<size_t>(X, first + per_band);
    std::string header;
    for (auto x = first; x < last; ++x) {
      auto label = "x=" + std::to_string(x);
      header += label + std::string(block_width - label.size(), ' ');
    }
    while (!header.empty() && header.back() == ' ') header.pop_back();
    out += header + "\n";
    for (uint32_t y = 0; y < Y; ++y) {
      std::string row;
      for (auto x = first; x < last; ++x) {
        for (uint32_t z = 0; z < Z; ++z) row += grid[(x * Y + y) * Z + z];
        row += std::string(block_width - Z, ' ');
      }
      while (!row.empty() && row.back() == ' ') row.pop_back();
      out += row + "\n";
    }
    out += "\n";
  }
  return out;
}

std::string line_picture(const msg::topology_view& view, const std::map<uint64_t, char>& letters) {
  size_t width = 0;
  for (size_t i = 0; i < view.nodes.size(); i += line_nodes)
    width = std::max(width, view.nodes[i].name.size());
  std::string out;
  for (size_t i = 0; i < view.nodes.size(); i += line_nodes) {
    const auto& name = view.nodes[i].name;
    out += name + std::string(width - name.size(), ' ') + " ";
    for (size_t k = i; k < std::min(view.nodes.size(), i + line_nodes); ++k)
      out += cell(view.nodes[k], letters);
    out += "\n";
  }
  return out + "\n";
}

const msg::job_info* find_job(const std::vector<msg::job_info>& jobs, uint64_t id) {
  for (auto& j : jobs)
    if (j.job_id == id) return &j;
  return nullptr;
}

}  // namespace

char map_letter(size_t i) {
  static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return letters[i % (sizeof letters - 1)];
}

std::string render_map(const msg::topology_view& view, const std::vector<msg::job_info>& jobs) {
  auto letters = letters_of(view);
  std::string out =
      view.dims.size() == 3 ? torus_picture(view, letters) : line_picture(view, letters);
  // On a torus each job also shows the shape it asked for, as Blue Gene/L's smap did: the
  // connection (mesh or torus) and --node-use (coprocessor or virtual).
  bool torus = view.dims.size() == 3;
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"ID", "JOBID", "PARTITION", "USER", "NAME", "ST", "NODES"});
  if (torus) rows.back().insert(rows.back().end(), {"CONN", "NODE_USE"});
  rows.back().push_back("NODELIST");
  auto or_dash = [](const std::string& s) { return s.empty() ? std::string{"-"} : s; };
  for (size_t i = 0; i < view.allocations.size(); ++i) {
    const auto& a = view.allocations[i];
    const auto* j = find_job(jobs, a.job_id);
    rows.push_back({std::string(1, map_letter(i)), std::to_string(a.job_id), j ? j->partition : "?",
                    j ? j->user : "?", j ? j->name : "?", j ? msg::short_code(j->state) : "?",
                    std::to_string(a.node_count)});
    if (torus) rows.back().insert(rows.back().end(), {or_dash(a.conn_type), or_dash(a.node_use)});
    rows.back().push_back(a.nodelist);
  }
  std::vector<size_t> widths(rows.front().size(), 0);
  for (auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) widths[c] = std::max(widths[c], r[c].size());
  for (auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      bool right = c == 1 || c == 6;  // JOBID, NODES
      auto pad = std::string(widths[c] - r[c].size(), ' ');
      line += (c == 0 ? "" : " ") + (right ? pad + r[c] : r[c] + pad);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

nlohmann::json map_json(const msg::topology_view& view, const std::vector<msg::job_info>& jobs) {
  auto letters = letters_of(view);
  nlohmann::json doc;
  doc["select_type"] = view.select_type;
  doc["dims"] = view.dims;
  auto nodes = nlohmann::json::array();
  for (auto& n : view.nodes)
    nodes.push_back({{"name", n.name},
                     {"state", msg::to_string(n.state)},
                     {"job_id", n.job_id},
                     {"letter", std::string(1, cell(n, letters))},
                     {"coord", n.coord}});
  doc["nodes"] = std::move(nodes);
  auto list = nlohmann::json::array();
  for (size_t i = 0; i < view.allocations.size(); ++i) {
    const auto& a = view.allocations[i];
    const auto* j = find_job(jobs, a.job_id);
    nlohmann::json entry{{"job_id", a.job_id},         {"letter", std::string(1, map_letter(i))},
                         {"user", j ? j->user : ""},   {"partition", j ? j->partition : ""},
                         {"name", j ? j->name : ""},   {"state", j ? msg::to_string(j->state) : ""},
                         {"node_count", a.node_count}, {"nodelist", a.nodelist}};
    if (view.dims.size() == 3) {
      entry["origin"] = a.origin;
      entry["size"] = a.size;
      entry["conn_type"] = a.conn_type;
      entry["node_use"] = a.node_use;
    }
    list.push_back(std::move(entry));
  }
  doc["jobs"] = std::move(list);
  return doc;
}

}  // namespace shoal::cli
