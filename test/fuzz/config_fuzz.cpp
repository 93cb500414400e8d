// Fuzz target for the config parser (config/config.hpp): any text either fails with an
// invalid_config error whose text starts with the file name and ':', or parses to a cluster whose
// rendering (render_config, without its header line) parses again, to a cluster that renders the
// same. A violated property aborts with the input shown. Built as a libFuzzer binary with clang
// (scripts/fuzz.sh) and, with any compiler, into config_fuzz_replay (mutation_driver.cpp), which
// ctest runs.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "config/config.hpp"
#include "config/config_syntax.hpp"
#include "messages/errc.hpp"
#include "test/fuzz/violated.hpp"
#include "topology/hostlist.hpp"

namespace {

/// Longer inputs are skipped: they reach no more of the parser, only slow the run down.
constexpr size_t max_config_bytes = 4096;

/// `NodeName=n[1-1000][1-1000]` declares a million nodes, which the parser takes seconds (under
/// ASan, longer than libFuzzer's timeout) and a gigabyte to build. Inputs declaring more nodes
/// than this are skipped, so that one input stays fast: more nodes run the same code.
constexpr size_t max_declared_nodes = 4096;

const std::string config_file = "fuzz.conf";

/// Never exists, so a relative NodeSpecConf=/PartitionConf=, or an absolute one falling back to
/// its base name beside the main file, reads nothing from the host.
const std::string missing_base_dir = "/nonexistent/shoal-config-fuzz";

[[noreturn]] void violated(std::string_view input, const char* what, const std::string& detail) {
  shoal::fuzz::violated("config", input, what, detail);
}

/// Calls `visit` with the pairs of each line, split as the parser splits them, until it returns
/// true; returns whether one did.
template <class Visit>
bool any_line(const std::string& text, Visit&& visit) {
  size_t pos = 0;
  while (pos <= text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    auto line = std::string_view{text}.substr(pos, end - pos);
    if (visit(shoal::config::config_syntax::split_line(line).pairs)) return true;
    pos = end + 1;
  }
  return false;
}

/// Counts the names of NodeName= and seed Name= lines as the parser will expand them, up to the
/// first line that takes the count past the limit.
bool declares_too_many_nodes(const std::string& text) {
  size_t declared = 0;
  return any_line(text, [&](const auto& pairs) {
    if (pairs.empty() || (pairs.front().lower != "nodename" && pairs.front().lower != "name"))
      return false;
    if (auto names = shoal::topology::expand_hostlist(pairs.front().value))
      declared += names->size();
    return declared > max_declared_nodes;
  });
}

/// An absolute NodeSpecConf=/PartitionConf= path is read as it is, and one that exists could be
/// /dev/zero or the host's own config: such inputs are skipped.
bool includes_existing_file(const std::string& text) {
  return any_line(text, [](const auto& pairs) {
    for (const auto& pair : pairs) {
      if (pair.lower != "nodespecconf" && pair.lower != "partitionconf") continue;
      std::filesystem::path path{pair.value};
      std::error_code ec;
      if (path.is_absolute() && std::filesystem::exists(path, ec)) return true;
    }
    return false;
  });
}

std::string rendered_body(const shoal::config::cluster_config& cfg) {
  auto text = shoal::config::render_config(cfg);
  return text.substr(text.find('\n') + 1);
}

void check(const std::string& text) {
  auto cfg = shoal::config::parse_config(text, config_file, missing_base_dir);
  if (!cfg) {
    auto what = shoal::describe(cfg.error());
    if (cfg.error() != shoal::errc::invalid_config)
      violated(text, "an error other than invalid_config", what);
    if (what.compare(0, config_file.size() + 1, config_file + ":") != 0)
      violated(text, "an error that does not start with the file name", what);
    return;
  }
  auto body = rendered_body(*cfg);
  auto again = shoal::config::parse_config(body, config_file, missing_base_dir);
  if (!again)
    violated(text, "the rendered config does not parse",
             shoal::describe(again.error()) + "\n  rendered:\n" + body);
  if (auto body_again = rendered_body(*again); body_again != body)
    violated(text, "the rendered config parses to another cluster",
             "rendered:\n" + body + "\n  rendered again:\n" + body_again);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > max_config_bytes) return 0;
  std::string text{reinterpret_cast<const char*>(data), size};
  try {
    if (includes_existing_file(text) || declares_too_many_nodes(text)) return 0;
    check(text);
  } catch (const std::exception& e) {
    violated(text, "the parser throws", e.what());
  } catch (...) {
    violated(text, "the parser throws", "(not a std::exception)");
  }
  return 0;
}
