// The metrics library: instruments, registry rendering, and the Prometheus text parser.

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

#include "messages/errc.hpp"
#include "metrics/registry.hpp"
#include "metrics/text_parser.hpp"

using namespace shoal;
using namespace shoal::metrics;

namespace {

std::string why(const shoal::error& err) {
  return err ? describe(err) : std::string{"ok"};
}

exposition parse_ok(const std::string& text) {
  auto e = parse_text(text);
  BOOST_REQUIRE_MESSAGE(e, "parse failed: " << (e ? std::string{} : why(e.error())));
  return *e;
}

bool rejected(const std::string& text) {
  return !parse_text(text);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(metrics_library)

BOOST_AUTO_TEST_CASE(counters_render_with_help_type_and_labels) {
  registry reg;
  reg.counters("shoal_test_total", "Things.", {"kind"}).with({"a"}).inc(3);
  auto text = reg.render();
  BOOST_CHECK(text.find("# HELP shoal_test_total Things.\n") != std::string::npos);
  BOOST_CHECK(text.find("# TYPE shoal_test_total counter\n") != std::string::npos);
  BOOST_CHECK(text.find("shoal_test_total{kind=\"a\"} 3\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(registry_rejects_misnamed_or_reshaped_metrics) {
  registry reg;
  BOOST_CHECK_THROW(reg.counters("shoal_things", "no _total"), std::invalid_argument);
  BOOST_CHECK_THROW(reg.gauges("0bad", "bad name"), std::invalid_argument);
  BOOST_CHECK_THROW(reg.gauges("shoal_x", "bad label", {"le"}), std::invalid_argument);
  reg.gauges("shoal_x", "x", {"a"});
  BOOST_CHECK_THROW(reg.gauges("shoal_x", "x", {"b"}), std::invalid_argument);
  BOOST_CHECK_THROW(reg.counters("shoal_x", "x", {"a"}), std::invalid_argument);
  BOOST_CHECK_THROW(reg.gauges("shoal_x", "x", {"a"}).with({"1", "2"}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(same_labels_give_the_same_series) {
  registry reg;
  auto& a = reg.counters("shoal_a_total", "a", {"x"}).with({"1"});
  auto& b = reg.counters("shoal_a_total", "a", {"x"}).with({"1"});
  BOOST_CHECK_EQUAL(&a, &b);
}

BOOST_AUTO_TEST_CASE(rendered_text_parses_back_to_the_same_values) {
  registry reg;
  reg.counters("shoal_c_total", "A counter.\nSecond line \\ too.", {"user"})
      .with({"we\"ird\\na\nme"})
      .inc(42);
  reg.gauge_of("shoal_g", "A gauge.").set(-1.5);
  auto& h = reg.histograms("shoal_h_seconds", "A histogram.", {"actor"}, {0.001, 0.01, 0.1})
                .with({"job"});
  h.observe(0.0005);
  h.observe(0.005);
  h.observe(0.05);
  h.observe(5);
  auto e = parse_ok(reg.render());
  BOOST_REQUIRE_EQUAL(e.families.size(), 3u);
  auto* c = e.find("shoal_c_total");
  BOOST_REQUIRE(c);
  BOOST_CHECK_EQUAL(c->type, "counter");
  BOOST_CHECK_EQUAL(c->help, "A counter.\nSecond line \\ too.");
  BOOST_REQUIRE_EQUAL(c->samples.size(), 1u);
  BOOST_CHECK_EQUAL(c->samples[0].label("user"), "we\"ird\\na\nme");
  BOOST_CHECK_EQUAL(c->samples[0].value, 42);
  BOOST_CHECK_EQUAL(*e.value("shoal_g"), -1.5);
  auto* hf = e.find("shoal_h_seconds");
  BOOST_REQUIRE(hf);
  BOOST_CHECK_EQUAL(hf->type, "histogram");
  BOOST_CHECK_EQUAL(hf->samples.size(), 4u + 2u);
  BOOST_CHECK_EQUAL(*e.value("shoal_h_seconds_bucket", {{"le", "0.01"}}), 2);
  BOOST_CHECK_EQUAL(*e.value("shoal_h_seconds_bucket", {{"le", "+Inf"}}), 4);
  BOOST_CHECK_EQUAL(*e.value("shoal_h_seconds_count", {{"actor", "job"}}), 4);
  BOOST_CHECK_CLOSE(*e.value("shoal_h_seconds_sum"), 5.0555, 1e-9);
  BOOST_CHECK_MESSAGE(!check_histograms(e), why(check_histograms(e)));
}

BOOST_AUTO_TEST_CASE(label_values_are_escaped) {
  BOOST_CHECK_EQUAL(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  BOOST_CHECK_EQUAL(format_value(HUGE_VAL), "+Inf");
  BOOST_CHECK_EQUAL(format_value(-HUGE_VAL), "-Inf");
  BOOST_CHECK_EQUAL(format_value(std::nan("")), "NaN");
  BOOST_CHECK_EQUAL(format_value(0.25), "0.25");
}

BOOST_AUTO_TEST_CASE(parser_reads_what_the_spec_allows) {
  auto e = parse_ok(
      "# a comment\n"
      "# HELP m_total Help.\n"
      "# TYPE m_total counter\n"
      "m_total{a=\"1\",b=\"x y\",} 3 1700000000000\n"
      "  \n"
      "plain 1e3\n"
      "special{l=\"v\"} NaN\n"
      "inf_value +Inf\n");
  BOOST_CHECK_EQUAL(*e.value("m_total", {{"b", "x y"}}), 3);
  BOOST_CHECK_EQUAL(*e.find("m_total")->samples[0].timestamp_ms, 1700000000000);
  BOOST_CHECK_EQUAL(*e.value("plain"), 1000);
  BOOST_CHECK_EQUAL(e.find("plain")->type, "untyped");
  BOOST_CHECK(std::isnan(*e.value("special")));
  BOOST_CHECK(std::isinf(*e.value("inf_value")));
}

BOOST_AUTO_TEST_CASE(parser_rejects_what_the_spec_forbids) {
  BOOST_CHECK(rejected("m{a=\"x\\q\"} 1\n"));                      // unknown escape
  BOOST_CHECK(rejected("m{a=\"x} 1\n"));                           // unterminated value
  BOOST_CHECK(rejected("m{a=x} 1\n"));                             // unquoted value
  BOOST_CHECK(rejected("m{0a=\"x\"} 1\n"));                        // bad label name
  BOOST_CHECK(rejected("m{a=\"1\",a=\"2\"} 1\n"));                 // label twice
  BOOST_CHECK(rejected("m one\n"));                                // not a number
  BOOST_CHECK(rejected("m 1 2 3\n"));                              // trailing text
  BOOST_CHECK(rejected("# TYPE m gauge\n# TYPE m gauge\nm 1\n"));  // second TYPE
  BOOST_CHECK(rejected("m 1\n# TYPE m gauge\n"));                  // TYPE after samples
  BOOST_CHECK(rejected("# TYPE m weird\n"));                       // unknown type
  BOOST_CHECK(rejected("a 1\nb 1\na 2\n"));                        // split group
  auto err = parse_text("ok 1\nbad{ 1\n");
  BOOST_REQUIRE(!err);
  BOOST_CHECK_MESSAGE(describe(err.error()).find("line 2") != std::string::npos,
                      describe(err.error()));
}

BOOST_AUTO_TEST_CASE(histogram_invariants_are_checked) {
  auto head = std::string{"# TYPE h histogram\n"};
  auto good = head + "h_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 3\nh_count 2\n";
  BOOST_CHECK(!check_histograms(parse_ok(good)));
  auto no_inf = head + "h_bucket{le=\"1\"} 1\nh_sum 3\nh_count 1\n";
  BOOST_CHECK(check_histograms(parse_ok(no_inf)));
  auto decreasing = head + "h_bucket{le=\"1\"} 3\nh_bucket{le=\"+Inf\"} 2\nh_sum 3\nh_count 2\n";
  BOOST_CHECK(check_histograms(parse_ok(decreasing)));
  auto bad_count = head + "h_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 3\nh_count 5\n";
  BOOST_CHECK(check_histograms(parse_ok(bad_count)));
}

BOOST_AUTO_TEST_CASE(quantiles_interpolate_inside_buckets) {
  bucket_list b{{1, 50}, {2, 100}, {HUGE_VAL, 100}};
  BOOST_CHECK_CLOSE(bucket_quantile(0.5, b), 1.0, 1e-9);
  BOOST_CHECK_CLOSE(bucket_quantile(0.75, b), 1.5, 1e-9);
  BOOST_CHECK(std::isnan(bucket_quantile(0.5, {{1, 0}, {HUGE_VAL, 0}})));
  // Everything beyond the last finite bound: the bound is the best estimate.
  BOOST_CHECK_CLOSE(bucket_quantile(0.99, {{1, 0}, {HUGE_VAL, 10}}), 1.0, 1e-9);
}

BOOST_AUTO_TEST_CASE(updates_from_many_threads_are_not_lost) {
  registry reg;
  auto& c = reg.counter_of("shoal_n_total", "n");
  auto& g = reg.gauge_of("shoal_g", "g");
  auto& h = reg.histogram_of("shoal_h_seconds", "h");
  constexpr int threads = 4;
  constexpr int per_thread = 50000;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (int i = 0; i < per_thread; ++i) {
        c.inc();
        g.add(1);
        h.observe(0.001);
      }
    });
  // A concurrent reader, as the HTTP thread is.
  for (int i = 0; i < 20; ++i) BOOST_CHECK(parse_text(reg.render()));
  for (auto& th : pool) th.join();
  BOOST_CHECK_EQUAL(c.value(), uint64_t{threads * per_thread});
  BOOST_CHECK_EQUAL(g.value(), double{threads * per_thread});
  BOOST_CHECK_EQUAL(h.read().count, uint64_t{threads * per_thread});
}

BOOST_AUTO_TEST_CASE(reset_zeroes_matching_families_only) {
  registry reg;
  reg.counter_of("shoal_rpc_x_total", "x").inc(5);
  reg.counter_of("shoal_keep_total", "k").inc(5);
  reg.reset("shoal_rpc_");
  BOOST_CHECK_EQUAL(reg.counter_of("shoal_rpc_x_total", "x").value(), 0u);
  BOOST_CHECK_EQUAL(reg.counter_of("shoal_keep_total", "k").value(), 5u);
}

BOOST_AUTO_TEST_SUITE_END()
