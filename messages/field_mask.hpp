#pragma once

// Which fields of a generated message struct a reader needs: bit n stands for the struct's field
// @n in shoal.capnp. A listing request carries the mask of what its format, filters and sort
// read (ClientRequest.jobFields), and the controller copies only those fields into the records
// it encodes, so `squeue -o %i,%t` after thousands of jobs neither copies nor ships their
// commands, paths and usage.

#include <cstdint>
#include <type_traits>

#include "messages/types.hpp"

namespace shoal::msg {

using field_mask = uint64_t;

/// Every field. On the wire a mask of 0 means the same (what an older client sends); fields from
/// @63 on are always copied, as bit 63 cannot tell them apart.
inline constexpr field_mask all_fields = ~field_mask{0};

namespace detail {

template <class T, class M>
field_mask field_bit(M T::*member) {
  field_mask bit = 0;
  unsigned ordinal = 0;
  wire_fields<T>::visit([&](const char*, auto candidate) {
    if constexpr (std::is_same_v<decltype(candidate), M T::*>)
      if (candidate == member) bit = field_mask{1} << (ordinal < 63 ? ordinal : 63);
    ++ordinal;
  });
  return bit;
}

}  // namespace detail

/// The mask of the named members: `fields_of(&job_info::job_id, &job_info::state)`.
template <class T, class... M>
field_mask fields_of(M T::*... members) {
  return (field_mask{0} | ... | detail::field_bit(members));
}

/// `from` with only the fields of `mask` (the others as a new T has them). Masks of 0 and
/// all_fields copy it whole.
template <class T>
T copy_fields(const T& from, field_mask mask) {
  if (mask == 0 || mask == all_fields) return from;
  T to;
  unsigned ordinal = 0;
  wire_fields<T>::visit([&](const char*, auto member) {
    if (mask & (field_mask{1} << (ordinal < 63 ? ordinal : 63))) to.*member = from.*member;
    ++ordinal;
  });
  return to;
}

}  // namespace shoal::msg
