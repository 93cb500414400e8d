#include <algorithm>
#include <string>

#include "config/config_parser.hpp"
#include "policy/gres.hpp"
#include "topology/hostlist.hpp"

namespace shoal::config::parsing {

namespace {

std::string gres_item_text(const node_gres& g) {
  return policy::gres_text({{g.name, g.type, g.count}});
}

/// Node `node` (index `index`) with its Gres= items named `name`, checked against the gres.conf
/// `lines` that give it such devices, appended to `refined` with their types and files.
shoal::error refine_gres(const node_config& node, size_t index, const std::string& name,
                         const std::vector<gres_device_line>& lines,
                         std::vector<node_gres>& refined) {
  std::vector<const gres_device_line*> mine;
  for (const auto& d : lines)
    if (d.name == name &&
        (d.every_node || std::find(d.nodes.begin(), d.nodes.end(), index) != d.nodes.end()))
      mine.push_back(&d);
  std::vector<node_gres> configured;
  uint64_t total = 0;
  for (const auto& g : node.gres)
    if (g.name == name) {
      configured.push_back(g);
      total += g.count;
    }
  if (mine.empty()) {
    refined.insert(refined.end(), configured.begin(), configured.end());
    return {};
  }
  uint64_t listed = 0;
  bool typed = false;
  bool all_files = true;
  for (const auto* d : mine) {
    listed += d->count;
    typed = typed || !d->type.empty();
    all_files = all_files && !d->files.empty();
  }
  std::string gres_written;
  for (const auto& g : configured)
    gres_written += (gres_written.empty() ? "" : ",") + gres_item_text(g);
  auto mismatch = [&](uint64_t found, const std::string& what) {
    return fail(mine.back()->at, "node " + node.name + " has " + std::to_string(found) + " " +
                                     what + " device(s) in gres.conf but Gres=" + gres_written +
                                     " at " + node.file + ":" + std::to_string(node.line));
  };
  if (listed != total) return mismatch(listed, name);
  if (!typed) {
    // The devices in order, split over the Gres= items (types as Gres= gives them).
    std::vector<std::string> files;
    if (all_files)
      for (const auto* d : mine) files.insert(files.end(), d->files.begin(), d->files.end());
    size_t next = 0;
    for (auto g : configured) {
      if (all_files) {
        g.files.assign(files.begin() + static_cast<std::ptrdiff_t>(next),
                       files.begin() + static_cast<std::ptrdiff_t>(next + g.count));
        next += g.count;
      }
      refined.push_back(std::move(g));
    }
    return {};
  }
  for (const auto& g : configured) {
    if (g.type.empty()) continue;
    uint64_t of_type = 0;
    for (const auto* d : mine)
      if (d->type == g.type) of_type += d->count;
    if (of_type != g.count) return mismatch(of_type, name + ":" + g.type);
  }
  for (const auto* d : mine) refined.push_back({d->name, d->type, d->count, d->files});
  return {};
}

}  // namespace

shoal::error parser::resolve_gres() {
  const auto& types = cfg_.gres_types;
  for (const auto& n : cfg_.nodes)
    for (const auto& g : n.gres)
      if (std::find(types.begin(), types.end(), g.name) == types.end())
        return fail(where{n.file, n.line}, "Invalid GRES configured on node " + n.name + ": " +
                                               gres_item_text(g) + " (GresTypes= does not list " +
                                               g.name + ")");
  fs::path path;
  if (gres_conf_.set) {
    fs::path given{cfg_.gres_conf};
    path = given.is_absolute() ? given : fs::path{base_dir_} / given;
    if (!path_exists(path))
      return fail(gres_conf_.at, gres_conf_.key + " " + cfg_.gres_conf + " not found (looked for " +
                                     path.string() + ")");
  } else if (!base_dir_.empty() && path_exists(fs::path{base_dir_} / "gres.conf")) {
    path = fs::path{base_dir_} / "gres.conf";
  } else {
    cfg_.gres_conf.clear();
    return {};
  }
  cfg_.gres_conf = path.string();
  return read_gres_conf(cfg_.gres_conf, gres_conf_.at);
}

shoal::error parser::read_gres_conf(const std::string& path, const where& named_at) {
  std::string text;
  std::string error;
  if (!read_file(path, text, error)) {
    auto what = "gres.conf " + path + ": cannot read: " + error;
    return named_at.line > 0 ? fail(named_at, what) : shoal::error(errc::invalid_config, what);
  }
  std::vector<gres_device_line> lines;
  size_t pos = 0;
  int number = 0;
  while (pos <= text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    ++number;
    where at{path, number};
    auto res = cs::split_line(std::string_view{text}.substr(pos, end - pos));
    pos = end + 1;
    if (!res.error.empty()) return fail(at, res.error);
    if (auto err = read_device_line(res.pairs, at, lines)) return err;
  }
  for (size_t i = 0; i < cfg_.nodes.size(); ++i)
    if (auto err = assign_devices(i, lines)) return err;
  return {};
}

shoal::error parser::read_device_line(const std::vector<cs::pair>& pairs, const where& at,
                                      std::vector<gres_device_line>& lines) {
  if (pairs.empty()) return {};
  const auto& types = cfg_.gres_types;
  gres_device_line d;
  d.at = at;
  std::string files_expr;
  bool has_count = false;
  uint64_t count = 0;
  for (const auto& p : pairs) {
    const auto& k = p.lower;
    if (k == "name") {
      d.name = p.value;
    } else if (k == "type") {
      d.type = p.value;
    } else if (k == "file" || k == "files") {
      files_expr = p.value;
    } else if (k == "count") {
      auto parsed = policy::parse_gres("x:" + p.value);
      if (!parsed || parsed->size() != 1 || !parsed->front().type.empty())
        return bad_value(at, p, "Count", "a number such as 4, optionally with a K/M/G suffix");
      count = parsed->front().count;
      has_count = true;
    } else if (k == "nodename") {
      auto names = topology::expand_hostlist(p.value);
      if (!names) return bad_value(at, p, "NodeName", "a hostlist: " + describe(names.error()));
      d.every_node = false;
      for (const auto& name : *names) {
        auto it = node_index_.find(name);
        if (it == node_index_.end())
          warn(at, "NodeName names '" + name + "', which is not a node of this cluster (ignored)");
        else
          d.nodes.push_back(it->second);
      }
    } else if (k == "autodetect") {
      warn(at,
           "AutoDetect=" + p.value + " is not supported: list each device with File= (ignored)");
    } else if (k == "cores" || k == "cpus" || k == "links" || k == "flags") {
      warn(at, "key '" + p.key + "' has no effect (shoal does not tie devices to CPUs)");
    } else {
      return unknown_key(at, p, key_set::gres);
    }
  }
  if (d.name.empty()) {
    if (!files_expr.empty() || has_count || !d.type.empty())
      return fail(at, "a gres.conf line with File=, Count= or Type= needs Name=");
    return {};  // AutoDetect= or NodeName= alone
  }
  if (std::find(types.begin(), types.end(), d.name) == types.end())
    return fail(at, "Invalid GRES record for " + d.name + ": GresTypes= does not list it");
  if (!files_expr.empty()) {
    auto files = topology::expand_hostlist(files_expr);
    if (!files || files->empty())
      return fail(at, "invalid value '" + files_expr +
                          "' for File (expected device paths such as " + "/dev/nvidia[0-3])");
    d.files = std::move(*files);
    if (has_count && count != d.files.size())
      return fail(at, "Invalid GRES record for " + d.name + ", count does not match File value (" +
                          "Count=" + std::to_string(count) + ", " + std::to_string(d.files.size()) +
                          " files)");
    d.count = d.files.size();
  } else if (has_count) {
    d.count = count;
  }
  lines.push_back(std::move(d));
  return {};
}

shoal::error parser::assign_devices(size_t index, const std::vector<gres_device_line>& lines) {
  auto& node = cfg_.nodes[index];
  std::vector<std::string> names;
  for (const auto& g : node.gres)
    if (std::find(names.begin(), names.end(), g.name) == names.end()) names.push_back(g.name);
  for (const auto& d : lines) {
    bool listed = std::find(d.nodes.begin(), d.nodes.end(), index) != d.nodes.end();
    if (listed && std::find(names.begin(), names.end(), d.name) == names.end())
      return fail(d.at, "node " + node.name + " gets " + d.name + " devices here, but its " +
                            "NodeName line (" + node.file + ":" + std::to_string(node.line) +
                            ") has no Gres=" + d.name);
  }
  std::vector<node_gres> refined;
  for (const auto& name : names)
    if (auto err = refine_gres(node, index, name, lines, refined)) return err;
  node.gres = std::move(refined);
  return {};
}

}  // namespace shoal::config::parsing
