// A capnp compiler plugin: reads a CodeGeneratorRequest on stdin and writes, next to the
// requested file's path under the output directory,
//   wire_types.hpp  the C++ struct of each schema struct (namespace shoal::msg, snake_case names,
//                   the schema defaults as initializers), each primitive const, each enum with its
//                   count and names (E_count, E_names, to_string), the field visitor
//                   (wire_fields<T>, for_each_field) and SHOAL_WIRE_STRUCTS, an X-macro list;
//   wire_codec.cpp  fill/read between those structs and the capnp builders and readers, and each
//                   struct's encode/decode (messages/codec.hpp).
// messages/cxx.capnp holds the annotations it reads. Run by messages/CMakeLists.txt as
//   capnp compile -o<this>:<outdir> --src-prefix=<root> messages/shoal.capnp

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <capnp/schema-loader.h>
#include <capnp/schema.capnp.h>
#include <capnp/schema.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

namespace {

// The ids of messages/cxx.capnp's annotations.
constexpr uint64_t name_annotation = 0xeae3d9451c0fa7b1ull;
constexpr uint64_t type_annotation = 0xe6e8f80a202623d5ull;
constexpr uint64_t init_annotation = 0xafa87afecbfb9e48ull;
constexpr uint64_t includes_annotation = 0xc64d87ad49d529d9ull;

using annotations = capnp::List<capnp::schema::Annotation>::Reader;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what);
}

std::string text_annotation(annotations list, uint64_t id) {
  for (auto a : list)
    if (a.getId() == id) return a.getValue().getText();
  return {};
}

/// realMemoryMb -> real_memory_mb, NodeInfo -> node_info.
std::string snake_case(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    if (std::isupper(c)) {
      if (i != 0) out += '_';
      out += static_cast<char>(std::tolower(c));
    } else {
      out += name[i];
    }
  }
  return out;
}

/// nodeName -> NodeName, as capnp's C++ accessors spell it (getNodeName).
std::string capitalized(std::string name) {
  name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  return name;
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out + '"';
}

/// An unsigned initializer; past INT32_MAX with a suffix, so no literal is too large for int.
std::string unsigned_literal(uint64_t v) {
  return std::to_string(v) + (v > 0x7fffffffu ? "u" : "");
}

/// A doc comment as `///` lines at `indent`.
std::string doc_lines(const std::string& doc, const std::string& indent) {
  std::string out;
  std::istringstream in{doc};
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += indent + (line.empty() ? "///" : "/// " + line) + "\n";
  }
  return out;
}

// -- the model ------------------------------------------------------------------------------------

enum class kind { scalar, text, data, scalar_list, struct_list, nested };

struct field_model {
  std::string schema_name;  // nodeName
  std::string name;         // node_name
  std::string type;         // C++ member type
  std::string init;         // C++ initializer, empty: none
  std::string doc;
  kind k = kind::scalar;
};

struct struct_model {
  uint64_t id = 0;
  std::string schema_name;  // NodeInfo
  std::string name;         // node_info
  std::string doc;
  std::vector<field_model> fields;
  std::vector<uint64_t> uses;  // structs its fields hold
};

struct enumerant_model {
  std::string name;  // job_control
  std::string doc;
};

struct enum_model {
  std::string name;        // client_op
  std::string underlying;  // uint8_t
  std::string doc;
  std::vector<enumerant_model> values;  // by value (capnp numbers enumerants 0, 1, 2, ...)
};

struct generator {
  capnp::SchemaLoader loader;
  std::map<uint64_t, std::string> docs;
  std::map<uint64_t, std::vector<std::string>> member_docs;

  std::string struct_name(capnp::StructSchema s) {
    auto proto = s.getProto();
    auto name = text_annotation(proto.getAnnotations(), name_annotation);
    return name.empty() ? snake_case(s.getShortDisplayName()) : name;
  }

  std::string scalar_type(capnp::schema::Type::Which w) {
    using T = capnp::schema::Type;
    switch (w) {
      case T::BOOL:
        return "bool";
      case T::INT8:
        return "int8_t";
      case T::INT16:
        return "int16_t";
      case T::INT32:
        return "int32_t";
      case T::INT64:
        return "int64_t";
      case T::UINT8:
        return "uint8_t";
      case T::UINT16:
        return "uint16_t";
      case T::UINT32:
        return "uint32_t";
      case T::UINT64:
        return "uint64_t";
      case T::FLOAT32:
        return "float";
      case T::FLOAT64:
        return "double";
      default:
        return {};
    }
  }

  /// The schema default of a scalar field as a C++ initializer.
  std::string scalar_init(capnp::schema::Value::Reader v) {
    using V = capnp::schema::Value;
    switch (v.which()) {
      case V::BOOL:
        return v.getBool() ? "true" : "false";
      case V::INT8:
        return std::to_string(v.getInt8());
      case V::INT16:
        return std::to_string(v.getInt16());
      case V::INT32:
        return std::to_string(v.getInt32());
      case V::INT64:
        return std::to_string(v.getInt64());
      case V::UINT8:
        return std::to_string(v.getUint8());
      case V::UINT16:
        return std::to_string(v.getUint16());
      case V::UINT32:
        return unsigned_literal(v.getUint32());
      case V::UINT64:
        return unsigned_literal(v.getUint64());
      case V::FLOAT32:
      case V::FLOAT64: {
        std::ostringstream out;
        out.precision(17);
        out << (v.which() == V::FLOAT32 ? v.getFloat32() : v.getFloat64());
        return out.str();
      }
      default:
        fail("not a scalar default");
    }
  }

  field_model field(const std::string& owner, capnp::StructSchema::Field f, std::string doc,
                    std::vector<uint64_t>& uses) {
    auto proto = f.getProto();
    field_model m;
    m.schema_name = proto.getName();
    m.doc = std::move(doc);
    auto where = owner + "." + m.schema_name;
    if (!proto.isSlot()) fail(where + ": groups are not supported");
    auto ann = proto.getAnnotations();
    auto cxx_name = text_annotation(ann, name_annotation);
    m.name = cxx_name.empty() ? snake_case(m.schema_name) : cxx_name;
    auto type = f.getType();
    auto def = proto.getSlot().getDefaultValue();
    bool explicit_default = proto.getSlot().getHadExplicitDefault();
    using T = capnp::schema::Type;
    switch (type.which()) {
      case T::TEXT:
        m.k = kind::text;
        m.type = "std::string";
        if (explicit_default && def.getText().size() != 0) m.init = quoted(def.getText());
        break;
      case T::DATA:
        m.k = kind::data;
        m.type = "std::vector<uint8_t>";
        if (explicit_default) fail(where + ": Data defaults are not supported");
        break;
      case T::STRUCT: {
        auto s = type.asStruct();
        m.k = kind::nested;
        m.type = struct_name(s);
        uses.push_back(s.getProto().getId());
        break;
      }
      case T::LIST: {
        auto elem = type.asList().getElementType();
        if (elem.which() == T::STRUCT) {
          m.k = kind::struct_list;
          m.type = "std::vector<" + struct_name(elem.asStruct()) + ">";
          uses.push_back(elem.asStruct().getProto().getId());
        } else if (elem.which() == T::TEXT) {
          m.k = kind::scalar_list;
          m.type = "std::vector<std::string>";
        } else if (auto s = scalar_type(elem.which()); !s.empty()) {
          m.k = kind::scalar_list;
          m.type = "std::vector<" + s + ">";
        } else {
          fail(where + ": lists of this element type are not supported");
        }
        if (explicit_default) fail(where + ": list defaults are not supported");
        break;
      }
      default: {
        auto s = scalar_type(type.which());
        if (s.empty()) fail(where + ": this type is not supported (enum, interface, AnyPointer)");
        m.k = kind::scalar;
        m.type = s;
        m.init = scalar_init(def);
      }
    }
    auto cxx_type = text_annotation(ann, type_annotation);
    auto cxx_init = text_annotation(ann, init_annotation);
    if (!cxx_type.empty()) {
      if (m.k == kind::nested || m.k == kind::struct_list)
        fail(where + ": $type does not apply to struct fields");
      m.type = cxx_type;
      m.init = cxx_init;
    } else if (!cxx_init.empty()) {
      fail(where + ": $init needs $type (the schema default is the initializer)");
    }
    return m;
  }

  struct_model model(capnp::StructSchema s) {
    auto proto = s.getProto();
    struct_model m;
    m.id = proto.getId();
    m.schema_name = s.getShortDisplayName();
    m.name = struct_name(s);
    m.doc = docs[m.id];
    if (proto.getStruct().getDiscriminantCount() != 0) fail(m.schema_name + ": unions unsupported");
    if (proto.getNestedNodes().size() != 0)
      fail(m.schema_name + ": nested declarations unsupported");
    auto& mdocs = member_docs[m.id];
    // Declaration order, which is also the ordinal order of a schema that adds fields at the end.
    std::vector<capnp::StructSchema::Field> fields;
    for (auto f : s.getFields()) fields.push_back(f);
    std::stable_sort(fields.begin(), fields.end(), [](auto& a, auto& b) {
      return a.getProto().getCodeOrder() < b.getProto().getCodeOrder();
    });
    for (auto f : fields) {
      auto i = f.getIndex();
      m.fields.push_back(
          field(m.schema_name, f, i < mdocs.size() ? mdocs[i] : std::string{}, m.uses));
    }
    return m;
  }

  enum_model enum_of(capnp::EnumSchema e) {
    auto proto = e.getProto();
    enum_model m;
    std::string schema_name = e.getShortDisplayName();
    auto cxx_name = text_annotation(proto.getAnnotations(), name_annotation);
    m.name = cxx_name.empty() ? snake_case(schema_name) : cxx_name;
    m.doc = docs[proto.getId()];
    auto cxx_type = text_annotation(proto.getAnnotations(), type_annotation);
    m.underlying = cxx_type.empty() ? "uint16_t" : cxx_type;
    uint64_t limit = m.underlying == "uint8_t" ? 0xffu : m.underlying == "uint16_t" ? 0xffffu : 0;
    if (limit == 0) fail(schema_name + ": $type of an enum is uint8_t or uint16_t");
    auto& mdocs = member_docs[proto.getId()];
    for (auto v : e.getEnumerants()) {
      auto i = v.getOrdinal();
      if (i > limit) fail(schema_name + ": " + std::to_string(i) + " does not fit " + m.underlying);
      m.values.push_back({snake_case(v.getProto().getName()), i < mdocs.size() ? mdocs[i] : ""});
    }
    return m;
  }

  std::string enum_declaration(const enum_model& e) {
    auto count = e.name + "_count";
    std::string out = doc_lines(e.doc, "");
    out += "enum class " + e.name + " : " + e.underlying + " {\n";
    for (size_t i = 0; i < e.values.size(); ++i) {
      out += doc_lines(e.values[i].doc, "  ");
      out += "  " + e.values[i].name + " = " + std::to_string(i) + ",\n";
    }
    out += "};\n\n";
    out += "/// How many values " + e.name + " has: each is below this.\n";
    out += "inline constexpr size_t " + count + " = " + std::to_string(e.values.size()) + ";\n\n";
    out += "/// The name of each " + e.name + " value, by value: the schema's, in snake_case.\n";
    out += "inline constexpr const char* " + e.name + "_names[" + count + "] = {\n";
    for (auto& v : e.values) out += "    " + quoted(v.name) + ",\n";
    out += "};\n\n";
    out += "/// The name of `x` (for logs), or its number when the schema names no such value (a\n";
    out += "/// newer peer's).\n";
    out += "inline std::string to_string(" + e.name + " x) {\n";
    out += "  auto i = static_cast<size_t>(x);\n";
    out += "  return i < " + count + " ? " + e.name + "_names[i] : std::to_string(i);\n}\n\n";
    return out;
  }

  // -- output -------------------------------------------------------------------------------------

  std::string types_header(const std::vector<struct_model>& structs,
                           const std::vector<enum_model>& enums,
                           const std::vector<std::string>& consts,
                           const std::vector<std::string>& includes, const std::string& source) {
    std::string out;
    out += "// Generated from " + source + " by messages/wire_gen.cpp. Do not edit: change the\n";
    out += "// schema (field meanings and units are documented there).\n\n";
    out += "#pragma once\n\n#include <cstddef>\n#include <cstdint>\n#include <string>\n";
    out += "#include <type_traits>\n";
    out += "#include <vector>\n\n";
    for (auto& inc : includes) out += "#include \"" + inc + "\"\n";
    out += "\nnamespace shoal::msg {\n\n";
    for (auto& c : consts) out += c;
    if (!consts.empty()) out += "\n";
    for (auto& e : enums) out += enum_declaration(e);
    for (auto& s : structs) {
      out += doc_lines(s.doc, "");
      out += "struct " + s.name + " {\n";
      for (auto& f : s.fields) {
        out += doc_lines(f.doc, "  ");
        out += "  " + f.type + " " + f.name + (f.init.empty() ? "" : " = " + f.init) + ";\n";
      }
      out += "};\n\n";
    }
    out +=
        R"(// -- field visitor -------------------------------------------------------------------------------

/// The fields of a generated struct: `wire_fields<T>::visit(f)` calls `f(name, &T::member)` for
/// each field in schema order. Defined for the structs above only.
template <class T>
struct wire_fields;

)";
    for (auto& s : structs) {
      out += "template <>\nstruct wire_fields<" + s.name + "> {\n";
      out += "  static constexpr const char* name = \"" + s.name + "\";\n";
      out += "  template <class F>\n  static void visit(F&& f) {\n";
      for (auto& fld : s.fields)
        out += "    f(\"" + fld.name + "\", &" + s.name + "::" + fld.name + ");\n";
      out += "  }\n};\n\n";
    }
    out += R"(/// True for the structs generated from the schema.
template <class T, class = void>
struct is_wire_struct : std::false_type {};

template <class T>
struct is_wire_struct<T, std::void_t<decltype(wire_fields<T>::name)>> : std::true_type {};

template <class T>
constexpr bool is_wire_struct_v = is_wire_struct<T>::value;

/// Calls `f(name, x.member)` for each field of `x` (const or not) in schema order. A nested struct
/// or a list of structs is one member: recurse with is_wire_struct_v where needed.
template <class T, class F>
void for_each_field(T& x, F&& f) {
  wire_fields<std::remove_const_t<T>>::visit(
      [&](const char* name, auto member) { f(name, x.*member); });
}

/// Every generated struct as X(cxx_name, SchemaName), for per-type declarations.
#define SHOAL_WIRE_STRUCTS(X) \
)";
    for (size_t i = 0; i < structs.size(); ++i)
      out += "  X(" + structs[i].name + ", " + structs[i].schema_name + ")" +
             (i + 1 < structs.size() ? " \\\n" : "\n");
    out += "\n}  // namespace shoal::msg\n";
    return out;
  }

  std::string codec_source(const std::vector<struct_model>& structs, const std::string& source,
                           const std::string& capnp_header) {
    std::string out;
    out += "// Generated from " + source + " by messages/wire_gen.cpp. Do not edit.\n\n";
    out += "#include \"" + capnp_header + "\"\n#include \"messages/codec.hpp\"\n";
    out += "#include \"messages/wire_convert.hpp\"\n\nnamespace shoal::msg {\n\nnamespace {\n\n";
    for (auto& s : structs) {
      out += "void fill(wire::" + s.schema_name + "::Builder b, const " + s.name + "& x);\n";
      out += "void read(wire::" + s.schema_name + "::Reader r, " + s.name + "& x);\n";
    }
    for (auto& s : structs) {
      // A struct without fields leaves its parameters unused.
      std::string unused = s.fields.empty() ? "[[maybe_unused]] " : "";
      out += "\nvoid fill(" + unused + "wire::" + s.schema_name + "::Builder b, " + unused +
             "const " + s.name + "& x) {\n";
      for (auto& f : s.fields) {
        auto acc = capitalized(f.schema_name);
        auto m = "x." + f.name;
        switch (f.k) {
          case kind::scalar:
            out += "  b.set" + acc + "(to_wire(" + m + "));\n";
            break;
          case kind::text:
            out += "  b.set" + acc + "(to_text(" + m + "));\n";
            break;
          case kind::data:
            out += "  b.set" + acc + "(to_data(" + m + "));\n";
            break;
          case kind::scalar_list:
            out += "  to_list(b.init" + acc + "(list_size(" + m + ")), " + m + ");\n";
            break;
          case kind::struct_list:
            out += "  {\n    auto list = b.init" + acc + "(list_size(" + m + "));\n";
            out += "    for (unsigned i = 0; i < list.size(); ++i) fill(list[i], " + m + "[i]);\n";
            out += "  }\n";
            break;
          case kind::nested:
            out += "  fill(b.init" + acc + "(), " + m + ");\n";
            break;
        }
      }
      out += "}\n\nvoid read(" + unused + "wire::" + s.schema_name + "::Reader r, " + unused +
             s.name + "& x) {\n";
      for (auto& f : s.fields) {
        auto acc = capitalized(f.schema_name);
        auto m = "x." + f.name;
        switch (f.k) {
          case kind::scalar:
          case kind::text:
          case kind::data:
            out += "  from_wire(r.get" + acc + "(), " + m + ");\n";
            break;
          case kind::scalar_list:
            out += "  from_list(r.get" + acc + "(), " + m + ");\n";
            break;
          case kind::struct_list:
            out += "  {\n    auto list = r.get" + acc + "();\n";
            out += "    " + m + ".clear();\n    " + m + ".resize(list.size());\n";
            out += "    for (unsigned i = 0; i < list.size(); ++i) read(list[i], " + m + "[i]);\n";
            out += "  }\n";
            break;
          case kind::nested:
            out += "  read(r.get" + acc + "(), " + m + ");\n";
            break;
        }
      }
      out += "}\n";
    }
    out += "\n}  // namespace\n";
    for (auto& s : structs) {
      out += "\nstd::vector<char> encode(const " + s.name + "& x) {\n";
      out +=
          "  return encode_message(\n      [&](capnp::MessageBuilder& mb) { "
          "fill(mb.initRoot<wire::" +
          s.schema_name + ">(), x); });\n}\n\n";
      out += "shoal::error decode(const std::vector<char>& buf, " + s.name + "& x) {\n";
      out += "  " + s.name + " result;\n";
      out +=
          "  auto err = decode_message(\n      buf, [&](capnp::MessageReader& mr) { "
          "read(mr.getRoot<wire::" +
          s.schema_name + ">(), result); });\n";
      out += "  if (!err) x = std::move(result);\n  return err;\n}\n";
    }
    out += "\n}  // namespace shoal::msg\n";
    return out;
  }

  /// Structs in schema order, each moved after the structs its fields hold.
  std::vector<struct_model> ordered(std::vector<struct_model> in) {
    std::vector<struct_model> out;
    std::set<uint64_t> done;
    std::set<uint64_t> visiting;
    std::map<uint64_t, const struct_model*> by_id;
    for (auto& s : in) by_id[s.id] = &s;
    std::function<void(const struct_model&)> visit = [&](const struct_model& s) {
      if (done.count(s.id)) return;
      if (!visiting.insert(s.id).second) fail(s.schema_name + ": structs hold each other");
      for (auto id : s.uses) {
        auto it = by_id.find(id);
        if (it == by_id.end()) fail(s.schema_name + ": holds a struct of another file");
        visit(*it->second);
      }
      done.insert(s.id);
      out.push_back(s);
    };
    for (auto& s : in) visit(s);
    return out;
  }

  void write(const std::string& path, const std::string& text) {
    std::ofstream out{path, std::ios::binary | std::ios::trunc};
    out << text;
    if (!out) fail("cannot write " + path);
  }

  void run(capnp::schema::CodeGeneratorRequest::Reader req) {
    for (auto n : req.getNodes()) loader.load(n);
    for (auto si : req.getSourceInfo()) {
      docs[si.getId()] = si.getDocComment();
      auto& list = member_docs[si.getId()];
      for (auto m : si.getMembers()) list.push_back(m.getDocComment());
    }
    for (auto file : req.getRequestedFiles()) {
      std::string filename = file.getFilename();
      auto slash = filename.rfind('/');
      auto dir = slash == std::string::npos ? std::string{} : filename.substr(0, slash + 1);
      auto node = loader.get(file.getId());
      std::vector<std::string> includes;
      for (auto a : node.getProto().getAnnotations())
        if (a.getId() == includes_annotation)
          for (auto inc : a.getValue().getList().getAs<capnp::List<capnp::Text>>())
            includes.push_back(inc);
      std::vector<struct_model> structs;
      std::vector<enum_model> enums;
      std::vector<std::string> consts;
      for (auto nested : node.getProto().getNestedNodes()) {
        auto schema = loader.get(nested.getId());
        auto proto = schema.getProto();
        if (proto.isStruct()) {
          structs.push_back(model(schema.asStruct()));
        } else if (proto.isEnum()) {
          enums.push_back(enum_of(schema.asEnum()));
        } else if (proto.isConst()) {
          auto c = schema.asConst();
          auto type = scalar_type(c.getType().which());
          if (type.empty()) fail(std::string{nested.getName()} + ": only scalar consts");
          auto doc = doc_lines(docs[proto.getId()], "");
          consts.push_back(doc + "inline constexpr " + type + " " + snake_case(nested.getName()) +
                           " = " + scalar_init(proto.getConst().getValue()) + ";\n");
        }
      }
      structs = ordered(std::move(structs));
      write(dir + "wire_types.hpp", types_header(structs, enums, consts, includes, filename));
      write(dir + "wire_codec.cpp", codec_source(structs, filename, filename + ".h"));
    }
  }
};

}  // namespace

int main() {
  try {
    capnp::ReaderOptions options;
    options.traversalLimitInWords = uint64_t{1} << 32;
    capnp::StreamFdMessageReader reader{STDIN_FILENO, options};
    generator{}.run(reader.getRoot<capnp::schema::CodeGeneratorRequest>());
    return 0;
  } catch (const kj::Exception& e) {
    std::fprintf(stderr, "wire_gen: %s\n", e.getDescription().cStr());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wire_gen: %s\n", e.what());
  }
  return 1;
}
