#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "topology/torus.hpp"

using shoal::topology::box_expression;
using shoal::topology::candidate_shapes;
using shoal::topology::conn_type;
using shoal::topology::coord3;
using shoal::topology::node_use;
using shoal::topology::torus_allocation;
using shoal::topology::torus_map;
using shoal::topology::torus_node_name;
using shoal::topology::torus_request;

namespace {

template <class T>
std::string why(const shoal::expected<T>& r) {
  return r ? std::string{"ok"} : shoal::describe(r.error());
}

std::string str(const coord3& c) {
  return std::to_string(c[0]) + "," + std::to_string(c[1]) + "," + std::to_string(c[2]);
}

std::string str(const std::optional<torus_allocation>& a) {
  if (!a) return "none";
  return "origin " + str(a->origin) + " size " + str(a->size);
}

torus_request geometry(coord3 g, conn_type conn = conn_type::torus, bool rotate = true) {
  torus_request r;
  r.geometry = g;
  r.conn = conn;
  r.rotate = rotate;
  return r;
}

torus_request count(uint32_t n, conn_type conn = conn_type::torus) {
  torus_request r;
  r.node_count = n;
  r.conn = conn;
  return r;
}

/// Marks the nodes at `taken` (x, y, z) unavailable.
torus_map with_taken(coord3 dims, const std::vector<coord3>& taken) {
  torus_map m{dims};
  for (const auto& c : taken) m.set_available(m.index_of(c), false);
  return m;
}

// -- naive reference ----------------------------------------------------------------------------
// Everything below works cell by cell from the definitions in torus.hpp, sharing no code with
// the allocator.

size_t volume(const coord3& s) {
  return static_cast<size_t>(s[0]) * s[1] * s[2];
}

bool contains(const coord3& dims, const torus_allocation& p, const coord3& c) {
  for (int d = 0; d < 3; ++d)
    if (((c[d] - p.origin[d]) % dims[d] + dims[d]) % dims[d] >= p.size[d]) return false;
  return true;
}

std::vector<coord3> cells(const coord3& dims, const torus_allocation& p) {
  std::vector<coord3> out;
  for (int i = 0; i < p.size[0]; ++i)
    for (int j = 0; j < p.size[1]; ++j)
      for (int k = 0; k < p.size[2]; ++k)
        out.push_back({(p.origin[0] + i) % dims[0], (p.origin[1] + j) % dims[1],
                       (p.origin[2] + k) % dims[2]});
  return out;
}

bool origin_allowed(int o, int s, int n, bool wrap) {
  if (s == n) return o == 0;
  return wrap || o + s <= n;
}

/// Every prism on the grid (wrapping ones when `wrap`), largest volume first.
std::vector<torus_allocation> all_prisms(const coord3& dims, bool wrap) {
  std::vector<torus_allocation> out;
  for (int a = 1; a <= dims[0]; ++a)
    for (int b = 1; b <= dims[1]; ++b)
      for (int c = 1; c <= dims[2]; ++c)
        for (int x = 0; x < dims[0]; ++x)
          for (int y = 0; y < dims[1]; ++y)
            for (int z = 0; z < dims[2]; ++z)
              if (origin_allowed(x, a, dims[0], wrap) && origin_allowed(y, b, dims[1], wrap) &&
                  origin_allowed(z, c, dims[2], wrap))
                out.push_back({{x, y, z}, {a, b, c}});
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& p, const auto& q) { return volume(p.size) > volume(q.size); });
  return out;
}

bool all_free(const torus_map& m, const torus_allocation& p) {
  for (const auto& c : cells(m.dims(), p))
    if (!m.available(m.index_of(c))) return false;
  return true;
}

/// The shapes a request may take, by the rules of candidate_shapes (in its documented order).
std::vector<coord3> reference_shapes(const coord3& dims, const torus_request& req) {
  auto fits = [&](const coord3& s) {
    for (int d = 0; d < 3; ++d)
      if (s[d] < 1 || s[d] > dims[d]) return false;
    return true;
  };
  std::vector<coord3> out;
  if (req.geometry) {
    const auto g = *req.geometry;
    std::vector<coord3> orders{g};
    if (req.rotate) {
      orders.push_back({g[0], g[2], g[1]});
      orders.push_back({g[1], g[0], g[2]});
      orders.push_back({g[1], g[2], g[0]});
      orders.push_back({g[2], g[0], g[1]});
      orders.push_back({g[2], g[1], g[0]});
    }
    for (const auto& s : orders)
      if (fits(s) && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    return out;
  }
  size_t best = 0;
  for (int a = 1; a <= dims[0]; ++a)
    for (int b = 1; b <= dims[1]; ++b)
      for (int c = 1; c <= dims[2]; ++c) {
        const size_t v = volume({a, b, c});
        if (req.node_count > 0 && v >= req.node_count && (best == 0 || v < best)) best = v;
      }
  for (int a = 1; a <= dims[0]; ++a)
    for (int b = 1; b <= dims[1]; ++b)
      for (int c = 1; c <= dims[2]; ++c)
        if (best > 0 && volume({a, b, c}) == best) out.push_back({a, b, c});
  return out;
}

struct reference_result {
  std::vector<torus_allocation> valid;  // in tie order
  std::vector<size_t> score;            // largest free prism left by each
  std::optional<torus_allocation> expected;
  size_t best = 0;
};

/// Brute force: every valid placement, the largest free prism each leaves (the first free
/// prism, largest first, that shares no cell with it), and the first with the best score.
reference_result reference_place(const torus_map& m, const torus_request& req,
                                 const std::vector<torus_allocation>& prisms) {
  const auto& dims = m.dims();
  const bool wrap = req.conn == conn_type::torus;
  const auto shapes = reference_shapes(dims, req);
  std::vector<torus_allocation> free_prisms;
  for (const auto& q : prisms)
    if (all_free(m, q)) free_prisms.push_back(q);
  reference_result r;
  for (size_t i = 0; i < m.size(); ++i)
    for (const auto& s : shapes) {
      const torus_allocation p{m.coord_of(i), s};
      bool ok = true;
      for (int d = 0; d < 3; ++d) ok = ok && origin_allowed(p.origin[d], s[d], dims[d], wrap);
      if (!ok || !all_free(m, p)) continue;
      size_t left = 0;
      for (const auto& q : free_prisms) {
        const auto qc = cells(dims, q);
        if (std::none_of(qc.begin(), qc.end(),
                         [&](const coord3& c) { return contains(dims, p, c); })) {
          left = volume(q.size);
          break;
        }
      }
      r.valid.push_back(p);
      r.score.push_back(left);
      if (!r.expected || left > r.best) {
        r.expected = p;
        r.best = left;
      }
    }
  return r;
}

/// What is wrong with `got` as the answer of `m.place(req)`; empty when nothing.
std::string check_placement(const torus_map& m, const torus_request& req,
                            const std::optional<torus_allocation>& got,
                            const std::vector<torus_allocation>& prisms) {
  std::ostringstream out;
  const auto& dims = m.dims();
  const auto ref = reference_place(m, req, prisms);
  if (!got) {
    if (!ref.valid.empty()) out << "nullopt but " << str(ref.valid.front()) << " is valid";
    return out.str();
  }
  if (ref.valid.empty()) {
    out << "placed " << str(got) << " but brute force finds no valid placement";
    return out.str();
  }
  for (const auto& c : cells(dims, *got))
    if (!m.available(m.index_of(c))) out << "overlaps unavailable node " << str(c) << "; ";
  const auto& s = got->size;
  if (req.geometry) {
    auto g = *req.geometry;
    auto sorted_s = s;
    std::sort(g.begin(), g.end());
    std::sort(sorted_s.begin(), sorted_s.end());
    if (req.rotate ? g != sorted_s : s != *req.geometry) out << "wrong geometry; ";
  } else if (volume(s) < req.node_count) {
    out << "too few nodes; ";
  }
  for (int d = 0; d < 3; ++d) {
    if (got->origin[d] < 0 || got->origin[d] >= dims[d] || s[d] > dims[d]) out << "off grid; ";
    const bool wrapped = got->origin[d] + s[d] > dims[d];
    if (wrapped && req.conn == conn_type::mesh) out << "wraps on a mesh; ";
  }
  const auto it = std::find(ref.valid.begin(), ref.valid.end(), *got);
  if (it == ref.valid.end()) {
    out << "not among the brute-force valid placements; ";
  } else {
    const size_t score = ref.score[static_cast<size_t>(it - ref.valid.begin())];
    if (score != ref.best) out << "leaves " << score << " free, best is " << ref.best << "; ";
    if (*got != *ref.expected) out << "tie order: expected " << str(ref.expected) << "; ";
  }
  return out.str();
}

torus_request random_request(std::mt19937& rng, const coord3& dims) {
  torus_request req;
  req.conn = rng() % 2 ? conn_type::torus : conn_type::mesh;
  if (rng() % 3) {
    const int top = *std::max_element(dims.begin(), dims.end()) + 1;
    coord3 g;
    for (auto& v : g) v = 1 + static_cast<int>(rng() % top);
    req.geometry = g;
    req.rotate = rng() % 3 != 0;
  } else {
    const auto n = static_cast<uint32_t>(volume(dims));
    req.node_count = static_cast<uint32_t>(rng() % (std::min<uint32_t>(n, 12) + 2));
  }
  return req;
}

/// Random availability: either each node available with a probability drawn per map, or
/// (chunky, as after many jobs) random prisms taken, wrapping or not, until a drawn share is.
torus_map random_map(std::mt19937& rng, const coord3& dims) {
  torus_map m{dims};
  const double p = std::uniform_real_distribution<double>{0.2, 1.0}(rng);
  if (rng() % 2) {
    std::bernoulli_distribution up{p};
    for (size_t i = 0; i < m.size(); ++i) m.set_available(i, up(rng));
    return m;
  }
  const auto target = static_cast<size_t>(p * static_cast<double>(m.size()));
  for (int tries = 0; tries < 200 && m.available_count() > target; ++tries) {
    torus_allocation a;
    for (int d = 0; d < 3; ++d) {
      a.size[d] = 1 + static_cast<int>(rng() % static_cast<uint32_t>(dims[d]));
      a.origin[d] = static_cast<int>(rng() % static_cast<uint32_t>(dims[d]));
    }
    m.set_available(a, false);
  }
  return m;
}

std::string describe_case(const torus_map& m, const torus_request& req) {
  std::ostringstream out;
  out << "grid " << str(m.dims()) << " request ";
  if (req.geometry)
    out << "geometry " << str(*req.geometry) << (req.rotate ? "" : " no-rotate");
  else
    out << "count " << req.node_count;
  out << " " << shoal::topology::to_string(req.conn) << " available:";
  for (size_t i = 0; i < m.size(); ++i) out << (m.available(i) ? '1' : '0');
  return out.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(torus)

// -- names and boxes ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(node_names_put_one_base36_digit_per_dimension) {
  // The paper: bgl012 is the base partition at X=0, Y=1, Z=2.
  BOOST_CHECK_EQUAL(torus_node_name("bgl", {0, 1, 2}), "bgl012");
  BOOST_CHECK_EQUAL(torus_node_name("bgl", {7, 3, 3}), "bgl733");
  BOOST_CHECK_EQUAL(torus_node_name("bgl", {10, 35, 0}), "bglAZ0");
}

BOOST_AUTO_TEST_CASE(node_indices_follow_the_box_expansion_order) {
  torus_map m{{8, 4, 4}};
  BOOST_CHECK_EQUAL(m.size(), 128u);  // the LLNL machine: 128 base partitions
  BOOST_CHECK_EQUAL(m.index_of({7, 3, 3}), 127u);
  BOOST_CHECK_EQUAL(m.index_of({0, 1, 2}), 6u);
  for (size_t i = 0; i < m.size(); ++i) BOOST_CHECK_EQUAL(m.index_of(m.coord_of(i)), i);
}

BOOST_AUTO_TEST_CASE(a_prism_prints_as_its_two_extreme_corners) {
  // The paper: bgl[200x311] is bgl200, bgl201, bgl210, bgl211, bgl300, bgl301, bgl310, bgl311.
  const coord3 dims{8, 4, 4};
  const torus_allocation a{{2, 0, 0}, {2, 2, 2}};
  BOOST_CHECK_EQUAL(box_expression("bgl", dims, a), "bgl[200x311]");
  torus_map m{dims};
  std::vector<std::string> names;
  for (auto i : m.nodes_of(a)) names.push_back(torus_node_name("bgl", m.coord_of(i)));
  const std::vector<std::string> expected{"bgl200", "bgl201", "bgl210", "bgl211",
                                          "bgl300", "bgl301", "bgl310", "bgl311"};
  BOOST_CHECK(names == expected);
  BOOST_CHECK_EQUAL(box_expression("bgl", dims, {{0, 0, 0}, {8, 4, 4}}), "bgl[000x733]");
  BOOST_CHECK_EQUAL(box_expression("bgl", dims, {{0, 0, 0}, {1, 2, 2}}), "bgl[000x011]");
}

BOOST_AUTO_TEST_CASE(a_single_node_prints_as_its_plain_name) {
  // As Slurm's hostlist_ranged_string prints a one-node 3-D set.
  BOOST_CHECK_EQUAL(box_expression("bgl", {8, 4, 4}, {{1, 2, 3}, {1, 1, 1}}), "bgl123");
}

BOOST_AUTO_TEST_CASE(a_wrapping_prism_prints_one_box_per_piece_lowest_corner_first) {
  const coord3 dims{8, 4, 4};
  BOOST_CHECK_EQUAL(box_expression("bgl", dims, {{7, 0, 0}, {2, 2, 2}}), "bgl[000x011,700x711]");
  BOOST_CHECK_EQUAL(box_expression("bgl", dims, {{7, 0, 0}, {2, 1, 1}}), "bgl[000,700]");
  BOOST_CHECK_EQUAL(box_expression("bgl", dims, {{7, 3, 0}, {2, 2, 1}}), "bgl[000,030,700,730]");
  // Wrapping in two dimensions: four pieces.
  BOOST_CHECK_EQUAL(box_expression("bgl", dims, {{6, 3, 1}, {3, 2, 2}}),
                    "bgl[001x002,031x032,601x702,631x732]");
  // Spanning a dimension: one piece in it, whatever the origin.
  BOOST_CHECK_EQUAL(box_expression("bgl", dims, {{0, 2, 0}, {1, 4, 1}}), "bgl[000x030]");
  BOOST_CHECK_EQUAL(box_expression("bgl", dims, {{0, 0, 0}, {1, 4, 1}}), "bgl[000x030]");
}

BOOST_AUTO_TEST_CASE(box_hostlist_covers_names_with_few_boxes) {
  using shoal::topology::box_hostlist;
  const shoal::topology::coord3 dims{8, 4, 4};
  auto all = [&](const shoal::topology::coord3& lo, const shoal::topology::coord3& hi) {
    std::vector<std::string> out;
    for (int x = lo[0]; x <= hi[0]; ++x)
      for (int y = lo[1]; y <= hi[1]; ++y)
        for (int z = lo[2]; z <= hi[2]; ++z) out.push_back(torus_node_name("bgl", {x, y, z}));
    return out;
  };
  // The whole grid is one box; so is any full prism, whatever the order of the names.
  BOOST_CHECK_EQUAL(*box_hostlist("bgl", dims, all({0, 0, 0}, {7, 3, 3})), "bgl[000x733]");
  auto prism = all({2, 0, 1}, {3, 1, 3});
  std::reverse(prism.begin(), prism.end());
  BOOST_CHECK_EQUAL(*box_hostlist("bgl", dims, prism), "bgl[201x313]");
  // The grid less one node: boxes from the lowest uncovered name, longest z run first.
  auto most = all({0, 0, 0}, {7, 3, 3});
  most.erase(std::find(most.begin(), most.end(), "bgl000"));
  BOOST_CHECK_EQUAL(*box_hostlist("bgl", dims, most), "bgl[001x733,010x730,100x700]");
  // Single nodes are their digits; duplicates count once; base-36 digits work.
  BOOST_CHECK_EQUAL(*box_hostlist("bgl", dims, {"bgl123"}), "bgl123");
  BOOST_CHECK_EQUAL(*box_hostlist("bgl", dims, {"bgl123", "bgl000", "bgl123"}), "bgl[000,123]");
  BOOST_CHECK(!box_hostlist("b", {12, 1, 1}, {"b A00"}));
  BOOST_CHECK_EQUAL(*box_hostlist("b", {12, 1, 1}, {"bA00", "bB00"}), "b[A00xB00]");
  // Empty: nothing; a name off the grid or of another prefix: the caller's hostlist instead.
  BOOST_CHECK_EQUAL(*box_hostlist("bgl", dims, {}), "");
  BOOST_CHECK(!box_hostlist("bgl", dims, {"bgl800"}));
  BOOST_CHECK(!box_hostlist("bgl", dims, {"login1"}));
  BOOST_CHECK(!box_hostlist("bgl", dims, {"bgl0000"}));
}

BOOST_AUTO_TEST_CASE(nodes_of_a_wrapping_prism_are_ascending_and_wrap) {
  torus_map m{{8, 4, 4}};
  const auto nodes = m.nodes_of({{7, 3, 3}, {2, 2, 2}});
  BOOST_REQUIRE_EQUAL(nodes.size(), 8u);
  BOOST_CHECK(std::is_sorted(nodes.begin(), nodes.end()));
  std::vector<std::string> names;
  for (auto i : nodes) names.push_back(torus_node_name("bgl", m.coord_of(i)));
  const std::vector<std::string> expected{"bgl000", "bgl003", "bgl030", "bgl033",
                                          "bgl700", "bgl703", "bgl730", "bgl733"};
  BOOST_CHECK(names == expected);
  BOOST_CHECK(shoal::topology::wraps(m.dims(), {{7, 3, 3}, {2, 2, 2}}));
  BOOST_CHECK(!shoal::topology::wraps(m.dims(), {{6, 2, 2}, {2, 2, 2}}));
}

// -- parsing -----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(geometries_parse_in_both_forms_within_range) {
  auto g = shoal::topology::parse_geometry("4x4x2");
  BOOST_REQUIRE_MESSAGE(g, why(g));
  BOOST_CHECK(*g == (coord3{4, 4, 2}));
  g = shoal::topology::parse_geometry("1,2,36");
  BOOST_REQUIRE_MESSAGE(g, why(g));
  BOOST_CHECK(*g == (coord3{1, 2, 36}));
  g = shoal::topology::parse_geometry("8X4X4");
  BOOST_REQUIRE_MESSAGE(g, why(g));
  BOOST_CHECK_EQUAL(shoal::topology::format_geometry(*g), "8x4x4");
  for (const char* bad :
       {"", "4x4", "4x4x4x4", "0x1x1", "37x1x1", "4x-1x2", "4xx4", "a", "4x4x2 ", "1000x1x1"}) {
    const auto r = shoal::topology::parse_geometry(bad);
    BOOST_CHECK_MESSAGE(!r, "accepted '" << bad << "'");
    if (!r) BOOST_CHECK(shoal::describe(r.error()).find("AxBxC") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(connection_types_and_node_uses_parse_in_any_case) {
  auto c = shoal::topology::parse_conn_type("MESH");
  BOOST_REQUIRE_MESSAGE(c, why(c));
  BOOST_CHECK(*c == conn_type::mesh);
  c = shoal::topology::parse_conn_type("torus");
  BOOST_REQUIRE_MESSAGE(c, why(c));
  BOOST_CHECK(*c == conn_type::torus);
  BOOST_CHECK(!shoal::topology::parse_conn_type("nav"));
  auto u = shoal::topology::parse_node_use("Virtual");
  BOOST_REQUIRE_MESSAGE(u, why(u));
  BOOST_CHECK(*u == node_use::virtual_node);
  u = shoal::topology::parse_node_use("COPROCESSOR");
  BOOST_REQUIRE_MESSAGE(u, why(u));
  BOOST_CHECK(*u == node_use::coprocessor);
  BOOST_CHECK(!shoal::topology::parse_node_use("both"));
  BOOST_CHECK_EQUAL(shoal::topology::to_string(node_use::virtual_node), std::string{"virtual"});
  BOOST_CHECK_EQUAL(shoal::topology::to_string(conn_type::mesh), std::string{"mesh"});
}

// -- shapes ------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_geometry_rotates_unless_told_not_to) {
  const coord3 dims{8, 4, 4};
  auto shapes = candidate_shapes(dims, geometry({4, 4, 2}));
  const std::vector<coord3> three{{4, 4, 2}, {4, 2, 4}, {2, 4, 4}};
  BOOST_CHECK(shapes == three);
  // 1x1x8 only fits along X.
  shapes = candidate_shapes(dims, geometry({1, 1, 8}));
  BOOST_CHECK(shapes == (std::vector<coord3>{{8, 1, 1}}));
  BOOST_CHECK(candidate_shapes(dims, geometry({1, 1, 8}, conn_type::torus, false)).empty());
  torus_map m{dims};
  BOOST_CHECK(!m.place(geometry({1, 1, 8}, conn_type::torus, false)));
  auto p = m.place(geometry({1, 1, 8}));
  BOOST_REQUIRE(p);
  BOOST_CHECK(p->size == (coord3{8, 1, 1}));
  // Larger than the grid in any order: never placeable.
  BOOST_CHECK(candidate_shapes(dims, geometry({9, 1, 1})).empty());
  BOOST_CHECK(candidate_shapes(dims, geometry({0, 1, 1})).empty());
}

BOOST_AUTO_TEST_CASE(a_count_rounds_up_to_the_smallest_prism_that_fits_the_grid) {
  const coord3 dims{8, 4, 4};
  BOOST_CHECK(candidate_shapes(dims, count(5)) == (std::vector<coord3>{{5, 1, 1}}));
  BOOST_CHECK(candidate_shapes(dims, count(9)) ==
              (std::vector<coord3>{{1, 3, 3}, {3, 1, 3}, {3, 3, 1}}));
  // 11 is prime and 11x1x1 does not fit: 12 it is.
  const auto twelve = candidate_shapes(dims, count(11));
  BOOST_REQUIRE(!twelve.empty());
  for (const auto& s : twelve) BOOST_CHECK_EQUAL(volume(s), 12u);
  BOOST_CHECK(candidate_shapes(dims, count(128)) == (std::vector<coord3>{{8, 4, 4}}));
  BOOST_CHECK(candidate_shapes(dims, count(129)).empty());
  BOOST_CHECK(candidate_shapes(dims, count(0)).empty());
  for (uint32_t n = 1; n <= 130; ++n)
    BOOST_CHECK_MESSAGE(candidate_shapes(dims, count(n)) == reference_shapes(dims, count(n)),
                        "count " << n);
}

// -- placement by hand -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_whole_machine_is_one_placement) {
  torus_map m{{8, 4, 4}};
  auto p = m.place(count(128));
  BOOST_REQUIRE(p);
  BOOST_CHECK(*p == (torus_allocation{{0, 0, 0}, {8, 4, 4}}));
  m.set_available(m.index_of({3, 2, 1}), false);
  BOOST_CHECK(!m.place(count(128)));
  BOOST_CHECK(!m.place(count(128, conn_type::mesh)));
}

BOOST_AUTO_TEST_CASE(placement_keeps_the_largest_free_run_intact) {
  // 8x1x1 mesh, node 4 taken: runs 0..3 and 5..7. Three nodes fit either; the 3-run is the one
  // to use, the 4-run stays whole.
  const auto m = with_taken({8, 1, 1}, {{4, 0, 0}});
  auto p = m.place(count(3, conn_type::mesh));
  BOOST_REQUIRE(p);
  BOOST_CHECK_EQUAL(str(p), str(torus_allocation{{5, 0, 0}, {3, 1, 1}}));
}

BOOST_AUTO_TEST_CASE(on_a_torus_free_space_wraps_and_placement_counts_it) {
  // Same map as a torus: the free ring is 5,6,7,0,1,2,3. Taking 1..3 leaves 5,6,7,0 (four,
  // wrapping), as good as taking 5..7 (leaves 0..3), and origin 1 comes first.
  const auto m = with_taken({8, 1, 1}, {{4, 0, 0}});
  auto p = m.place(count(3, conn_type::torus));
  BOOST_REQUIRE(p);
  BOOST_CHECK_EQUAL(str(p), str(torus_allocation{{1, 0, 0}, {3, 1, 1}}));
  // Six of seven: only a torus placement can wrap over the gap's far side.
  p = m.place(count(6, conn_type::torus));
  BOOST_REQUIRE(p);
  BOOST_CHECK_EQUAL(str(p), str(torus_allocation{{5, 0, 0}, {6, 1, 1}}));
  BOOST_CHECK(shoal::topology::wraps(m.dims(), *p));
  BOOST_CHECK(!m.place(count(6, conn_type::mesh)));
}

BOOST_AUTO_TEST_CASE(an_empty_mesh_places_in_the_lowest_corner) {
  torus_map m{{8, 4, 4}};
  auto p = m.place(geometry({2, 2, 2}, conn_type::mesh));
  BOOST_REQUIRE(p);
  BOOST_CHECK(*p == (torus_allocation{{0, 0, 0}, {2, 2, 2}}));
  // Half the machine: it leaves the other half, 4x4x4.
  p = m.place(geometry({4, 4, 4}, conn_type::mesh));
  BOOST_REQUIRE(p);
  BOOST_CHECK(*p == (torus_allocation{{0, 0, 0}, {4, 4, 4}}));
}

BOOST_AUTO_TEST_CASE(a_rotation_is_chosen_when_it_leaves_more) {
  // 4x4x1 (x across, y up), taken: x 1..3 of the top row y = 3 and the corner (0, 0). Free: the
  // 3x3 block x 1..3, y 0..2, and the column x = 0, y 1..3. A 3-long column there leaves the
  // block whole (9); any 3-long row cuts it.
  const auto m = with_taken({4, 4, 1}, {{1, 3, 0}, {2, 3, 0}, {3, 3, 0}, {0, 0, 0}});
  auto p = m.place(geometry({3, 1, 1}, conn_type::mesh));
  BOOST_REQUIRE(p);
  BOOST_CHECK_EQUAL(str(p), str(torus_allocation{{0, 1, 0}, {1, 3, 1}}));
  // Without rotation it must lie along X and cut the block.
  p = m.place(geometry({3, 1, 1}, conn_type::mesh, false));
  BOOST_REQUIRE(p);
  BOOST_CHECK(p->size == (coord3{3, 1, 1}));
}

BOOST_AUTO_TEST_CASE(the_largest_free_prism_is_reported) {
  const auto m = with_taken({8, 1, 1}, {{4, 0, 0}});
  auto q = m.largest_free_prism(conn_type::mesh);
  BOOST_REQUIRE(q);
  BOOST_CHECK(*q == (torus_allocation{{0, 0, 0}, {4, 1, 1}}));
  q = m.largest_free_prism(conn_type::torus);
  BOOST_REQUIRE(q);
  BOOST_CHECK_EQUAL(volume(q->size), 7u);
  BOOST_CHECK(m.fits(*q, conn_type::torus));
  BOOST_CHECK(!m.fits(*q, conn_type::mesh));
  torus_map none{{2, 2, 2}};
  for (size_t i = 0; i < none.size(); ++i) none.set_available(i, false);
  BOOST_CHECK(!none.largest_free_prism(conn_type::torus));
  BOOST_CHECK(!none.place(count(1)));
}

BOOST_AUTO_TEST_CASE(bad_grids_are_refused) {
  BOOST_CHECK_THROW(torus_map({0, 4, 4}), std::invalid_argument);
  BOOST_CHECK_THROW(torus_map({37, 4, 4}), std::invalid_argument);
  BOOST_CHECK_NO_THROW(torus_map({36, 36, 36}));
}

// -- properties against brute force -------------------------------------------------------------

BOOST_AUTO_TEST_CASE(placement_is_valid_and_exactly_optimal_on_random_small_grids) {
  const uint32_t seed = 20040301;
  std::mt19937 rng{seed};
  int placed = 0, refused = 0;
  for (int round = 0; round < 1000; ++round) {
    coord3 dims;
    for (auto& v : dims) v = 2 + static_cast<int>(rng() % 5);  // 2..6
    const auto m = random_map(rng, dims);
    const auto req = random_request(rng, dims);
    const auto prisms = all_prisms(dims, req.conn == conn_type::torus);
    const auto got = m.place(req);
    (got ? placed : refused)++;
    const auto problem = check_placement(m, req, got, prisms);
    BOOST_CHECK_MESSAGE(problem.empty(), "seed " << seed << " round " << round << " "
                                                 << describe_case(m, req) << " got " << str(got)
                                                 << ": " << problem);
  }
  // The generator must exercise both outcomes.
  BOOST_CHECK_GT(placed, 200);
  BOOST_CHECK_GT(refused, 60);
}

BOOST_AUTO_TEST_CASE(placement_is_exactly_optimal_on_the_llnl_machine_and_odd_grids) {
  const uint32_t seed = 8044;
  std::mt19937 rng{seed};
  const std::vector<coord3> grids{{8, 4, 4}, {8, 4, 4}, {9, 1, 7}, {3, 10, 2}, {5, 5, 5}};
  for (int round = 0; round < 150; ++round) {
    const auto dims = grids[static_cast<size_t>(round) % grids.size()];
    const auto m = random_map(rng, dims);
    auto req = random_request(rng, dims);
    if (!req.geometry) req.node_count = 1 + static_cast<uint32_t>(rng() % 20);
    const auto prisms = all_prisms(dims, req.conn == conn_type::torus);
    const auto got = m.place(req);
    const auto problem = check_placement(m, req, got, prisms);
    BOOST_CHECK_MESSAGE(problem.empty(), "seed " << seed << " round " << round << " "
                                                 << describe_case(m, req) << " got " << str(got)
                                                 << ": " << problem);
  }
}

BOOST_AUTO_TEST_CASE(the_largest_free_prism_matches_brute_force) {
  const uint32_t seed = 77;
  std::mt19937 rng{seed};
  for (int round = 0; round < 400; ++round) {
    coord3 dims;
    for (auto& v : dims) v = 1 + static_cast<int>(rng() % 6);
    const auto m = random_map(rng, dims);
    for (auto conn : {conn_type::mesh, conn_type::torus}) {
      size_t expected = 0;
      for (const auto& q : all_prisms(dims, conn == conn_type::torus))
        if (all_free(m, q)) {
          expected = volume(q.size);
          break;
        }
      const auto got = m.largest_free_prism(conn);
      const size_t volume_got = got ? volume(got->size) : 0;
      BOOST_CHECK_MESSAGE(volume_got == expected && (!got || m.fits(*got, conn)),
                          "seed " << seed << " round " << round << " " << to_string(conn) << " got "
                                  << str(got) << " expected volume " << expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_largest_free_prism_matches_brute_force_on_larger_grids) {
  // Wider words and longer arcs than the small grids: exercises the search's bounds.
  const uint32_t seed = 1212;
  std::mt19937 rng{seed};
  const std::vector<coord3> grids{{10, 8, 7}, {16, 3, 5}, {2, 12, 11}};
  for (const auto& dims : grids)
    for (auto conn : {conn_type::mesh, conn_type::torus}) {
      const auto prisms = all_prisms(dims, conn == conn_type::torus);
      for (int round = 0; round < 4; ++round) {
        const auto m = random_map(rng, dims);
        size_t expected = 0;
        for (const auto& q : prisms)
          if (all_free(m, q)) {
            expected = volume(q.size);
            break;
          }
        const auto got = m.largest_free_prism(conn);
        const size_t volume_got = got ? volume(got->size) : 0;
        BOOST_CHECK_MESSAGE(volume_got == expected && (!got || m.fits(*got, conn)),
                            "seed " << seed << " grid " << str(dims) << " round " << round << " "
                                    << to_string(conn) << " got " << str(got) << " expected volume "
                                    << expected);
      }
    }
}

BOOST_AUTO_TEST_CASE(allocating_until_full_never_overlaps_and_releasing_restores_the_map) {
  const uint32_t seed = 4242;
  std::mt19937 rng{seed};
  for (int round = 0; round < 60; ++round) {
    coord3 dims;
    for (auto& v : dims) v = 2 + static_cast<int>(rng() % 7);
    auto m = random_map(rng, dims);
    const auto before = m;
    const size_t total = m.size();
    const size_t free_before = m.available_count();
    std::vector<torus_allocation> jobs;
    size_t used = 0;
    for (int k = 0; k < 200; ++k) {
      const auto req = random_request(rng, dims);
      const auto p = m.place(req);
      if (!p) continue;
      BOOST_REQUIRE_MESSAGE(m.fits(*p, req.conn), "seed " << seed << " round " << round);
      m.set_available(*p, false);
      jobs.push_back(*p);
      used += volume(p->size);
      BOOST_CHECK_EQUAL(m.available_count() + used, free_before);
    }
    std::vector<int> owners(total, 0);
    for (const auto& j : jobs)
      for (auto i : m.nodes_of(j)) ++owners[i];
    BOOST_CHECK_MESSAGE(std::all_of(owners.begin(), owners.end(), [](int o) { return o <= 1; }),
                        "seed " << seed << " round " << round << ": overlapping allocations");
    for (const auto& j : jobs) m.set_available(j, true);
    bool same = true;
    for (size_t i = 0; i < total; ++i) same = same && m.available(i) == before.available(i);
    BOOST_CHECK_MESSAGE(same, "seed " << seed << " round " << round << ": release differs");
  }
}

BOOST_AUTO_TEST_SUITE_END()
