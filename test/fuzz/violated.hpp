#pragma once

// How a fuzz target reports a violated property: what failed, the input (printable bytes as
// they are, the rest escaped), the detail, then abort() so libFuzzer keeps the input.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace shoal::fuzz {

[[noreturn]] inline void violated(const char* target, std::string_view input, const char* what,
                                  const std::string& detail) {
  std::fprintf(stderr, "%s fuzz: %s\n  input (%zu bytes): '", target, what, input.size());
  for (unsigned char c : input) {
    if (c >= 0x20 && c < 0x7f && c != '\'')
      std::fputc(c, stderr);
    else
      std::fprintf(stderr, "\\x%02x", c);
  }
  std::fprintf(stderr, "'\n  %s\n", detail.c_str());
  std::abort();
}

}  // namespace shoal::fuzz
