#include <boost/test/unit_test.hpp>

#include <string>

#include "config/config.hpp"
#include "config/known_keys.hpp"

using namespace shoal;
using namespace shoal::config;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The error of `text`, or "" when it parsed.
std::string error_of(const std::string& text) {
  auto cfg = parse_config(text, "test.conf", "");
  return cfg ? std::string{} : describe(cfg.error());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(known_keys_suite)

BOOST_AUTO_TEST_CASE(the_distance_counts_edits_and_ignores_case) {
  BOOST_CHECK_EQUAL(key_distance("SlurmctldPort", "slurmctldport"), 0u);
  BOOST_CHECK_EQUAL(key_distance("SlurmctldPrt", "SlurmctldPort"), 1u);    // one left out
  BOOST_CHECK_EQUAL(key_distance("SlurmctldPoort", "SlurmctldPort"), 1u);  // one too many
  BOOST_CHECK_EQUAL(key_distance("SlurmctldProt", "SlurmctldPort"), 1u);   // neighbours swapped
  BOOST_CHECK_EQUAL(key_distance("KillWiat", "KillWait"), 1u);
  BOOST_CHECK_EQUAL(key_distance("", "abc"), 3u);
  BOOST_CHECK_EQUAL(key_distance("abc", ""), 3u);
  BOOST_CHECK_EQUAL(key_distance("kitten", "sitting"), 3u);
}

BOOST_AUTO_TEST_CASE(the_nearest_key_is_suggested_only_when_near) {
  BOOST_CHECK_EQUAL(nearest_key("SlurmctldPrt", key_set::main), "SlurmctldPort");
  BOOST_CHECK_EQUAL(nearest_key("SLURMCTLDPRT", key_set::main), "SlurmctldPort");
  BOOST_CHECK_EQUAL(nearest_key("returntoservise", key_set::main), "ReturnToService");
  BOOST_CHECK_EQUAL(nearest_key("Licences", key_set::main), "Licenses");
  BOOST_CHECK_EQUAL(nearest_key("StateSaveLocaton", key_set::main), "StateSaveLocation");
  BOOST_CHECK_EQUAL(nearest_key("CPU", key_set::node), "CPUs");
  BOOST_CHECK_EQUAL(nearest_key("Nodse", key_set::partition), "Nodes");
  BOOST_CHECK_EQUAL(nearest_key("Fiel", key_set::gres), "File");
  // Far from every key: no guess.
  BOOST_CHECK_EQUAL(nearest_key("FooBar", key_set::main), "");
  BOOST_CHECK_EQUAL(nearest_key("BurstBufferType", key_set::main), "");
  BOOST_CHECK_EQUAL(nearest_key("xyz", key_set::node), "");
  // Each set suggests its own keys: RealMemory is a node key, not a main one.
  BOOST_CHECK_EQUAL(nearest_key("RealMemroy", key_set::node), "RealMemory");
  BOOST_CHECK_EQUAL(nearest_key("RealMemroy", key_set::main), "");
}

BOOST_AUTO_TEST_CASE(the_message_names_the_key_and_the_suggestion) {
  BOOST_CHECK_EQUAL(unknown_key_text("SlurmctldPrt", key_set::main),
                    "unknown key 'SlurmctldPrt' (did you mean SlurmctldPort?)");
  BOOST_CHECK_EQUAL(unknown_key_text("FooBar", key_set::main), "unknown key 'FooBar'");
}

// Every listed key is one the parser takes (its value may be refused, never its name), so no
// suggestion names a key that would itself be unknown.
BOOST_AUTO_TEST_CASE(every_known_key_is_read_by_the_parser) {
  for (auto key : known_keys(key_set::main)) {
    std::string k{key};
    auto text = k == "NodeName" || k == "PartitionName" ? k + "=x\n" : k + "=1\n";
    BOOST_CHECK_MESSAGE(!contains(error_of(text), "unknown key"), k << ": " << error_of(text));
  }
  for (auto key : known_keys(key_set::node)) {
    auto text = "NodeName=n1 " + std::string{key} + "=1\n";
    BOOST_CHECK_MESSAGE(!contains(error_of(text), "unknown key"), key << ": " << error_of(text));
  }
  for (auto key : known_keys(key_set::partition)) {
    auto text = "NodeName=n1\nPartitionName=p " + std::string{key} + "=1\n";
    BOOST_CHECK_MESSAGE(!contains(error_of(text), "unknown key"), key << ": " << error_of(text));
  }
}

BOOST_AUTO_TEST_SUITE_END()
