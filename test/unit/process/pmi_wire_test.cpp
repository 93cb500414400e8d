// The PMI-1 and PMI-2 wire formats, the reader that splits a connection's bytes, the KVS and
// PMI_process_mapping: what MPICH's simple clients write and parse.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "process/pmi_wire.hpp"

using namespace shoal;
using namespace shoal::process;

BOOST_AUTO_TEST_SUITE(pmi_wire_suite)

BOOST_AUTO_TEST_CASE(pmi1_lines_parse_into_a_command_and_its_pairs) {
  auto cmd = parse_pmi1("cmd=put kvsname=7.3 key=bc-0 value=abc=def");
  BOOST_REQUIRE(cmd);
  BOOST_CHECK_EQUAL(cmd->name, "put");
  BOOST_REQUIRE_EQUAL(cmd->args.size(), 3u);
  BOOST_CHECK_EQUAL(*cmd->find("kvsname"), "7.3");
  BOOST_CHECK_EQUAL(*cmd->find("key"), "bc-0");
  BOOST_CHECK_EQUAL(*cmd->find("value"), "abc=def");  // only the first '=' splits
  BOOST_CHECK(cmd->find("missing") == nullptr);
  auto init = parse_pmi1("cmd=init pmi_version=1 pmi_subversion=1\r");
  BOOST_REQUIRE(init);
  BOOST_CHECK_EQUAL(*init->find("pmi_subversion"), "1");
  auto spawn = parse_pmi1("mcmd=spawn");
  BOOST_REQUIRE(spawn);
  BOOST_CHECK_EQUAL(spawn->name, "mcmd:spawn");
  auto empty_value = parse_pmi1("cmd=get key=");
  BOOST_REQUIRE(empty_value);
  BOOST_CHECK_EQUAL(*empty_value->find("key"), "");
}

BOOST_AUTO_TEST_CASE(malformed_pmi1_lines_are_errors) {
  for (const char* bad :
       {"", "   ", "cmd=", "barrier_in", "key=v cmd=get", "cmd=put junk", "cmd=put =v", "=x"}) {
    auto cmd = parse_pmi1(bad);
    BOOST_CHECK_MESSAGE(!cmd, "'" << bad << "' parsed");
    if (!cmd) BOOST_CHECK(cmd.error() == errc::malformed_message);
  }
}

BOOST_AUTO_TEST_CASE(pmi1_answers_are_one_line_without_spaces_in_values) {
  pmi_command cmd;
  cmd.name = "get_result";
  cmd.add("rc", "-1").add("msg", "key not found\nreally");
  BOOST_CHECK_EQUAL(format_pmi1(cmd), "cmd=get_result rc=-1 msg=key_not_found_really\n");
  auto back = parse_pmi1("cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024");
  BOOST_REQUIRE(back);
  BOOST_CHECK_EQUAL(format_pmi1(*back),
                    "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n");
}

BOOST_AUTO_TEST_CASE(pmi2_commands_unescape_doubled_semicolons) {
  auto cmd = parse_pmi2("cmd=kvs-put;key=a;value=x;;y;;;");
  BOOST_REQUIRE(cmd);
  BOOST_CHECK_EQUAL(cmd->name, "kvs-put");
  BOOST_CHECK_EQUAL(*cmd->find("key"), "a");
  BOOST_CHECK_EQUAL(*cmd->find("value"), "x;y;");
  auto init = parse_pmi2("cmd=fullinit;pmijobid=7.3;pmirank=2;threaded=FALSE;");
  BOOST_REQUIRE(init);
  BOOST_CHECK_EQUAL(*init->find("pmirank"), "2");
  BOOST_CHECK_EQUAL(*init->find("threaded"), "FALSE");
}

BOOST_AUTO_TEST_CASE(pmi2_answers_carry_a_six_character_length_and_escape_semicolons) {
  pmi_command cmd;
  cmd.name = "kvs-get-response";
  cmd.add("rc", "0").add("found", "TRUE").add("value", "a;b");
  auto text = format_pmi2(cmd);
  std::string body = "cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b;";
  BOOST_CHECK_EQUAL(text, std::to_string(body.size()) + "    " + body);
  BOOST_CHECK_EQUAL(text.substr(0, 6), "48    ");
  auto back = parse_pmi2(text.substr(6));
  BOOST_REQUIRE(back);
  BOOST_CHECK_EQUAL(*back->find("value"), "a;b");
  BOOST_CHECK_EQUAL(format_pmi(pmi_wire::v1, cmd), format_pmi1(cmd));
  BOOST_CHECK_EQUAL(format_pmi(pmi_wire::v2, cmd), text);
}

BOOST_AUTO_TEST_CASE(malformed_pmi2_commands_are_errors) {
  for (const char* bad :
       {"", "cmd=fullinit", "cmd=;", "rank=1;cmd=x;", "cmd=x;key", "cmd=x;=v;", ";", "cmd=x;k=v"}) {
    auto cmd = parse_pmi2(bad);
    BOOST_CHECK_MESSAGE(!cmd, "'" << bad << "' parsed");
  }
}

BOOST_AUTO_TEST_CASE(the_reader_waits_for_whole_lines_arriving_in_pieces) {
  pmi_reader r;
  std::string out;
  std::string line = "cmd=init pmi_version=1 pmi_subversion=1\n";
  for (size_t i = 0; i + 1 < line.size(); ++i) {
    r.append(line.substr(i, 1));
    BOOST_REQUIRE(r.next(out) == pmi_reader::status::need_more);
  }
  r.append("\ncmd=get_maxes\ncmd=barr");
  BOOST_REQUIRE(r.next(out) == pmi_reader::status::message);
  BOOST_CHECK_EQUAL(out, "cmd=init pmi_version=1 pmi_subversion=1");
  BOOST_REQUIRE(r.next(out) == pmi_reader::status::message);
  BOOST_CHECK_EQUAL(out, "cmd=get_maxes");
  BOOST_CHECK(r.next(out) == pmi_reader::status::need_more);
  BOOST_CHECK_EQUAL(r.buffered(), 8u);
  r.append("ier_in\n");
  BOOST_REQUIRE(r.next(out) == pmi_reader::status::message);
  BOOST_CHECK_EQUAL(out, "cmd=barrier_in");
}

BOOST_AUTO_TEST_CASE(the_reader_switches_to_pmi2_framing_after_the_init_line) {
  pmi_reader r;
  std::string out;
  pmi_command full;
  full.name = "fullinit";
  full.add("pmirank", "0").add("threaded", "FALSE");
  auto framed = format_pmi2(full);
  // The init line and the first framed command in one read, the next command cut in three.
  r.append("cmd=init pmi_version=2 pmi_subversion=0\n" + framed + framed.substr(0, 3));
  BOOST_REQUIRE(r.next(out) == pmi_reader::status::message);
  BOOST_CHECK_EQUAL(out, "cmd=init pmi_version=2 pmi_subversion=0");
  r.set_wire(pmi_wire::v2);
  BOOST_REQUIRE(r.next(out) == pmi_reader::status::message);
  BOOST_CHECK_EQUAL(out, "cmd=fullinit;pmirank=0;threaded=FALSE;");
  BOOST_CHECK(r.next(out) == pmi_reader::status::need_more);
  r.append(framed.substr(3, 10));
  BOOST_CHECK(r.next(out) == pmi_reader::status::need_more);
  r.append(framed.substr(13));
  BOOST_REQUIRE(r.next(out) == pmi_reader::status::message);
  BOOST_CHECK_EQUAL(out, "cmd=fullinit;pmirank=0;threaded=FALSE;");
}

BOOST_AUTO_TEST_CASE(the_reader_refuses_oversized_and_misframed_input_for_good) {
  std::string out;
  {
    pmi_reader r;
    r.append(std::string(pmi_max_message + 1, 'x'));
    BOOST_CHECK(r.next(out) == pmi_reader::status::error);
    BOOST_CHECK_MESSAGE(out.find("longer than") != std::string::npos, out);
    r.append("\ncmd=get_maxes\n");
    BOOST_CHECK(r.next(out) == pmi_reader::status::error);
  }
  {
    pmi_reader r;
    r.append(std::string(pmi_max_message + 1, 'x') + "\n");
    BOOST_CHECK(r.next(out) == pmi_reader::status::error);
  }
  for (const char* field : {"abcdef", "12 3  ", "0     ", "      ", "-5    ", "999999"}) {
    pmi_reader r;
    r.set_wire(pmi_wire::v2);
    r.append(std::string(field) + "cmd=x;");
    BOOST_CHECK_MESSAGE(r.next(out) == pmi_reader::status::error, "'" << field << "': " << out);
  }
}

BOOST_AUTO_TEST_CASE(puts_show_only_after_the_fence_merges_every_nodes_blob) {
  pmi_kvs here, there;
  BOOST_REQUIRE(!here.put("bc-0", "addr0"));
  BOOST_REQUIRE(!here.put("semi", "a;b\nc d"));
  BOOST_REQUIRE(!there.put("bc-2", ""));
  BOOST_CHECK(here.get("bc-0") == nullptr);
  std::vector<std::string> blobs{here.take_pending(), there.take_pending()};
  BOOST_CHECK(here.take_pending().empty());
  BOOST_REQUIRE(!here.merge(blobs));
  BOOST_REQUIRE(here.get("bc-0"));
  BOOST_CHECK_EQUAL(*here.get("bc-0"), "addr0");
  BOOST_CHECK_EQUAL(*here.get("semi"), "a;b\nc d");
  BOOST_REQUIRE(here.get("bc-2"));
  BOOST_CHECK_EQUAL(*here.get("bc-2"), "");
  BOOST_CHECK_EQUAL(here.size(), 3u);
  // A later fence's put of the same key wins.
  BOOST_REQUIRE(!there.put("bc-0", "moved"));
  BOOST_REQUIRE(!here.merge({there.take_pending()}));
  BOOST_CHECK_EQUAL(*here.get("bc-0"), "moved");
}

BOOST_AUTO_TEST_CASE(the_kvs_bounds_keys_values_and_refuses_blobs_that_do_not_decode) {
  pmi_kvs kvs;
  BOOST_CHECK(kvs.put("", "v") == errc::invalid_request);
  BOOST_CHECK(kvs.put(std::string(pmi_max_key + 1, 'k'), "v") == errc::invalid_request);
  BOOST_CHECK(kvs.put("k", std::string(pmi_max_value + 1, 'v')) == errc::invalid_request);
  BOOST_CHECK(!kvs.put(std::string(pmi_max_key, 'k'), std::string(pmi_max_value, 'v')));
  for (const char* bad : {"x", "3 1\nab", "1 1", "0 1\nv", "1 99999\nkv", "a b\nkv", "1 1\nkv2"}) {
    pmi_kvs other;
    BOOST_CHECK_MESSAGE(other.merge({bad}) == errc::malformed_message, "'" << bad << "' merged");
  }
}

BOOST_AUTO_TEST_CASE(process_mapping_compresses_blocks_and_spells_out_rounds) {
  BOOST_CHECK_EQUAL(pmi_process_mapping({}), "");
  BOOST_CHECK_EQUAL(pmi_process_mapping({0, 0, 0, 0}), "(vector,(0,1,4))");
  BOOST_CHECK_EQUAL(pmi_process_mapping({0, 0, 1, 1}), "(vector,(0,2,2))");
  BOOST_CHECK_EQUAL(pmi_process_mapping({0, 0, 1, 1, 2, 2, 3}), "(vector,(0,3,2),(3,1,1))");
  BOOST_CHECK_EQUAL(pmi_process_mapping({0, 0, 0, 1}), "(vector,(0,1,3),(1,1,1))");
  BOOST_CHECK_EQUAL(pmi_process_mapping({0, 1, 0, 1}), "(vector,(0,2,1),(0,2,1))");
  BOOST_CHECK_EQUAL(pmi_process_mapping({1, 0}), "(vector,(1,1,1),(0,1,1))");
  // A thousand nodes in blocks is still one triple; the same nodes in a scattered order do not
  // fit, and MPICH then compares host names instead.
  std::vector<uint32_t> block, scattered;
  for (uint32_t n = 0; n < 1000; ++n) block.insert(block.end(), 4, n);
  BOOST_CHECK_EQUAL(pmi_process_mapping(block), "(vector,(0,1000,4))");
  for (uint32_t n = 0; n < 1000; ++n) scattered.push_back((n * 7) % 1000);
  BOOST_CHECK_EQUAL(pmi_process_mapping(scattered), "");
}

BOOST_AUTO_TEST_SUITE_END()
