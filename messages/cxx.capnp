@0xdb129e5c733fd79a;
# Annotations read by messages/wire_gen.cpp, the generator of the C++ message structs, their field
# visitor and their codec from messages/shoal.capnp. They say what the schema cannot: how a field
# looks in C++ when that is not the schema type's plain counterpart. They change no encoding.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("shoal::wire::cxx");

annotation name @0xeae3d9451c0fa7b1 (struct, field, enum) :Text;
# The C++ name, when the snake_case form of the schema name (NodeInfo -> node_info,
# realMemoryMb -> real_memory_mb) will not do.

annotation type @0xe6e8f80a202623d5 (field, enum) :Text;
# On a field: the C++ member type, when it is not the schema type's own (Text: std::string, Data:
# std::vector<uint8_t>, List(T): std::vector<T>, a struct: its C++ struct). The codec converts with
# the to_wire/from_wire overloads of messages/wire_convert.hpp, so a new type needs one pair there.
# A value that does not convert (an unknown state name) leaves the member at its initializer.
# On an enum: the C++ enum's underlying type, e.g. "uint8_t" for an enum whose values travel in a
# UInt8 field (default uint16_t, an enum's width on the wire). The generator fails when a value
# does not fit.

annotation init @0xafa87afecbfb9e48 (field) :Text;
# The C++ member's initializer, with `type`, e.g. "node_state::unknown". It must be what the
# field's schema default converts to.

annotation includes @0xc64d87ad49d529d9 (file) :List(Text);
# Headers the generated structs need for the types named by `type`.
