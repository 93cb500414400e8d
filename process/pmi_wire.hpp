#pragma once

// The PMI-1 and PMI-2 wire protocols a rank speaks over PMI_FD, as MPICH's simple PMI clients
// and Slurm's libpmi/libpmi2 write them, and the key-value space they share: the pure half of
// pmi2_server (no descriptors, no clock), so every byte of it is testable alone.
//
// Every connection opens with a PMI-1 line, "cmd=init pmi_version=V pmi_subversion=S\n".
// Version 1 goes on with lines of space-separated key=value pairs ("cmd=put kvsname=K key=k
// value=v\n"); version 2 with commands framed by a 6-character decimal length, left-aligned and
// space-padded, then "cmd=NAME;key=value;...;" with ';' inside a value doubled.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "messages/errc.hpp"

namespace shoal::process {

// -- limits ---------------------------------------------------------------------------------

/// The longest key and value a rank may put (get_maxes' keylen_max and vallen_max, PMI-2's
/// PMI2_MAX_KEYLEN and PMI2_MAX_VALLEN: what MPICH's clients and Slurm's server use).
inline constexpr size_t pmi_max_key = 64;
inline constexpr size_t pmi_max_value = 1024;
/// get_maxes' kvsname_max.
inline constexpr size_t pmi_max_kvsname = 256;
/// The longest PMI-1 line or PMI-2 command accepted, framing excluded: a put of the longest
/// value with every character escaped fits; longer input is an error, never a bigger buffer.
inline constexpr size_t pmi_max_message = 4 * pmi_max_value;
/// Bytes every rank of a node may put between two fences, together.
inline constexpr size_t pmi_max_pending = 64u << 20;

/// The two wire protocols. A connection speaks PMI-1 until its init asks for version 2.
enum class pmi_wire { v1, v2 };

// -- commands -------------------------------------------------------------------------------

/// One command or answer: `cmd`'s value and the other pairs, in order.
struct pmi_command {
  std::string name;
  std::vector<std::pair<std::string, std::string>> args;

  /// The value of the first `key`, or nullptr.
  const std::string* find(std::string_view key) const;
  /// Appends key=value; returns *this for chaining.
  pmi_command& add(std::string key, std::string value);
};

/// Parses one PMI-1 line, its '\n' already removed: key=value pairs separated by spaces, the
/// first "cmd=NAME" (or "mcmd=NAME", a spawn's first line, with name "mcmd:NAME"). Errors
/// (errc::malformed_message, the text saying what is wrong): empty, a pair without '=' or
/// with an empty key, no cmd first.
shoal::expected<pmi_command> parse_pmi1(std::string_view line);

/// Parses one PMI-2 command body (after its length): "cmd=NAME;" then key=value; pairs, ";;"
/// standing for ';' in a value. Same errors as parse_pmi1, plus a pair without its ';'.
shoal::expected<pmi_command> parse_pmi2(std::string_view body);

/// "cmd=NAME k=v ...\n". PMI-1 has no escapes: a space or newline in a value would split it,
/// so each becomes '_'.
std::string format_pmi1(const pmi_command& cmd);

/// The length-framed "cmd=NAME;k=v;...;", ';' in values doubled.
std::string format_pmi2(const pmi_command& cmd);

/// Either, as `wire` says.
std::string format_pmi(pmi_wire wire, const pmi_command& cmd);

// -- reading --------------------------------------------------------------------------------

/// Splits a connection's bytes, as they arrive in pieces, into whole PMI-1 lines or PMI-2
/// command bodies. After an error nothing more comes out: the stream cannot be resynchronized.
class pmi_reader {
 public:
  enum class status {
    need_more,  ///< no whole message yet
    message,    ///< `out` holds the next one
    error,      ///< `out` says why (too long, a bad length field)
  };

  /// Appends received bytes.
  void append(std::string_view bytes) { buffer_.append(bytes.data(), bytes.size()); }

  /// Takes the next whole message, framed as `wire()` says, into `out`.
  status next(std::string& out);

  /// How the following messages are framed (a connection switches after its init).
  void set_wire(pmi_wire wire) { wire_ = wire; }
  pmi_wire wire() const { return wire_; }

  /// Bytes received and not taken yet.
  size_t buffered() const { return buffer_.size() - consumed_; }

 private:
  std::string buffer_;
  size_t consumed_ = 0;
  pmi_wire wire_ = pmi_wire::v1;
  bool failed_ = false;
};

// -- the key-value space --------------------------------------------------------------------

/// A step's KVS as one node holds it: what every rank put before the last fence, from every
/// node, plus this node's puts since, which only the next fence makes visible (as Slurm's pmi2
/// server does: a rank reads what others put only after a fence anyway).
class pmi_kvs {
 public:
  /// Records a put for the next fence. Errors (errc::invalid_request): an empty or too long key
  /// or value, more than pmi_max_pending bytes waiting.
  shoal::error put(std::string key, std::string value);

  /// The value of `key` as of the last fence, or nullptr.
  const std::string* get(std::string_view key) const;

  /// This node's puts since the last fence, encoded as merge reads them, and forgets them.
  std::string take_pending();

  /// Adds every node's contribution to a fence (take_pending's blobs); a later put of a key
  /// overrides. Errors (errc::malformed_message): a blob that does not decode; what decoded
  /// before it stays.
  shoal::error merge(const std::vector<std::string>& blobs);

  size_t size() const { return values_.size(); }

 private:
  std::map<std::string, std::string, std::less<>> values_;
  std::vector<std::pair<std::string, std::string>> pending_;
  size_t pending_bytes_ = 0;
};

// -- job attributes -------------------------------------------------------------------------

/// PMI_process_mapping, as MPICH parses it, for ranks whose nodes are `rank_nodes` (node index
/// per rank, in rank order): "(vector,(N,C,K),...)", each triple K ranks on each of the C nodes
/// from N on, in turn. A block map is one triple per run of nodes with equal counts
/// ("(vector,(0,2,2))" for 2+2), a cyclic one a triple per round. Empty for no ranks, and
/// past 512 bytes, more than MPICH's PMI-1 client reads whole (it then compares host names).
std::string pmi_process_mapping(const std::vector<uint32_t>& rank_nodes);

}  // namespace shoal::process
