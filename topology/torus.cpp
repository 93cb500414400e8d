#include "topology/torus.hpp"

#include <algorithm>
#include <limits>
#include <map>
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
// P's arc in d cleared. g_d depends on one arc only: there are at most 3 dimensions x 36
// origins x the distinct side lengths of the candidate shapes (3 for a geometry) such arcs,
// each searched at most once per call and only when it could beat the best placement found so
// far. The largest free prism M of the whole map and one witness Q* bound everything: P
// missing Q* scores M at once (and ends the call), the free nodes outside an arc bound its slab
// without a search, and what is left of Q* beside P is a free prism that raises the floor of
// the searches. Searches prune with volume bounds, so a high floor makes them cheap.

namespace shoal::topology {

namespace {

using word = uint64_t;

/// Without -mpopcnt, __builtin_popcountll is a library call; this is inlined.
int popcount(word w) {
  w = w - ((w >> 1) & 0x5555555555555555ULL);
  w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
  w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return static_cast<int>((w * 0x0101010101010101ULL) >> 56);
}

/// Free nodes as bit rows (a view of torus_map's): bit z of rows[x * Y + y] is set when
/// (x, y, z) is available; free_at[d][p] counts the available nodes with coordinate p in d.
struct bit_rows {
  coord3 dims;
  word full;  // the Z low bits
  const std::vector<word>& rows;
  const std::array<std::vector<uint32_t>, 3>& free_at;
  size_t free_total;

  word at(int x, int y) const { return rows[static_cast<size_t>(x) * dims[1] + y]; }
};

word low_bits(int n) {
  return (word{1} << n) - 1;
}

/// Bit z of the result is bit (z + k) mod `z_size` of `w` (0 < k < z_size).
word rotate_down(word w, int k, int z_size, word full) {
  return ((w >> k) | (w << (z_size - k))) & full;
}

/// `g` with one arc of one dimension cleared (none when `dim` < 0): the free map once a
/// placement's arc in that dimension is taken away. Read through, never copied.
struct holed_rows {
  const bit_rows& g;
  word x_hole = 0, y_hole = 0, z_keep = 0;  // bit p of a hole: position p is cleared

  holed_rows(const bit_rows& rows, int dim, int start, int len) : g(rows), z_keep(rows.full) {
    word arc = 0;
    for (int k = 0; dim >= 0 && k < len; ++k) arc |= word{1} << ((start + k) % rows.dims[dim]);
    if (dim == 0) x_hole = arc;
    if (dim == 1) y_hole = arc;
    if (dim == 2) z_keep &= ~arc;
  }
  explicit holed_rows(const bit_rows& rows) : holed_rows(rows, -1, 0, 0) {}

  const coord3& dims() const { return g.dims; }
  word at(int x, int y) const {
    if ((x_hole >> x | y_hole >> y) & 1) return 0;
    return g.at(x, y) & z_keep;
  }
};

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
  word rows = 0;  // bit y: row y holds a free node
  for (int y = 0; y < ny; ++y)
    if (acc[y]) rows |= word{1} << y;
  const word all_rows = low_bits(ny);
  size_t best = floor_area;
  found_rect out;
  for (word starts = rows; starts;) {
    const int y1 = __builtin_ctzll(starts);
    starts &= starts - 1;
    // A rectangle from y1 spans only rows that hold a free node: a run of `rows`.
    const word ahead = wrap ? ((rows >> y1) | (rows << (ny - y1))) & all_rows : rows >> y1;
    const size_t max_len = ahead == all_rows ? ny : __builtin_ctzll(~ahead);
    if (max_len * nz <= best) continue;
    word a = acc[y1];
    for (size_t len = 1; len <= max_len; ++len) {
      if (len > 1) a &= acc[(y1 + len - 1) % ny];
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

/// Each layer x of `g` (a plane of constant x) and its largest free rectangle.
struct layer_survey {
  std::vector<size_t> area;  // bounds any prism through the layer, also once a hole is cut
  found_prism seed;          // a free prism: one layer's rectangle stretched along x
};

/// Whether the rectangle `r` is free in layer x.
bool rect_free(const bit_rows& g, int x, const found_rect& r) {
  word mask = 0;
  for (int k = 0; k < r.zlen; ++k) mask |= word{1} << ((r.z0 + k) % g.dims[2]);
  for (int k = 0; k < r.ylen; ++k)
    if ((g.at(x, (r.y0 + k) % g.dims[1]) & mask) != mask) return false;
  return true;
}

/// The largest rectangle of every layer, and as a lower bound to start the search from, the
/// largest prism made by stretching one of them along x while it stays free.
layer_survey survey_layers(const bit_rows& g, bool wrap) {
  const int nx = g.dims[0];
  layer_survey out;
  out.area.resize(nx);
  std::vector<word> layer(g.dims[1]);
  for (int x = 0; x < nx; ++x) {
    for (int y = 0; y < g.dims[1]; ++y) layer[y] = g.at(x, y);
    const auto r = largest_rect(layer, g, wrap, 0);
    out.area[x] = r.area;
    if (r.area == 0 || r.area * nx <= out.seed.volume) continue;
    int first = x, len = 1;
    while (len < nx && (wrap || first + len < nx) && rect_free(g, (first + len) % nx, r)) ++len;
    while (len < nx && (wrap || first > 0) && rect_free(g, (first + nx - 1) % nx, r)) {
      first = (first + nx - 1) % nx;
      ++len;
    }
    if (len == nx) first = 0;
    if (r.area * len > out.seed.volume)
      out.seed = {r.area * len, {{first, r.y0, r.z0}, {len, r.ylen, r.zlen}}};
  }
  return out;
}

/// The largest free prism of `g` (wrapping when `wrap`) if its volume is at least `floor`;
/// otherwise a result of volume below `floor`. `layer_area[x]` bounds the area of a free
/// rectangle in layer x (survey_layers of the map before any hole); `seed`, when not empty, is
/// a free prism of `g` to start from.
found_prism largest_prism(const holed_rows& g, bool wrap, size_t floor,
                          const std::vector<size_t>& layer_area, const found_prism& seed = {}) {
  const int nx = g.dims()[0], ny = g.dims()[1];
  // cap[x]: the most area a prism can have through layer x.
  std::vector<size_t> cap(nx, 0);
  for (int x = 0; x < nx; ++x) {
    if (g.x_hole >> x & 1) continue;
    size_t bits = 0;
    for (int y = 0; y < ny && bits < layer_area[x]; ++y) bits += popcount(g.at(x, y));
    cap[x] = std::min(bits, layer_area[x]);
  }

  size_t best = floor > 0 ? floor - 1 : 0;  // a result must beat this
  found_prism out;
  if (seed.volume > best) {
    out = seed;
    best = seed.volume;
  }
  std::vector<word> acc(ny);
  std::vector<size_t> reachable(nx + 1);  // [len]: the most volume of an arc of len or more
  for (int x1 = 0; x1 < nx; ++x1) {
    // Arcs from x1: lengths up to the grid (wrapping) or its end; the full ring only from 0.
    size_t max_len = wrap ? (x1 == 0 ? nx : nx - 1) : nx - x1;
    size_t area = std::numeric_limits<size_t>::max();
    for (size_t len = 1; len <= max_len; ++len) {
      area = std::min(area, cap[(x1 + len - 1) % nx]);
      if (area == 0) max_len = len - 1;
      reachable[len] = len * area;
    }
    for (size_t len = max_len; len > 1; --len)
      reachable[len - 1] = std::max(reachable[len - 1], reachable[len]);
    if (max_len == 0 || reachable[1] <= best) continue;

    for (int y = 0; y < ny; ++y) acc[y] = g.at(x1, y);
    size_t area_bound = cap[x1];  // of the rectangle common to the layers so far
    for (size_t len = 1; len <= max_len; ++len) {
      if (len > 1) {
        const int x = static_cast<int>((x1 + len - 1) % nx);
        size_t bits = 0;
        for (int y = 0; y < ny; ++y) bits += popcount(acc[y] &= g.at(x, y));
        area_bound = std::min({area_bound, bits, cap[x]});
      }
      if (reachable[len] <= best || max_len * area_bound <= best) break;
      if (len * area_bound <= best) continue;
      const auto rect = largest_rect(acc, g.g, wrap, best / len);
      // Longer arcs only shrink the rectangle: bound them by this one (or by the floor).
      area_bound = std::min(area_bound, rect.area ? rect.area : best / len);
      if (len * rect.area > best) {
        best = len * rect.area;
        out.volume = best;
        out.where = {{x1, rect.y0, rect.z0}, {static_cast<int>(len), rect.ylen, rect.zlen}};
      }
    }
  }
  return out;
}

/// Where a prism may start along one dimension of `n`: anywhere when wrapping, else where it
/// ends inside; only at 0 when it spans the dimension (every origin would name the same nodes).
bool origin_ok(int o, int s, int n, bool wrap) {
  return s == n ? o == 0 : wrap || o + s <= n;
}

/// Valid origins of prisms: bit z of result[x * Y + y] is set when the prism of the shape with
/// origin (x, y, z) is inside the grid (or wraps, when `wrap`) and all free. Windows are ANDs
/// built by doubling (log of the side per word); the z and y windows are shared between shapes.
class origin_finder {
 public:
  origin_finder(const bit_rows& g, bool wrap) : g_(g), wrap_(wrap) {}

  std::vector<word> operator()(const coord3& shape) {
    const auto& yz = yz_windows(shape[1], shape[2]);
    std::vector<word> out(yz.size());
    for (int y = 0; y < g_.dims[1]; ++y)
      window_line(yz.data() + y, static_cast<size_t>(g_.dims[1]), g_.dims[0], shape[0],
                  out.data() + y);
    return out;
  }

 private:
  /// out[p * stride] = AND of in[q * stride] for q in [p, p + len) (cyclic when wrapping), or
  /// 0 where no prism may start.
  void window_line(const word* in, size_t stride, int n, int len, word* out) const {
    // Two buffers of 2n: positions n.. repeat the line when wrapping, hold 0 otherwise.
    std::array<word, 2 * max_torus_dim> buffers[2];
    word any = 0;
    for (int p = 0; p < n; ++p) any |= buffers[0][p] = in[p * stride];
    if (!any) {
      for (int p = 0; p < n; ++p) out[p * stride] = 0;
      return;
    }
    auto extend = [&](std::array<word, 2 * max_torus_dim>& v) {
      for (int p = 0; p < n; ++p) v[n + p] = wrap_ ? v[p] : 0;
    };
    extend(buffers[0]);
    int cur = 0, span = 1;
    for (; span * 2 <= len; span *= 2, cur ^= 1) {
      const auto& a = buffers[cur];
      auto& next = buffers[cur ^ 1];
      for (int p = 0; p < n; ++p) next[p] = a[p] & a[p + span];
      extend(next);
    }
    const auto& a = buffers[cur];
    for (int p = 0; p < n; ++p)
      out[p * stride] = origin_ok(p, len, n, wrap_) ? a[p] & a[p + len - span] : 0;
  }

  word shift_down(word w, int k) const {
    return wrap_ ? rotate_down(w, k, g_.dims[2], g_.full) : w >> k;
  }

  const std::vector<word>& z_windows(int c) {
    auto& out = z_[c];
    if (!out.empty()) return out;
    word z_ok = 0;
    for (int z = 0; z < g_.dims[2]; ++z)
      if (origin_ok(z, c, g_.dims[2], wrap_)) z_ok |= word{1} << z;
    out.resize(g_.rows.size());
    for (size_t i = 0; i < g_.rows.size(); ++i) {
      word w = g_.rows[i];
      int span = 1;
      for (; w && span * 2 <= c; span *= 2) w &= shift_down(w, span);
      if (span < c) w &= shift_down(w, c - span);
      out[i] = w & z_ok;
    }
    return out;
  }

  const std::vector<word>& yz_windows(int b, int c) {
    auto& out = yz_[{b, c}];
    if (!out.empty()) return out;
    const auto& z = z_windows(c);
    out.resize(z.size());
    const auto ny = static_cast<size_t>(g_.dims[1]);
    for (int x = 0; x < g_.dims[0]; ++x)
      window_line(z.data() + x * ny, 1, g_.dims[1], b, out.data() + x * ny);
    return out;
  }

  const bit_rows& g_;
  bool wrap_;
  std::map<int, std::vector<word>> z_;
  std::map<std::pair<int, int>, std::vector<word>> yz_;
};

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
  slab_scores(const bit_rows& g, bool wrap, const std::vector<size_t>& layer_area)
      : g_(g), wrap_(wrap), layer_area_(layer_area) {
    for (int d = 0; d < 3; ++d) memo_[d].resize(static_cast<size_t>(g.dims[d]) * (g.dims[d] + 1));
    z_cache_.resize(static_cast<size_t>(g.dims[2]) + 1);
  }

  /// An upper bound of g_d for the arc [start, start + len) of dimension d, without searching:
  /// at first the free nodes outside the arc.
  size_t bound(int d, int start, int len) { return entry(d, start, len).value; }

  /// Bit z is set unless g_2 for the arc [z, z + len) is known to stay below `floor`.
  word z_may_reach(int len, size_t floor) {
    auto& c = z_cache_[static_cast<size_t>(len)];
    if (!c.valid || c.floor != floor || c.version != version_[2]) {
      c = {true, floor, version_[2], 0};
      for (int z = 0; z < g_.dims[2]; ++z)
        if (bound(2, z, len) >= floor) c.mask |= word{1} << z;
    }
    return c.mask;
  }

  /// g_d for the arc [start, start + len) of dimension d if it is at least `floor`; otherwise
  /// 0 or, when known, g_d itself (never more than g_d).
  size_t value(int d, int start, int len, size_t floor) {
    auto& v = entry(d, start, len);
    if (v.state == slab_value::exact) return v.value;
    if (v.state == slab_value::at_most && v.value < floor) return 0;
    ++version_[d];
    if (len == g_.dims[d]) {
      v = {slab_value::exact, 0};
      return 0;
    }
    const auto found =
        largest_prism(holed_rows(g_, d, start, len), wrap_, floor, layer_area_).volume;
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
  struct z_mask {
    bool valid = false;
    size_t floor = 0;
    uint64_t version = 0;
    word mask = 0;
  };

  slab_value& entry(int d, int start, int len) {
    auto& v = memo_[d][static_cast<size_t>(start) * (g_.dims[d] + 1) + len];
    if (v.state == slab_value::unknown) {
      size_t outside = g_.free_total;
      for (int k = 0; k < len; ++k) outside -= g_.free_at[d][(start + k) % g_.dims[d]];
      v = {slab_value::at_most, outside};
    }
    return v;
  }

  const bit_rows& g_;
  bool wrap_;
  const std::vector<size_t>& layer_area_;
  std::array<std::vector<slab_value>, 3> memo_;
  std::array<uint64_t, 3> version_{0, 0, 0};
  std::vector<z_mask> z_cache_;  // per length of z arc
};

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
  rows_.assign(static_cast<size_t>(dims[0]) * dims[1], low_bits(dims[2]));
  for (int d = 0; d < 3; ++d)
    free_at_[d].assign(static_cast<size_t>(dims[d]), static_cast<uint32_t>(size() / dims[d]));
  free_total_ = size();
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
  return free_total_;
}

void torus_map::set_available(size_t index, bool available) {
  if (available_[index] == available) return;
  available_[index] = available;
  const auto c = coord_of(index);
  rows_[index / dims_[2]] ^= word{1} << c[2];
  for (int d = 0; d < 3; ++d) available ? ++free_at_[d][c[d]] : --free_at_[d][c[d]];
  available ? ++free_total_ : --free_total_;
}

void torus_map::set_available(const torus_allocation& a, bool available) {
  for (auto i : nodes_of(a)) set_available(i, available);
}

bool torus_map::fits(const torus_allocation& a, conn_type conn) const {
  if (conn == conn_type::mesh && wraps(dims_, a)) return false;
  for (int i = 0; i < a.size[0]; ++i)
    for (int j = 0; j < a.size[1]; ++j)
      for (int k = 0; k < a.size[2]; ++k)
        if (!available_[index_of({(a.origin[0] + i) % dims_[0], (a.origin[1] + j) % dims_[1],
                                  (a.origin[2] + k) % dims_[2]})])
          return false;
  return true;
}

std::vector<size_t> torus_map::nodes_of(const torus_allocation& a) const {
  // Each dimension's coordinates in ascending order (a wrapping arc starts again at 0), so the
  // nested loops produce ascending indices.
  std::array<std::vector<int>, 3> coords;
  for (int d = 0; d < 3; ++d) {
    for (int k = 0; k < a.size[d]; ++k) coords[d].push_back((a.origin[d] + k) % dims_[d]);
    std::sort(coords[d].begin(), coords[d].end());
  }
  std::vector<size_t> out;
  out.reserve(volume_of(a.size));
  for (int x : coords[0])
    for (int y : coords[1])
      for (int z : coords[2]) out.push_back(index_of({x, y, z}));
  return out;
}

std::optional<torus_allocation> torus_map::largest_free_prism(conn_type conn) const {
  const bit_rows g{dims_, low_bits(dims_[2]), rows_, free_at_, free_total_};
  const bool wrap = conn == conn_type::torus;
  const auto layers = survey_layers(g, wrap);
  const auto found = largest_prism(holed_rows(g), wrap, 0, layers.area, layers.seed);
  if (found.volume == 0) return std::nullopt;
  return found.where;
}

std::optional<torus_allocation> torus_map::place(const torus_request& req) const {
  const auto shapes = candidate_shapes(dims_, req);
  if (shapes.empty()) return std::nullopt;
  const bool wrap = req.conn == conn_type::torus;
  const bit_rows g{dims_, low_bits(dims_[2]), rows_, free_at_, free_total_};

  origin_finder valid_origins(g, wrap);
  std::vector<std::vector<word>> valid;
  valid.reserve(shapes.size());
  bool any = false;
  for (const auto& s : shapes) {
    valid.push_back(valid_origins(s));
    any = any || std::any_of(valid.back().begin(), valid.back().end(), [](word w) { return w; });
  }
  if (!any) return std::nullopt;

  const auto layers = survey_layers(g, wrap);
  const auto top = largest_prism(holed_rows(g), wrap, 0, layers.area, layers.seed);  // >= 1
  slab_scores slabs(g, wrap, layers.area);
  std::optional<torus_allocation> winner;
  size_t best = 0;
  auto may_win = [&](const torus_allocation& p, size_t floor) {
    for (int d = 0; d < 3; ++d)
      if (slabs.bound(d, p.origin[d], p.size[d]) >= floor) return true;
    return false;
  };
  // Placements in tie order; a later one must score strictly more than `best` to win. A row
  // (x, y) drops the z origins whose three slabs are all known to stay below the floor.
  std::vector<word> candidates(shapes.size());
  for (int x = 0; x < dims_[0]; ++x)
    for (int y = 0; y < dims_[1]; ++y) {
      const size_t row = static_cast<size_t>(x) * dims_[1] + y;
      word origins = 0;
      for (size_t k = 0; k < shapes.size(); ++k) {
        const auto& s = shapes[k];
        word c = valid[k][row];
        if (c && winner && slabs.bound(0, x, s[0]) <= best && slabs.bound(1, y, s[1]) <= best)
          c &= slabs.z_may_reach(s[2], best + 1);
        candidates[k] = c;
        origins |= c;
      }
      while (origins) {
        const int z = __builtin_ctzll(origins);
        origins &= origins - 1;
        for (size_t k = 0; k < shapes.size(); ++k) {
          if (!(candidates[k] >> z & 1)) continue;
          const torus_allocation p{{x, y, z}, shapes[k]};
          const size_t floor = winner ? best + 1 : 0;
          if (winner && !may_win(p, floor)) continue;
          const size_t left_of_top = remnant(top.where, p, dims_);
          size_t score = left_of_top;
          if (left_of_top < top.volume) {
            const size_t search_floor = std::max(floor, left_of_top);
            for (int d = 0; d < 3; ++d)
              score = std::max(
                  score, slabs.value(d, p.origin[d], p.size[d], std::max(search_floor, score + 1)));
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

}  // namespace shoal::topology
