// Fuzz target for the interconnect's opaque bytes (interconnect/elan.hpp): a step's switch
// data as shoal-stepd reads it from a launch, and switch/elan's saved state as a restarted
// controller reads it from StateSaveLocation. The first input byte picks which (even: switch
// data, odd: saved state), the rest is the buffer. Switch data either fails with
// malformed_message or decodes to what encodes back to the same bytes. A saved state either
// fails with malformed_message or restores a plugin that still allocates, with a program
// description no lower than the state's. Built as a libFuzzer binary with clang
// (scripts/fuzz.sh) and, with any compiler, into switch_data_fuzz_replay (mutation_driver.cpp),
// which ctest runs.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "interconnect/elan.hpp"
#include "messages/errc.hpp"
#include "test/fuzz/violated.hpp"

namespace {

[[noreturn]] void violated(const uint8_t* data, size_t size, const char* what,
                           const std::string& detail) {
  shoal::fuzz::violated("switch_data", {reinterpret_cast<const char*>(data), size}, what, detail);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace shoal::interconnect;
  if (size == 0) return 0;
  std::vector<uint8_t> bytes(data + 1, data + size);
  if (data[0] % 2 == 0) {
    auto decoded = decode_elan_data(bytes);
    if (!decoded) {
      if (decoded.error() != shoal::errc::malformed_message)
        violated(data, size, "switch data refused with another code",
                 shoal::describe(decoded.error()));
      return 0;
    }
    if (encode_elan_data(*decoded) != bytes)
      violated(data, size, "switch data does not encode back to its bytes", "");
    return 0;
  }
  elan_settings settings;
  settings.ids = {{"n0", 0}};
  elan_switch sw{settings};
  auto err = sw.restore_state(bytes, {{5, 0}, {6, 0xfffffffe}});
  if (err) {
    if (err != shoal::errc::malformed_message)
      violated(data, size, "saved state refused with another code", shoal::describe(err));
    return 0;
  }
  auto before = sw.next_program();
  step_request req;
  req.job_id = 99;
  req.nodes = {"n0"};
  auto allocated = sw.allocate(req);
  // A state may hold every context or the last program description: exhaustion is an answer.
  if (!allocated) {
    if (allocated.error() != shoal::errc::unsatisfiable)
      violated(data, size, "allocate after restore failed", shoal::describe(allocated.error()));
    return 0;
  }
  auto step = decode_elan_data(*allocated);
  if (!step || step->program != before)
    violated(data, size, "allocate after restore gave another program description", "");
  return 0;
}
