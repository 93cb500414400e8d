#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "messages/errc.hpp"

namespace shoal::topology {

/// A base partition's position on the X x Y x Z grid (Blue Gene/L paper, 2002).
using coord3 = std::array<int, 3>;

/// How an allocation's links are wired: a mesh never wraps; a torus may wrap around the grid
/// in any dimension (its links close through the wrap-around cables).
enum class conn_type : uint8_t { mesh, torus };

/// How the compute nodes of a base partition are used (coprocessor: one task per node, the
/// second CPU does communication; virtual: two tasks per node). Carried through to the job.
enum class node_use : uint8_t { coprocessor, virtual_node };

/// What a job asks of the torus: either a geometry (A x B x C base partitions) or a count.
struct torus_request {
  std::optional<coord3> geometry;  ///< --geometry=AxBxC
  uint32_t node_count = 1;         ///< used when geometry is unset (-N)
  bool rotate = true;              ///< false: --no-rotate, the geometry's axes stay as given
  conn_type conn = conn_type::torus;
};

/// A rectangular prism on the grid: `origin` plus `size` in each dimension, coordinates taken
/// modulo the grid (so a prism may wrap when its connection type allows).
struct torus_allocation {
  coord3 origin{0, 0, 0};
  coord3 size{1, 1, 1};
};

bool operator==(const torus_allocation& a, const torus_allocation& b);
bool operator!=(const torus_allocation& a, const torus_allocation& b);

/// The largest grid the allocator and the names support: 36 per dimension (one base-36 digit).
constexpr int max_torus_dim = 36;

/// The allocation map of a 3-D torus of base partitions: which are available (usable and not
/// allocated). Pure: no actors, no clock. Node indices are x * Y * Z + y * Z + z, the order in
/// which the box form `bgl[000x733]` expands.
class torus_map {
 public:
  /// All nodes start available. Precondition (else std::invalid_argument, a bug in the caller:
  /// check the grid with parse_geometry first): every dimension in 1..max_torus_dim.
  explicit torus_map(coord3 dims);

  // -- observers --

  const coord3& dims() const { return dims_; }
  size_t size() const { return available_.size(); }
  size_t index_of(const coord3& c) const;
  coord3 coord_of(size_t index) const;

  bool available(size_t index) const { return available_[index]; }

  /// How many nodes are available.
  size_t available_count() const;

  // -- modifiers --

  void set_available(size_t index, bool available);

  /// Marks every node of `a` (wrapping as needed) available or not: allocate with false,
  /// release with true. Precondition: `a` lies on this grid (see nodes_of).
  void set_available(const torus_allocation& a, bool available);

  // -- placement --

  /// The placement for `req` among available nodes, or nullopt when none fits now (or ever:
  /// candidate_shapes tells which). Valid placements are prisms of one of
  /// candidate_shapes(dims(), req) whose every node is available, wrapping only when req.conn
  /// is torus; a dimension a prism spans entirely is placed at origin 0 in it (on a torus every
  /// origin would name the same nodes). Among valid placements the one that leaves the largest
  /// free prism intact is chosen: the largest volume of an all-available prism once the
  /// placement's nodes are taken, where free prisms may wrap exactly when req.conn is torus (the
  /// prism a later job of the same wiring could get). Ties: lowest index of origin, then the
  /// order of candidate_shapes. Exact on every grid size (no heuristic); cost grows with how
  /// fragmented the free space is (docs/benchmarks.md, "Torus placement").
  std::optional<torus_allocation> place(const torus_request& req) const;

  /// One all-available prism of the largest volume (wrapping when `conn` is torus), or nullopt
  /// when no node is available. Deterministic for a given map, not otherwise specified among
  /// prisms of equal volume. What place() maximises after the placement.
  std::optional<torus_allocation> largest_free_prism(conn_type conn) const;

  /// Whether every node of `a` is available and `a` does not wrap unless `conn` is torus.
  /// Precondition: `a` lies on this grid (see nodes_of).
  bool fits(const torus_allocation& a, conn_type conn) const;

  /// Node indices of `a`, ascending. Precondition: 0 <= origin < dims and 1 <= size <= dims in
  /// every dimension.
  std::vector<size_t> nodes_of(const torus_allocation& a) const;

 private:
  coord3 dims_;
  std::vector<bool> available_;
  // The same availability as place() reads it: bit z of rows_[x * Y + y] is node (x, y, z);
  // free_at_[d][p] counts the available nodes whose coordinate in dimension d is p.
  std::vector<uint64_t> rows_;
  std::array<std::vector<uint32_t>, 3> free_at_;
  size_t free_total_ = 0;
};

/// The prism shapes a request may take on a grid of `dims`, in the order place() breaks ties.
/// Empty when no shape fits the grid: the request can never be placed there (reject it).
/// - A geometry (every value >= 1): the geometry as given, then, when req.rotate, its other
///   axis orders (A,C,B), (B,A,C), (B,C,A), (C,A,B), (C,B,A), each once (4x4x2 has three),
///   keeping those that fit inside `dims` in every dimension.
/// - A count: every A x B x C that fits `dims` with the smallest volume A*B*C >= node_count
///   that any fitting shape has, in lexicographic order (A, then B, then C); `rotate` does not
///   apply. The volume depends only on the count and the grid, never on what is free: a job
///   waits for such a prism rather than taking more base partitions because of fragmentation
///   (on 8x4x4, 5 gives 5x1x1; 9 gives 1x3x3, 3x1x3, 3x3x1). A count of 0 gives no shape.
std::vector<coord3> candidate_shapes(const coord3& dims, const torus_request& req);

/// Whether `a` wraps around the grid of `dims` in some dimension (origin + size > dims).
bool wraps(const coord3& dims, const torus_allocation& a);

/// Parses a geometry `AxBxC` (also `A,B,C`; `X` as well as `x`), each value 1..max_torus_dim,
/// for --geometry and for the grid itself. Error: errc::invalid_request, with a text that
/// quotes the input and says the expected form.
shoal::expected<coord3> parse_geometry(std::string_view text);

/// `AxBxC`, as parse_geometry reads it.
std::string format_geometry(const coord3& g);

/// Parses --conn-type: `mesh` or `torus`, any case (as Slurm's MESH, TORUS). Error:
/// errc::invalid_request naming the accepted values.
shoal::expected<conn_type> parse_conn_type(std::string_view text);

/// Parses --node-use: `coprocessor` or `virtual`, any case (as Slurm's COPROCESSOR, VIRTUAL).
/// Error: errc::invalid_request naming the accepted values.
shoal::expected<node_use> parse_node_use(std::string_view text);

/// `mesh` / `torus`, as parse_conn_type reads it.
const char* to_string(conn_type c);

/// `coprocessor` / `virtual`, as parse_node_use reads it.
const char* to_string(node_use u);

/// Slurm's name of a base partition: `prefix` plus one base-36 digit (0-9, A-Z) per dimension
/// (bgl000, bgl733). Precondition: every coordinate in 0..35.
std::string torus_node_name(const std::string& prefix, const coord3& c);

/// The box form of an allocation, as Slurm's hostlist_ranged_string prints a 3-D node set:
/// `bgl[000x011]` for a prism that does not wrap; a single node is its plain name (`bgl123`,
/// no brackets, as Slurm prints it). A wrapping prism is one box per unwrapped piece, pieces
/// sorted by lowest corner (x, then y, then z), comma-separated in one bracket, a one-node piece
/// written as its digits alone: `bgl[000x011,700x711]`, `bgl[000,700]`. A dimension the prism
/// spans entirely is one piece whatever its origin. Precondition as for torus_map::nodes_of.
std::string box_expression(const std::string& prefix, const coord3& dims,
                           const torus_allocation& a);

/// Names of base partitions compressed in Blue Gene/L's box form, as its sinfo printed a
/// partition's or a state's nodes: `bgl[000x133,200]`. The names are covered greedily with
/// boxes: from the lowest name not yet covered (x, then y, then z order), the longest run in z,
/// then as many y rows of that run as are all named, then as many x planes of that rectangle;
/// a one-node box is its digits alone, boxes are listed in the order they were made. Nullopt
/// when a name is not `prefix` plus three base-36 digits inside `dims` (the caller then prints
/// an ordinary hostlist). Duplicates count once; an empty list gives "".
std::optional<std::string> box_hostlist(const std::string& prefix, const coord3& dims,
                                        const std::vector<std::string>& names);

}  // namespace shoal::topology
