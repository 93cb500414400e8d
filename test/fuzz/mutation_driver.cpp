// A bounded, seeded stand-in for libFuzzer where it is not available (g++): replays the seed
// corpus, then feeds LLVMFuzzerTestOneInput byte-level mutations of it (replace, insert, erase,
// duplicate a span, splice two inputs, swap in a tricky token), keeping mutants that expand as
// parents of later ones. Same seed, same inputs: a failure reproduces with the printed seed.
//
// usage: NAME_fuzz_replay CORPUS_DIR [ITERATIONS [SEED [MAX_INPUT]]]
// MAX_INPUT (default 256, for the text parsers) cuts longer mutants; the message targets pass
// 8192, as scripts/fuzz.sh gives libFuzzer, or every mutant of a real message would be cut.

#include <dirent.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "topology/hostlist.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

size_t max_input = 256;
constexpr size_t max_pool = 4096;
/// Mutants that expand to more names are not kept as parents: their offspring would mostly be as
/// large, and the run is meant to stay short.
constexpr size_t max_parent_names = 512;

std::vector<std::string> read_corpus(const std::string& dir) {
  std::vector<std::string> corpus;
  auto* d = opendir(dir.c_str());
  if (d == nullptr) return corpus;
  std::vector<std::string> files;
  while (auto* entry = readdir(d))
    if (entry->d_name[0] != '.') files.emplace_back(entry->d_name);
  closedir(d);
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in{dir + "/" + f, std::ios::binary};
    std::ostringstream text;
    text << in.rdbuf();
    corpus.push_back(text.str());
  }
  return corpus;
}

void run(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::string mutate(std::string s, const std::vector<std::string>& pool, std::mt19937& rng) {
  static const std::vector<std::string> tokens = {
      "[",
      "]",
      ",",
      "-",
      "x",
      "[]",
      "[-]",
      "0",
      "00",
      "65535",
      "65536",
      "9999",
      "99999999999999999999",
      "ZZZ",
      "000",
      "x0",
      "\v",
      "\t",
      "\xff",
      "\0",
      "[0-9]",
      "[1,1]",
      "[000xZZZ]",
  };
  std::uniform_int_distribution<int> op{0, 6};
  std::uniform_int_distribution<int> byte{0, 255};
  for (int edits = 1 + static_cast<int>(rng() % 4); edits > 0; --edits) {
    std::uniform_int_distribution<size_t> at{0, s.size()};
    auto pos = at(rng);
    switch (op(rng)) {
      case 0:  // replace a byte with a random one
        if (pos < s.size()) s[pos] = static_cast<char>(byte(rng));
        break;
      case 1:  // replace a byte with a structural one
        if (pos < s.size()) s[pos] = "[]-,x0129AZn"[rng() % 12];
        break;
      case 2:
        if (pos < s.size()) s.erase(pos, 1 + rng() % 3);
        break;
      case 3:  // insert a tricky token
        s.insert(pos, tokens[rng() % tokens.size()]);
        break;
      case 4: {  // duplicate a span
        if (s.empty()) break;
        auto from = rng() % s.size();
        auto len = 1 + rng() % std::min<size_t>(8, s.size() - from);
        s.insert(pos, s.substr(from, len));
        break;
      }
      case 5: {  // splice with another input
        const auto& other = pool[rng() % pool.size()];
        if (other.empty()) break;
        auto from = rng() % other.size();
        s = s.substr(0, pos) + other.substr(from);
        break;
      }
      default:  // change a digit
        if (pos < s.size()) s[pos] = static_cast<char>('0' + rng() % 10);
    }
  }
  if (s.size() > max_input) s.resize(max_input);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR [ITERATIONS [SEED [MAX_INPUT]]]\n", argv[0]);
    return 2;
  }
  auto pool = read_corpus(argv[1]);
  if (pool.empty()) {
    std::fprintf(stderr, "%s: no seed inputs in %s\n", argv[0], argv[1]);
    return 2;
  }
  const long iterations = argc > 2 ? std::atol(argv[2]) : 100000;
  const uint32_t seed = argc > 3 ? static_cast<uint32_t>(std::atol(argv[3])) : 20260611u;
  if (argc > 4) max_input = static_cast<size_t>(std::atol(argv[4]));
  std::printf("fuzz replay: %zu seed inputs, %ld mutations, seed %u, inputs cut at %zu bytes\n",
              pool.size(), iterations, seed, max_input);
  std::fflush(stdout);
  for (const auto& input : pool) run(input);
  std::mt19937 rng{seed};
  long expanded = 0;
  for (long i = 0; i < iterations; ++i) {
    auto input = mutate(pool[rng() % pool.size()], pool, rng);
    run(input);
    // Mutants that still expand make good parents: they reach deeper into the parser.
    if (auto names = shoal::topology::expand_hostlist(input);
        names && names->size() <= max_parent_names) {
      ++expanded;
      if (pool.size() < max_pool)
        pool.push_back(std::move(input));
      else
        pool[rng() % pool.size()] = std::move(input);
    }
  }
  std::printf("done: %ld of %ld mutants expanded, no property violated\n", expanded, iterations);
  return 0;
}
