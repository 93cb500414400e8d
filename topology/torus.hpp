#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

/// The allocation map of a 3-D torus of base partitions: which are available (usable and not
/// allocated). Pure: no actors, no clock. Node indices are x * Y * Z + y * Z + z, the order in
/// which the box form `bgl[000x733]` expands.
class torus_map {
 public:
  explicit torus_map(coord3 dims);

  const coord3& dims() const { return dims_; }
  size_t size() const { return available_.size(); }
  size_t index_of(const coord3& c) const;
  coord3 coord_of(size_t index) const;

  void set_available(size_t index, bool available);
  bool available(size_t index) const { return available_[index]; }

  /// The placement for `req` among available nodes, or nullopt when none fits. Valid
  /// placements are prisms of the requested geometry (any axis permutation unless !rotate; for
  /// a count, the smallest-volume prisms holding at least `node_count`) whose every node is
  /// available, wrapping only when req.conn is torus. Among valid placements the one that
  /// leaves the largest free prism intact is chosen (ties: lowest index of origin).
  std::optional<torus_allocation> place(const torus_request& req) const;

  /// Node indices of `a`, ascending.
  std::vector<size_t> nodes_of(const torus_allocation& a) const;

 private:
  coord3 dims_;
  std::vector<bool> available_;
};

/// Slurm's name of a base partition: `prefix` plus one base-36 digit (0-9, A-Z) per dimension
/// (bgl000, bgl733).
std::string torus_node_name(const std::string& prefix, const coord3& c);

/// The box form of an allocation: `bgl[000x011]`, or a list of boxes `bgl[700x711,000x011]`
/// when the prism wraps (one box per unwrapped piece, lowest corner first).
std::string box_expression(const std::string& prefix, const coord3& dims,
                           const torus_allocation& a);

}  // namespace shoal::topology
