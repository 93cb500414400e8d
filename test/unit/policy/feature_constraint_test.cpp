// -C/--constraint: the parser, the node matcher, and placement choosing nodes by constraint and
// Weight=.

#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <vector>

#include "policy/feature_constraint.hpp"
#include "policy/resources.hpp"

using namespace shoal;
using namespace shoal::policy;

namespace {

using strings = std::vector<std::string>;

feature_constraint parsed(const std::string& text) {
  auto c = parse_constraint(text);
  if (!c) BOOST_FAIL(text << ": " << describe(c.error()));
  return std::move(*c);
}

std::string error_of(const std::string& text) {
  auto c = parse_constraint(text);
  if (c) return {};
  BOOST_CHECK(c.error() == errc::invalid_request);
  return describe(c.error());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(feature_constraint_suite)

BOOST_AUTO_TEST_CASE(the_forms_slurm_documents_parse) {
  for (const char* ok :
       {"intel", "intel&gpu", "intel|amd", "[rack1|rack2|rack3|rack4]", "[rack1*2&rack2*4]",
        "graphics*4", "[(rack1|rack2)*1&(rack3)*2]", "[(knl&snc4&flat)*4&haswell*1]", "(a|b)&c",
        "a&[b|c]", "gpu_a100", "f-1.x", " a & b "})
    BOOST_CHECK_MESSAGE(parse_constraint(ok), ok << ": " << error_of(ok));
  BOOST_CHECK_EQUAL(parsed(" a & b ").text, "a&b");
  BOOST_CHECK(parsed("(a|b)&c&a").names() == (strings{"a", "b", "c"}));
}

BOOST_AUTO_TEST_CASE(bad_forms_say_invalid_feature_specification) {
  struct bad {
    const char* text;
    const char* says;
  };
  const std::vector<bad> cases{
      {"", "empty"},
      {"a&", "missing at the end"},
      {"&a", "missing before '&'"},
      {"a||b", "missing before '|'"},
      {"(a|b", "missing ')'"},
      {"a|b)", "unexpected ')'"},
      {"[a|b", "missing ']'"},
      {"[a|b]&[c|d]", "only one set of brackets"},
      {"([a|b])", "cannot be nested"},
      {"[a|b&c]", "either a matching OR"},
      {"[a*2&b]", "every item needs a count"},
      {"[a*2|b]", "takes no counts"},
      {"a*0", "node count"},
      {"a*", "node count"},
      {"(a*2&b)", "inside parentheses"},
      {"a,b", "',' is not an operator"},
      {"a!b", "unexpected '!'"},
  };
  for (const auto& c : cases) {
    auto err = error_of(c.text);
    BOOST_CHECK_MESSAGE(err.find("Invalid feature specification") != std::string::npos,
                        c.text << " -> " << err);
    BOOST_CHECK_MESSAGE(err.find(c.says) != std::string::npos, c.text << " -> " << err);
  }
}

BOOST_AUTO_TEST_CASE(matcher_table_of_expressions_and_feature_sets) {
  const std::vector<strings> sets{{},        {"intel"}, {"amd"}, {"intel", "gpu"}, {"amd", "gpu"},
                                  {"rack1"}, {"rack2"}};
  struct row {
    const char* expr;
    std::vector<bool> want;  // per feature set above
  };
  const std::vector<row> rows{
      {"intel", {false, true, false, true, false, false, false}},
      {"intel&gpu", {false, false, false, true, false, false, false}},
      {"intel|amd", {false, true, true, true, true, false, false}},
      // Left to right, no precedence: (intel|amd)&gpu.
      {"intel|amd&gpu", {false, false, false, true, true, false, false}},
      {"gpu&(intel|amd)", {false, false, false, true, true, false, false}},
      // A counted operand filters nothing: every node may be used, some must have it.
      {"gpu*2", {true, true, true, true, true, true, true}},
      {"intel&gpu*1", {false, true, false, true, false, false, false}},
      // Matching OR: a node with either may be used (the choice is per job).
      {"[rack1|rack2]", {false, false, false, false, false, true, true}},
      {"[intel*1&amd*1]", {false, true, true, true, true, false, false}},
      {"nope", {false, false, false, false, false, false, false}},
  };
  for (const auto& r : rows) {
    auto c = parsed(r.expr);
    for (size_t i = 0; i < sets.size(); ++i)
      BOOST_CHECK_MESSAGE(node_satisfies(c, sets[i]) == r.want[i],
                          r.expr << " on set " << i << " should be " << r.want[i]);
  }
}

BOOST_AUTO_TEST_CASE(matching_or_gives_one_choice_per_alternative) {
  std::vector<strings> nodes{{"rack1"}, {"rack2"}, {"rack1", "ib"}, {"rack3"}};
  auto choices = resolve_constraint(parsed("ib|rack3&[rack1|rack2]"), nodes);
  // (ib|rack3) & rackX: rack1 gives node 2, rack2 none.
  BOOST_REQUIRE_EQUAL(choices.size(), 2u);
  BOOST_CHECK(choices[0].eligible == (std::vector<bool>{false, false, true, false}));
  BOOST_CHECK(choices[1].eligible == (std::vector<bool>{false, false, false, false}));
  auto counted = resolve_constraint(parsed("[rack1*2&rack2*1]"), nodes);
  BOOST_REQUIRE_EQUAL(counted.size(), 1u);
  BOOST_REQUIRE_EQUAL(counted[0].counts.size(), 2u);
  BOOST_CHECK_EQUAL(counted[0].counts[0].count, 2u);
  BOOST_CHECK(counted[0].counts[0].nodes == (std::vector<bool>{true, false, true, false}));
  BOOST_CHECK(counted[0].counts[1].nodes == (std::vector<bool>{false, true, false, false}));
}

// -- placement ---------------------------------------------------------------------------------

namespace {

/// Whole-node and shared placement over nodes with features and weights, all free.
struct featured_cluster {
  std::vector<node_capacity> nodes;
  std::vector<uint32_t> free_cpus;
  std::vector<uint64_t> free_mem;
  std::vector<size_t> members;
  std::vector<strings> features;
  std::vector<uint32_t> weights;

  void add(strings f, uint32_t weight, uint32_t cpus = 4) {
    members.push_back(nodes.size());
    nodes.push_back({cpus, 8000, true});
    free_cpus.push_back(cpus);
    free_mem.push_back(8000);
    features.push_back(std::move(f));
    weights.push_back(weight);
  }

  std::vector<size_t> place_job(resource_request req, const std::string& constraint,
                                select_type select) const {
    if (!constraint.empty())
      req.features = std::make_shared<const std::vector<feature_choice>>(
          resolve_constraint(parsed(constraint), features));
    placement_options options;
    options.select = select;
    options.weights = weights;
    auto alloc = place(req, members, nodes, free_view{free_cpus, free_mem}, options);
    std::vector<size_t> out;
    if (alloc)
      for (auto& s : *alloc) out.push_back(s.node);
    return out;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(placement_uses_only_nodes_satisfying_the_constraint_lightest_first) {
  featured_cluster c;
  c.add({"cpu"}, 1);        // 0
  c.add({"gpu"}, 5);        // 1
  c.add({"gpu"}, 2);        // 2
  c.add({"gpu", "ib"}, 9);  // 3
  c.add({"cpu", "ib"}, 1);  // 4
  for (auto select : {select_type::linear, select_type::cons_tres}) {
    resource_request one;
    BOOST_CHECK(c.place_job(one, "", select) == (std::vector<size_t>{0}));
    BOOST_CHECK(c.place_job(one, "gpu", select) == (std::vector<size_t>{2}));
    BOOST_CHECK(c.place_job(one, "gpu&ib", select) == (std::vector<size_t>{3}));
    BOOST_CHECK(c.place_job(one, "ib", select) == (std::vector<size_t>{4}));
    BOOST_CHECK(c.place_job(one, "nope", select).empty());
    resource_request two;
    two.min_nodes = two.tasks = 2;
    BOOST_CHECK(c.place_job(two, "gpu", select) == (std::vector<size_t>{1, 2}));
    resource_request four;
    four.min_nodes = four.tasks = 4;
    BOOST_CHECK(c.place_job(four, "gpu", select).empty());
    // Counts: at least one ib node; the rest from the lightest.
    resource_request three;
    three.min_nodes = three.tasks = 3;
    BOOST_CHECK(c.place_job(three, "ib*1", select) == (std::vector<size_t>{0, 2, 4}));
    BOOST_CHECK(c.place_job(three, "gpu*3", select) == (std::vector<size_t>{1, 2, 3}));
    BOOST_CHECK(c.place_job(two, "[gpu*1&cpu*1]", select) == (std::vector<size_t>{0, 2}));
    // Matching OR: both nodes from one set; cpu has two nodes, ib only two as well.
    BOOST_CHECK(c.place_job(two, "[ib|cpu]", select) == (std::vector<size_t>{3, 4}));
    BOOST_CHECK(c.place_job(three, "[cpu|gpu]", select) == (std::vector<size_t>{1, 2, 3}));
    // -w a node outside the constraint: nothing fits.
    resource_request pinned;
    pinned.required = {0};
    BOOST_CHECK(c.place_job(pinned, "gpu", select).empty());
  }
}

BOOST_AUTO_TEST_SUITE_END()
