// Fuzz target for the CLI's job option parser (tools/cli/job_options.hpp, batch_script.hpp): the
// input is read as a batch script whose #SHOAL/#SBATCH directives are parsed as `shoal batch`
// parses them, then its first line as the words of a `shoal run` command line. Either CLI11
// refuses the words (CLI::ParseError, a usage error) or build_request answers a request or an
// errc::invalid_request/invalid_time error; nothing else may happen. A violated property aborts
// with the input shown. Built as a libFuzzer binary with clang (scripts/fuzz.sh) and, with any
// compiler, into job_options_fuzz_replay (mutation_driver.cpp), which ctest runs.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "messages/errc.hpp"
#include "test/fuzz/violated.hpp"
#include "tools/cli/batch_script.hpp"
#include "tools/cli/job_options.hpp"

namespace {

constexpr size_t max_input_bytes = 4096;

[[noreturn]] void violated(std::string_view input, const char* what, const std::string& detail) {
  shoal::fuzz::violated("job_options", input, what, detail);
}

/// Parses `words` as the options of `shoal batch` (or `shoal run`) and builds the request.
void parse_and_build(std::string_view input, std::vector<std::string> words, bool batch) {
  CLI::App app{"fuzz"};
  shoal::cli::job_options options;
  shoal::cli::add_job_options(app, options, batch);
  app.allow_extras();
  std::vector<std::string> reversed(words.rbegin(), words.rend());  // CLI11 parses from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError&) {
    return;  // a usage error, as the CLI reports it
  }
  auto req = shoal::cli::build_request(options, {"true"}, batch);
  if (req) return;
  const auto& err = req.error();
  if (err != shoal::errc::invalid_request && err != shoal::errc::invalid_time)
    violated(input, "build_request failed with an unexpected error", shoal::describe(err));
  if (shoal::describe(err).empty()) violated(input, "an error without a text", "");
}

/// The words of `line`, split on blanks (no quoting: the directive reader's own is fuzzed above).
std::vector<std::string> words_of(std::string_view line) {
  std::vector<std::string> out;
  std::string word;
  for (char c : line) {
    if (c == ' ' || c == '\t') {
      if (!word.empty()) out.push_back(std::move(word));
      word.clear();
    } else {
      word.push_back(c);
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > max_input_bytes) return 0;
  std::string input(reinterpret_cast<const char*>(data), size);
  try {
    parse_and_build(input, shoal::cli::script_directives(input), true);
    auto newline = input.find('\n');
    parse_and_build(input, words_of(std::string_view{input}.substr(0, newline)), false);
  } catch (const std::exception& e) {
    violated(input, "an exception escaped the option parser", e.what());
  }
  return 0;
}
