// Fuzz target for the PMI wire (process/pmi_wire.hpp): what a rank writes to PMI_FD is
// untrusted input to shoal-stepd. The first input byte picks the reader of the rest: 0, a PMI-1
// line; 1, a PMI-2 command body; 2, the stream reader fed in pieces; 3, a node's KVS blob.
// Parsed commands format back into what parses to the same command; the reader never returns a
// message past pmi_max_message and keeps failing after its first error; a blob either merges or
// fails with malformed_message. Built as a libFuzzer binary with clang (scripts/fuzz.sh) and,
// with any compiler, into pmi_wire_fuzz_replay (mutation_driver.cpp), which ctest runs.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "messages/errc.hpp"
#include "process/pmi_wire.hpp"
#include "test/fuzz/violated.hpp"

namespace {

[[noreturn]] void violated(const uint8_t* data, size_t size, const char* what,
                           const std::string& detail) {
  shoal::fuzz::violated("pmi_wire", {reinterpret_cast<const char*>(data), size}, what, detail);
}

bool same(const shoal::process::pmi_command& a, const shoal::process::pmi_command& b) {
  return a.name == b.name && a.args == b.args;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace shoal::process;
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: {
      auto cmd = parse_pmi1(rest);
      // A '\n' inside a line cannot come from the reader, and format_pmi1 would replace it.
      if (!cmd || rest.find('\n') != std::string_view::npos) return 0;
      auto text = format_pmi1(*cmd);
      auto back = parse_pmi1(std::string_view(text).substr(0, text.size() - 1));
      if (!back || !same(*cmd, *back))
        violated(data, size, "a PMI-1 line does not round-trip", text);
      return 0;
    }
    case 1: {
      auto cmd = parse_pmi2(rest);
      if (!cmd) return 0;
      auto text = format_pmi2(*cmd);
      auto back = parse_pmi2(std::string_view(text).substr(6));
      if (!back || !same(*cmd, *back))
        violated(data, size, "a PMI-2 command does not round-trip", text);
      return 0;
    }
    case 2: {
      pmi_reader reader;
      std::string out;
      bool failed = false;
      // Bytes below 4 cut the input into pieces; 3 also switches to PMI-2 framing.
      size_t start = 0;
      for (size_t i = 0; i <= rest.size(); ++i) {
        if (i < rest.size() && static_cast<unsigned char>(rest[i]) >= 4) continue;
        reader.append(rest.substr(start, i - start));
        if (i < rest.size() && rest[i] == 3) reader.set_wire(pmi_wire::v2);
        start = i + 1;
        for (;;) {
          auto st = reader.next(out);
          if (st == pmi_reader::status::need_more) break;
          if (st == pmi_reader::status::error) {
            failed = true;
            break;
          }
          if (failed) violated(data, size, "a message after an error", out);
          if (out.size() > pmi_max_message) violated(data, size, "an oversized message", "");
        }
      }
      return 0;
    }
    default: {
      pmi_kvs kvs;
      auto err = kvs.merge({std::string(rest)});
      if (err && err != shoal::errc::malformed_message)
        violated(data, size, "a blob refused with another code", shoal::describe(err));
      return 0;
    }
  }
}
