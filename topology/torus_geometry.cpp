#include "topology/torus.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string>
#include <string_view>

#include "messages/errc.hpp"
#include "messages/text.hpp"

// The shapes a request may take on the grid, and the grid's text forms: geometries such as 2x2x4,
// connection types, node use, base partition names and box hostlists.

namespace shoal::topology {

namespace {

shoal::error bad_value(std::string text) {
  return shoal::error(errc::invalid_request, std::move(text));
}

using text::lower;

constexpr const char* base36 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

}  // namespace

// -- shapes ---------------------------------------------------------------------------------------

std::vector<coord3> candidate_shapes(const coord3& dims, const torus_request& req) {
  std::vector<coord3> out;
  auto fits = [&dims](const coord3& s) {
    for (int d = 0; d < 3; ++d)
      if (s[d] < 1 || s[d] > dims[d]) return false;
    return true;
  };
  if (req.geometry) {
    const auto& g = *req.geometry;
    if (g[0] < 1 || g[1] < 1 || g[2] < 1) return out;
    std::vector<coord3> orders{g};
    if (req.rotate)
      for (const auto& o :
           {coord3{0, 2, 1}, coord3{1, 0, 2}, coord3{1, 2, 0}, coord3{2, 0, 1}, coord3{2, 1, 0}})
        orders.push_back({g[o[0]], g[o[1]], g[o[2]]});
    for (const auto& s : orders)
      if (fits(s) && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    return out;
  }
  if (req.node_count == 0) return out;
  // For each A x B the shortest C that holds the count gives the smallest volume with that
  // base; the smallest of those is the volume, then every shape of exactly that volume.
  const size_t count = req.node_count;
  size_t smallest = std::numeric_limits<size_t>::max();
  for (size_t a = 1; a <= static_cast<size_t>(dims[0]); ++a)
    for (size_t b = 1; b <= static_cast<size_t>(dims[1]); ++b) {
      const size_t c = (count + a * b - 1) / (a * b);
      if (c <= static_cast<size_t>(dims[2])) smallest = std::min(smallest, a * b * c);
    }
  if (smallest == std::numeric_limits<size_t>::max()) return out;
  for (int a = 1; a <= dims[0]; ++a)
    for (int b = 1; b <= dims[1]; ++b) {
      const auto base = static_cast<size_t>(a) * static_cast<size_t>(b);
      if (smallest % base == 0 && smallest / base <= static_cast<size_t>(dims[2]))
        out.push_back({a, b, static_cast<int>(smallest / base)});
    }
  return out;
}

bool wraps(const coord3& dims, const torus_allocation& a) {
  for (int d = 0; d < 3; ++d)
    if (a.origin[d] + a.size[d] > dims[d]) return true;
  return false;
}

// -- text -----------------------------------------------------------------------------------------

shoal::expected<coord3> parse_geometry(std::string_view text) {
  const auto fail = [text] {
    return bad_value("invalid geometry '" + std::string(text) +
                     "': expected AxBxC (or A,B,C), each a number from 1 to " +
                     std::to_string(max_torus_dim) + ", e.g. 4x4x2");
  };
  coord3 g{0, 0, 0};
  size_t pos = 0;
  for (int d = 0; d < 3; ++d) {
    if (d > 0) {
      if (pos >= text.size() || (text[pos] != 'x' && text[pos] != 'X' && text[pos] != ','))
        return fail();
      ++pos;
    }
    const size_t first = pos;
    int value = 0;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) &&
           pos - first < 3)
      value = value * 10 + (text[pos++] - '0');
    if (pos == first || value < 1 || value > max_torus_dim) return fail();
    g[d] = value;
  }
  if (pos != text.size()) return fail();
  return g;
}

std::string format_geometry(const coord3& g) {
  return std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]);
}

shoal::expected<conn_type> parse_conn_type(std::string_view text) {
  const auto t = lower(text);
  if (t == "mesh") return conn_type::mesh;
  if (t == "torus") return conn_type::torus;
  return bad_value("invalid connection type '" + std::string(text) + "': use mesh or torus");
}

shoal::expected<node_use> parse_node_use(std::string_view text) {
  const auto t = lower(text);
  if (t == "coprocessor") return node_use::coprocessor;
  if (t == "virtual") return node_use::virtual_node;
  return bad_value("invalid node use '" + std::string(text) + "': use coprocessor or virtual");
}

const char* to_string(conn_type c) {
  return c == conn_type::mesh ? "mesh" : "torus";
}

const char* to_string(node_use u) {
  return u == node_use::coprocessor ? "coprocessor" : "virtual";
}

std::string torus_node_name(const std::string& prefix, const coord3& c) {
  std::string out = prefix;
  for (int v : c) out += base36[v];
  return out;
}

std::string box_expression(const std::string& prefix, const coord3& dims,
                           const torus_allocation& a) {
  // Per dimension, the unwrapped pieces of the arc as [first, last].
  std::array<std::vector<std::pair<int, int>>, 3> pieces;
  for (int d = 0; d < 3; ++d) {
    const int o = a.origin[d], s = a.size[d], n = dims[d];
    if (s >= n) {
      pieces[d].push_back({0, n - 1});
    } else if (o + s <= n) {
      pieces[d].push_back({o, o + s - 1});
    } else {
      pieces[d].push_back({0, o + s - n - 1});  // the wrapped part starts lowest
      pieces[d].push_back({o, n - 1});
    }
  }
  std::vector<std::pair<coord3, coord3>> boxes;
  for (const auto& px : pieces[0])
    for (const auto& py : pieces[1])
      for (const auto& pz : pieces[2])
        boxes.push_back({{px.first, py.first, pz.first}, {px.second, py.second, pz.second}});
  std::sort(boxes.begin(), boxes.end());
  auto digits = [](const coord3& c) { return torus_node_name("", c); };
  if (boxes.size() == 1 && boxes[0].first == boxes[0].second)
    return torus_node_name(prefix, boxes[0].first);
  std::string out = prefix + "[";
  for (size_t i = 0; i < boxes.size(); ++i) {
    if (i > 0) out += ",";
    out += digits(boxes[i].first);
    if (boxes[i].first != boxes[i].second) out += "x" + digits(boxes[i].second);
  }
  return out + "]";
}

namespace {

/// The grid position a name gives, or nullopt when it is not prefix + 3 base-36 digits in dims.
std::optional<coord3> grid_position(const std::string& prefix, const coord3& dims,
                                    const std::string& name) {
  if (name.size() != prefix.size() + 3 || name.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  coord3 c{};
  for (int d = 0; d < 3; ++d) {
    char ch = name[prefix.size() + static_cast<size_t>(d)];
    int v = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'A' && ch <= 'Z' ? ch - 'A' + 10 : -1;
    if (v < 0 || v >= dims[d]) return std::nullopt;
    c[static_cast<size_t>(d)] = v;
  }
  return c;
}

}  // namespace

std::optional<std::string> box_hostlist(const std::string& prefix, const coord3& dims,
                                        const std::vector<std::string>& names) {
  if (names.empty()) return std::string{};
  for (int d = 0; d < 3; ++d)
    if (dims[d] < 1 || dims[d] > max_torus_dim) return std::nullopt;
  const int X = dims[0], Y = dims[1], Z = dims[2];
  auto at = [&](int x, int y, int z) { return static_cast<size_t>((x * Y + y) * Z + z); };
  std::vector<char> wanted(static_cast<size_t>(X * Y * Z), 0);
  for (auto& name : names) {
    auto c = grid_position(prefix, dims, name);
    if (!c) return std::nullopt;
    wanted[at((*c)[0], (*c)[1], (*c)[2])] = 1;
  }
  auto all_wanted = [&](int x0, int x1, int y0, int y1, int z0, int z1) {
    for (int x = x0; x <= x1; ++x)
      for (int y = y0; y <= y1; ++y)
        for (int z = z0; z <= z1; ++z)
          if (!wanted[at(x, y, z)]) return false;
    return true;
  };
  auto digits = [](const coord3& c) { return torus_node_name("", c); };
  std::vector<std::string> boxes;
  for (int x = 0; x < X; ++x)
    for (int y = 0; y < Y; ++y)
      for (int z = 0; z < Z; ++z) {
        if (!wanted[at(x, y, z)]) continue;
        int z1 = z, y1 = y, x1 = x;
        while (z1 + 1 < Z && wanted[at(x, y, z1 + 1)]) ++z1;
        while (y1 + 1 < Y && all_wanted(x, x, y1 + 1, y1 + 1, z, z1)) ++y1;
        while (x1 + 1 < X && all_wanted(x1 + 1, x1 + 1, y, y1, z, z1)) ++x1;
        for (int i = x; i <= x1; ++i)
          for (int j = y; j <= y1; ++j)
            for (int k = z; k <= z1; ++k) wanted[at(i, j, k)] = 0;
        coord3 lo{x, y, z}, hi{x1, y1, z1};
        boxes.push_back(lo == hi ? digits(lo) : digits(lo) + "x" + digits(hi));
      }
  if (boxes.size() == 1 && boxes[0].size() == 3) return prefix + boxes[0];
  std::string out = prefix + "[";
  for (size_t i = 0; i < boxes.size(); ++i) out += (i > 0 ? "," : "") + boxes[i];
  return out + "]";
}

}  // namespace shoal::topology
