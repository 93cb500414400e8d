#include "topology/torus.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <stdexcept>

#include "messages/errc.hpp"

// How place() stays exact and fast.
//
// The free nodes are kept as bit rows: one 64-bit word per (x, y) whose bit z is set when
// (x, y, z) is free (Z <= 36). A window test along z is a few shifts, a column of a prism is an
// AND of words.
//
// Let score(P) be the largest free prism once P is taken. A free prism Q misses P exactly when,
// in some dimension d, Q's arc misses P's arc, i.e. Q lies in the slab "grid minus P's arc in
// d". So score(P) = max over d of g_d(arc), g_d being the largest free prism of the map with
// P's arc in d cleared. g_d depends on one arc only: a request has at most 3 x 36 x 3 distinct
// (d, arc) pairs, each searched at most once per call and only when it could beat the best
// placement found so far. The largest free prism M of the whole map and one witness Q* bound
// everything: P missing Q* scores M at once, and what is left of Q* beside P is a free prism
// that raises the floor of the searches. Searches prune with volume bounds, so a high floor
// makes them cheap.

namespace shoal::topology {

namespace {

using word = uint64_t;

int popcount(word w) {
  return __builtin_popcountll(w);
}

/// Free nodes as bit rows: bit z of rows[x * Y + y] is set when (x, y, z) is available.
struct bit_rows {
  coord3 dims;
  word full = 0;  // the Z low bits
  std::vector<word> rows;

  word& at(int x, int y) { return rows[static_cast<size_t>(x) * dims[1] + y]; }
  word at(int x, int y) const { return rows[static_cast<size_t>(x) * dims[1] + y]; }
};

bit_rows rows_of(const coord3& dims, const std::vector<bool>& available) {
  bit_rows g;
  g.dims = dims;
  g.full = dims[2] == 64 ? ~word{0} : (word{1} << dims[2]) - 1;
  g.rows.assign(static_cast<size_t>(dims[0]) * dims[1], 0);
  size_t i = 0;
  for (int x = 0; x < dims[0]; ++x)
    for (int y = 0; y < dims[1]; ++y) {
      word w = 0;
      for (int z = 0; z < dims[2]; ++z, ++i)
        if (available[i]) w |= word{1} << z;
      g.at(x, y) = w;
    }
  return g;
}

/// Bit z of the result is bit (z + k) mod `z_size` of `w` (0 < k < z_size).
word rotate_down(word w, int k, int z_size, word full) {
  return ((w >> k) | (w << (z_size - k))) & full;
}

/// The longest run of set bits in `a` (cyclic when `wrap`), and in `start` where one begins.
int longest_run(word a, const bit_rows& g, bool wrap, int& start) {
  if (a == g.full) {
    start = 0;
    return g.dims[2];
  }
  int k = 0;
  word last = a;
  // After k rounds, bit z survives iff the k + 1 bits from z on are all set.
  while (a) {
    last = a;
    a &= wrap ? rotate_down(a, 1, g.dims[2], g.full) : (a >> 1);
    ++k;
  }
  start = __builtin_ctzll(last);
  return k;
}

size_t volume_of(const coord3& s) {
  return static_cast<size_t>(s[0]) * static_cast<size_t>(s[1]) * static_cast<size_t>(s[2]);
}

struct found_prism {
  size_t volume = 0;
  torus_allocation where;
};

struct found_rect {
  size_t area = 0;
  int y0 = 0, ylen = 0, z0 = 0, zlen = 0;
};

/// The largest all-set rectangle of the Y x Z bit matrix `acc` (rows y, wrapping in y and z
/// when `wrap`) if its area exceeds `floor_area`; otherwise area 0.
found_rect largest_rect(const std::vector<word>& acc, const bit_rows& g, bool wrap,
                        size_t floor_area) {
  const int ny = g.dims[1];
  const auto nz = static_cast<size_t>(g.dims[2]);
  size_t best = floor_area;
  found_rect out;
  for (int y1 = 0; y1 < ny; ++y1) {
    const size_t max_len = wrap ? ny : ny - y1;
    if (max_len * nz <= best) break;  // max_len only shrinks with y1
    word a = acc[y1];
    for (size_t len = 1; a && len <= max_len; ++len) {
      if (len > 1) {
        a &= acc[(y1 + len - 1) % ny];
        if (!a) break;
      }
      if (len == static_cast<size_t>(ny) && y1 != 0) break;  // the full ring, seen from y1 = 0
      const auto bits = static_cast<size_t>(popcount(a));
      if (max_len * bits <= best) break;
      if (len * bits <= best) continue;
      int start = 0;
      const auto run = static_cast<size_t>(longest_run(a, g, wrap, start));
      if (len * run > best) {
        best = len * run;
        out = {best, y1, static_cast<int>(len), start, static_cast<int>(run)};
      }
      if (max_len * run <= best) break;  // later rows only shorten the run
    }
  }
  return out;
}

/// The largest free prism of `g` (wrapping when `wrap`) if its volume is at least `floor`;
/// otherwise a result of volume below `floor`.
found_prism largest_prism(const bit_rows& g, bool wrap, size_t floor) {
  const int nx = g.dims[0], ny = g.dims[1];
  std::vector<size_t> layer_bits(nx, 0);
  for (int x = 0; x < nx; ++x)
    for (int y = 0; y < ny; ++y) layer_bits[x] += popcount(g.at(x, y));
  // reach[x]: how many layers from x on (cyclically when wrapping) hold a free node, <= X.
  std::vector<int> reach(nx, 0);
  const bool all_layers =
      std::all_of(layer_bits.begin(), layer_bits.end(), [](size_t b) { return b > 0; });
  if (wrap && all_layers) {
    std::fill(reach.begin(), reach.end(), nx);
  } else {
    // Walk backwards from an empty layer (or the end of a non-wrapping line) twice round.
    int run = 0;
    const int rounds = wrap ? 2 * nx : nx;
    for (int k = rounds - 1; k >= 0; --k) {
      const int x = k % nx;
      run = layer_bits[x] ? run + 1 : 0;
      if (k < nx) reach[x] = std::min(run, wrap ? nx : nx - x);
    }
  }

  size_t best = floor > 0 ? floor - 1 : 0;  // a result must beat this
  found_prism out;
  std::vector<word> acc(ny);
  for (int x1 = 0; x1 < nx; ++x1) {
    const auto max_len = static_cast<size_t>(reach[x1]);
    if (max_len == 0 || max_len * layer_bits[x1] <= best) continue;
    for (int y = 0; y < ny; ++y) acc[y] = g.at(x1, y);
    size_t bits = layer_bits[x1];
    for (size_t len = 1; len <= max_len; ++len) {
      if (len > 1) {
        const int x = static_cast<int>((x1 + len - 1) % nx);
        bits = 0;
        for (int y = 0; y < ny; ++y) bits += popcount(acc[y] &= g.at(x, y));
      }
      if (len == static_cast<size_t>(nx) && x1 != 0) break;  // the full ring, seen from x1 = 0
      if (max_len * bits <= best) break;
      if (len * bits <= best) continue;
      const auto rect = largest_rect(acc, g, wrap, best / len);
      // Longer arcs only shrink the rectangle: bound them by this one (or by the floor).
      const size_t area_bound = rect.area ? rect.area : best / len;
      if (len * rect.area > best) {
        best = len * rect.area;
        out.volume = best;
        out.where = {{x1, rect.y0, rect.z0}, {static_cast<int>(len), rect.ylen, rect.zlen}};
      }
      if (max_len * area_bound <= best) break;
    }
  }
  return out;
}

/// Bit z of the result is set when the prism of `shape` with origin (x, y, z) is valid: inside
/// the grid (or wrapping, when `wrap`), every node free, origin 0 in a dimension it spans.
std::vector<word> valid_origins(const bit_rows& g, const coord3& shape, bool wrap) {
  const int nx = g.dims[0], ny = g.dims[1], nz = g.dims[2];
  const int a = shape[0], b = shape[1], c = shape[2];
  auto origin_ok = [wrap](int o, int s, int n) { return s == n ? o == 0 : wrap || o + s <= n; };
  word z_ok = 0;
  for (int z = 0; z < nz; ++z)
    if (origin_ok(z, c, nz)) z_ok |= word{1} << z;

  std::vector<word> zwin(g.rows.size());
  for (size_t i = 0; i < g.rows.size(); ++i) {
    word w = g.rows[i] & g.full;
    const word row = w;
    for (int k = 1; k < c && w; ++k) w &= wrap ? rotate_down(row, k, nz, g.full) : (row >> k);
    zwin[i] = w & z_ok;
  }
  std::vector<word> ywin(g.rows.size(), 0);
  for (int x = 0; x < nx; ++x)
    for (int y = 0; y < ny; ++y) {
      if (!origin_ok(y, b, ny)) continue;
      word w = zwin[static_cast<size_t>(x) * ny + y];
      for (int k = 1; k < b && w; ++k) w &= zwin[static_cast<size_t>(x) * ny + (y + k) % ny];
      ywin[static_cast<size_t>(x) * ny + y] = w;
    }
  std::vector<word> out(g.rows.size(), 0);
  for (int x = 0; x < nx; ++x) {
    if (!origin_ok(x, a, nx)) continue;
    for (int y = 0; y < ny; ++y) {
      word w = ywin[static_cast<size_t>(x) * ny + y];
      for (int k = 1; k < a && w; ++k) w &= ywin[static_cast<size_t>((x + k) % nx) * ny + y];
      out[static_cast<size_t>(x) * ny + y] = w;
    }
  }
  return out;
}

/// `g` with the arc [start, start + len) of dimension `d` cleared (cyclically).
void clear_arc(bit_rows& g, int d, int start, int len) {
  const int n = g.dims[d];
  for (int k = 0; k < len; ++k) {
    const int p = (start + k) % n;
    if (d == 0) {
      for (int y = 0; y < g.dims[1]; ++y) g.at(p, y) = 0;
    } else if (d == 1) {
      for (int x = 0; x < g.dims[0]; ++x) g.at(x, p) = 0;
    } else {
      for (auto& w : g.rows) w &= ~(word{1} << p);
    }
  }
}

/// The largest part of prism `q` that misses prism `p`: `q` cut back, in one dimension, to its
/// longest stretch outside p's arc. A free prism when `q` is.
size_t remnant(const torus_allocation& q, const torus_allocation& p, const coord3& dims) {
  size_t best = 0;
  const size_t vol = volume_of(q.size);
  for (int d = 0; d < 3; ++d) {
    const int n = dims[d];
    int run = 0, longest = 0;
    for (int k = 0; k < q.size[d]; ++k) {
      const int pos = (q.origin[d] + k) % n;
      const bool inside = ((pos - p.origin[d]) % n + n) % n < p.size[d];
      run = inside ? 0 : run + 1;
      longest = std::max(longest, run);
    }
    best = std::max(best, vol / q.size[d] * longest);
  }
  return best;
}

/// What is known of g_d(arc): nothing yet, its exact value, or an upper bound.
struct slab_value {
  enum state_t : uint8_t { unknown, exact, at_most } state = unknown;
  size_t value = 0;
};

/// Scores placements: g_d(arc) per (dimension, arc), searched lazily and remembered.
class slab_scores {
 public:
  slab_scores(const bit_rows& g, bool wrap) : g_(g), wrap_(wrap) {
    for (int d = 0; d < 3; ++d) memo_[d].resize(static_cast<size_t>(g.dims[d]) * (g.dims[d] + 1));
  }

  /// An upper bound of g_d for `p`'s arc in d, without searching.
  size_t bound(const torus_allocation& p, int d, size_t fallback) const {
    const auto& v = entry(p, d);
    return v.state == slab_value::unknown ? fallback : v.value;
  }

  /// g_d for `p`'s arc in d if it is at least `floor`; otherwise 0 or, when known, g_d itself
  /// (never more than g_d).
  size_t value(const torus_allocation& p, int d, size_t floor) {
    auto& v = entry(p, d);
    if (v.state == slab_value::exact) return v.value;
    if (v.state == slab_value::at_most && v.value < floor) return 0;
    if (p.size[d] == g_.dims[d]) {
      v = {slab_value::exact, 0};
      return 0;
    }
    scratch_ = g_;
    clear_arc(scratch_, d, p.origin[d], p.size[d]);
    const auto found = largest_prism(scratch_, wrap_, floor).volume;
    if (found >= floor && found > 0) {
      v = {slab_value::exact, found};
    } else if (floor == 0) {
      v = {slab_value::exact, 0};
    } else {
      v = {slab_value::at_most, floor - 1};
    }
    return v.state == slab_value::exact ? v.value : 0;
  }

 private:
  slab_value& entry(const torus_allocation& p, int d) {
    return memo_[d][static_cast<size_t>(p.origin[d]) * (g_.dims[d] + 1) + p.size[d]];
  }
  const slab_value& entry(const torus_allocation& p, int d) const {
    return memo_[d][static_cast<size_t>(p.origin[d]) * (g_.dims[d] + 1) + p.size[d]];
  }

  const bit_rows& g_;
  bool wrap_;
  std::array<std::vector<slab_value>, 3> memo_;
  bit_rows scratch_;
};

caf::error bad_value(std::string text) {
  return make_error(errc::invalid_request, std::move(text));
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

constexpr const char* base36 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

}  // namespace

bool operator==(const torus_allocation& a, const torus_allocation& b) {
  return a.origin == b.origin && a.size == b.size;
}

bool operator!=(const torus_allocation& a, const torus_allocation& b) {
  return !(a == b);
}

// -- torus_map ------------------------------------------------------------------------------------

torus_map::torus_map(coord3 dims) : dims_(dims) {
  for (int d : dims)
    if (d < 1 || d > max_torus_dim)
      throw std::invalid_argument("torus_map: every dimension must be 1.." +
                                  std::to_string(max_torus_dim));
  available_.assign(static_cast<size_t>(dims[0]) * dims[1] * dims[2], true);
}

size_t torus_map::index_of(const coord3& c) const {
  return (static_cast<size_t>(c[0]) * dims_[1] + c[1]) * dims_[2] + c[2];
}

coord3 torus_map::coord_of(size_t index) const {
  const auto z = static_cast<int>(index % dims_[2]);
  index /= dims_[2];
  const auto y = static_cast<int>(index % dims_[1]);
  return {static_cast<int>(index / dims_[1]), y, z};
}

size_t torus_map::available_count() const {
  return static_cast<size_t>(std::count(available_.begin(), available_.end(), true));
}

void torus_map::set_available(size_t index, bool available) {
  available_[index] = available;
}

void torus_map::set_available(const torus_allocation& a, bool available) {
  for (auto i : nodes_of(a)) available_[i] = available;
}

bool torus_map::fits(const torus_allocation& a, conn_type conn) const {
  if (conn == conn_type::mesh && wraps(dims_, a)) return false;
  for (auto i : nodes_of(a))
    if (!available_[i]) return false;
  return true;
}

std::vector<size_t> torus_map::nodes_of(const torus_allocation& a) const {
  std::vector<size_t> out;
  out.reserve(volume_of(a.size));
  for (int i = 0; i < a.size[0]; ++i)
    for (int j = 0; j < a.size[1]; ++j)
      for (int k = 0; k < a.size[2]; ++k)
        out.push_back(index_of({(a.origin[0] + i) % dims_[0], (a.origin[1] + j) % dims_[1],
                                (a.origin[2] + k) % dims_[2]}));
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<torus_allocation> torus_map::largest_free_prism(conn_type conn) const {
  const auto found = largest_prism(rows_of(dims_, available_), conn == conn_type::torus, 0);
  if (found.volume == 0) return std::nullopt;
  return found.where;
}

std::optional<torus_allocation> torus_map::place(const torus_request& req) const {
  const auto shapes = candidate_shapes(dims_, req);
  if (shapes.empty()) return std::nullopt;
  const bool wrap = req.conn == conn_type::torus;
  const auto g = rows_of(dims_, available_);

  std::vector<std::vector<word>> valid;
  valid.reserve(shapes.size());
  bool any = false;
  for (const auto& s : shapes) {
    valid.push_back(valid_origins(g, s, wrap));
    any = any || std::any_of(valid.back().begin(), valid.back().end(), [](word w) { return w; });
  }
  if (!any) return std::nullopt;

  const auto top = largest_prism(g, wrap, 0);  // top.volume >= 1: a valid placement is free
  slab_scores slabs(g, wrap);
  std::optional<torus_allocation> winner;
  size_t best = 0;
  // Placements in tie order; a later one must score strictly more than `best` to win.
  for (int x = 0; x < dims_[0]; ++x)
    for (int y = 0; y < dims_[1]; ++y) {
      word origins = 0;
      for (const auto& v : valid) origins |= v[static_cast<size_t>(x) * dims_[1] + y];
      while (origins) {
        const int z = __builtin_ctzll(origins);
        origins &= origins - 1;
        for (size_t k = 0; k < shapes.size(); ++k) {
          if (!(valid[k][static_cast<size_t>(x) * dims_[1] + y] >> z & 1)) continue;
          const torus_allocation p{{x, y, z}, shapes[k]};
          const size_t floor = winner ? best + 1 : 0;
          if (winner && slabs.bound(p, 0, top.volume) < floor &&
              slabs.bound(p, 1, top.volume) < floor && slabs.bound(p, 2, top.volume) < floor)
            continue;
          const size_t left_of_top = remnant(top.where, p, dims_);
          size_t score = left_of_top;
          if (left_of_top < top.volume) {
            const size_t search_floor = std::max(floor, left_of_top);
            for (int d = 0; d < 3; ++d)
              score = std::max(score, slabs.value(p, d, std::max(search_floor, score + 1)));
          }
          if (!winner || score > best) {
            winner = p;
            best = score;
            if (best == top.volume) return winner;  // nothing can leave more than is free now
          }
        }
      }
    }
  return winner;
}

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

caf::expected<coord3> parse_geometry(std::string_view text) {
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

caf::expected<conn_type> parse_conn_type(std::string_view text) {
  const auto t = lower(text);
  if (t == "mesh") return conn_type::mesh;
  if (t == "torus") return conn_type::torus;
  return bad_value("invalid connection type '" + std::string(text) + "': use mesh or torus");
}

caf::expected<node_use> parse_node_use(std::string_view text) {
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

}  // namespace shoal::topology
