#pragma once

// Real directories for the state store tests: a private temp dir per test, removed afterwards,
// and the damage a disk or a crash can do to a file.

#include <boost/test/unit_test.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "state/frame.hpp"
#include "state/records.hpp"

namespace shoal::test {

struct state_dirs {
  std::filesystem::path root;
  std::string primary;
  std::string secondary;

  state_dirs() {
    std::string pattern = (std::filesystem::temp_directory_path() / "shoal-state-XXXXXX").string();
    BOOST_REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    root = pattern;
    primary = (root / "primary").string();
    secondary = (root / "secondary").string();
  }
  ~state_dirs() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }

  std::vector<std::string> both() const { return {primary, secondary}; }
};

inline state::value_ptr value(const std::string& text) {
  return state::make_value(text);
}

inline std::string text(const state::value_ptr& v) {
  return v ? std::string{v->begin(), v->end()} : std::string{"<null>"};
}

inline std::vector<uint8_t> bytes_of(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void flip_byte(const std::string& path, size_t offset) {
  std::fstream f{path, std::ios::in | std::ios::out | std::ios::binary};
  BOOST_REQUIRE(f);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x5A));
}

inline void truncate_to(const std::string& path, size_t size) {
  std::filesystem::resize_file(path, size);
}

/// The intact frames of a state file (journal or snapshot).
inline std::vector<state::frame_view> frames_of(const std::vector<uint8_t>& data, bool journal) {
  return state::scan_frames(data.data(), data.size(),
                            journal ? state::journal_magic : state::snapshot_magic)
      .frames;
}

/// True when some warning contains every one of `parts`.
inline bool warned(const std::vector<std::string>& warnings,
                   const std::vector<std::string>& parts) {
  for (auto& w : warnings) {
    bool all = true;
    for (auto& p : parts) all = all && w.find(p) != std::string::npos;
    if (all) return true;
  }
  return false;
}

}  // namespace shoal::test
