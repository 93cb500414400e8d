#pragma once

#include <string_view>
#include <type_traits>
#include <vector>

#include "messages/types.hpp"

namespace shoal::msg {

namespace detail {

template <class T>
struct is_wire_struct_list : std::false_type {};
template <class T>
struct is_wire_struct_list<std::vector<T>> : std::bool_constant<is_wire_struct_v<T>> {};

}  // namespace detail

/// True when every field of `a` and `b` is equal (nested structs field by field), the top-level
/// field named `skip` excepted. Walks the generated field list, so a field added to the schema
/// is compared without anyone listing it here.
template <class T>
bool same_fields(const T& a, const T& b, std::string_view skip = {}) {
  bool same = true;
  wire_fields<T>::visit([&](const char* name, auto member) {
    if (!same || skip == name) return;
    using M = std::decay_t<decltype(a.*member)>;
    const auto& x = a.*member;
    const auto& y = b.*member;
    if constexpr (is_wire_struct_v<M>) {
      same = same_fields(x, y);
    } else if constexpr (detail::is_wire_struct_list<M>::value) {
      same = x.size() == y.size();
      for (size_t i = 0; same && i < x.size(); ++i) same = same_fields(x[i], y[i]);
    } else {
      same = x == y;
    }
  });
  return same;
}

}  // namespace shoal::msg
