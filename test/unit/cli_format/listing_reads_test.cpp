// Each listing column declares the job fields it reads, and the CLI asks the controller for only
// those (messages/field_mask.hpp). These cases render every column, sort and filter twice, from
// jobs with every field set and from the same jobs cut to the declared fields: a column that
// reads an undeclared field prints differently and fails here.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "messages/field_mask.hpp"
#include "messages/job_filter.hpp"
#include "test/unit/messages/fields.hpp"
#include "tools/format/listing.hpp"
#include "tools/format/squeue_format.hpp"

using namespace shoal;

namespace {

constexpr int64_t now = 1'700'000'100;

/// Jobs in the states and shapes whose columns read differently: every field set in each.
std::vector<msg::job_info> varied_jobs() {
  std::vector<msg::job_info> out;
  auto add = [&](auto change) {
    auto j = test::sample_job_info();
    j.job_id = 100 + out.size();
    change(j);
    out.push_back(j);
  };
  add([](msg::job_info&) {});
  add([](msg::job_info& j) { j.state = msg::job_state::pending; });
  add([](msg::job_info& j) {
    j.state = msg::job_state::running;
    j.array_task_id = -1;
    j.time_limit_s = -1;
  });
  add([](msg::job_info& j) {
    j.state = msg::job_state::completed;
    j.array_job_id = 0;
    j.batch = false;
    j.partition = "debug";
  });
  add([](msg::job_info& j) {
    j.state = msg::job_state::timeout;
    j.exit_signal = 0;
    j.start_time = 1'700'000'050;
    j.priority = 7;
    j.node_count = 1;
    j.nodelist = "node7";
  });
  return out;
}

std::vector<msg::job_info> cut(const std::vector<msg::job_info>& jobs, msg::field_mask mask) {
  std::vector<msg::job_info> out;
  for (auto& j : jobs) out.push_back(msg::copy_fields(j, mask));
  return out;
}

std::string squeue_text(std::vector<msg::job_info> jobs, const cli::squeue_format_options& opt) {
  auto out = cli::render_squeue(std::move(jobs), opt, now);
  BOOST_REQUIRE(out.has_value());
  return out->text;
}

std::string listing_text(std::vector<msg::job_info> jobs, const cli::listing_options& opt) {
  auto out = cli::render_jobs(std::move(jobs), opt, now);
  BOOST_REQUIRE(out.has_value());
  return *out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(listing_reads)

BOOST_AUTO_TEST_CASE(copy_fields_keeps_only_the_masked_fields) {
  auto full = test::sample_job_info();
  auto mask = msg::fields_of(&msg::job_info::job_id, &msg::job_info::reservation);
  auto part = msg::copy_fields(full, mask);
  BOOST_TEST(part.job_id == full.job_id);
  BOOST_TEST(part.reservation == full.reservation);
  BOOST_TEST(part.command.empty());
  BOOST_TEST(part.usage.samples == 0u);
  BOOST_TEST((part.state == msg::job_info{}.state));
  BOOST_TEST(msg::copy_fields(full, msg::all_fields).command == full.command);
  BOOST_TEST(msg::copy_fields(full, 0).command == full.command);
}

BOOST_AUTO_TEST_CASE(every_squeue_column_prints_the_same_from_what_it_declares) {
  auto jobs = varied_jobs();
  for (auto& name : cli::squeue_long_names()) {
    cli::squeue_format_options opt;
    opt.long_format = name;
    opt.group_of = [](uint32_t uid) { return cli::group_entry{uid + 1, "grp"}; };
    auto mask = cli::squeue_reads(opt);
    BOOST_TEST_CONTEXT("squeue -O " << name) {
      BOOST_TEST(mask != msg::all_fields, "no fields declared: it asks for every field");
      BOOST_TEST(squeue_text(cut(jobs, mask), opt) == squeue_text(jobs, opt));
    }
  }
}

BOOST_AUTO_TEST_CASE(every_squeue_letter_and_sort_reads_what_it_declares) {
  auto jobs = varied_jobs();
  for (char letter = 'A'; letter <= 'z'; ++letter) {
    if (!std::isalpha(static_cast<unsigned char>(letter))) continue;
    cli::squeue_format_options opt;
    opt.format = std::string{"%A %"} + letter;
    BOOST_TEST_CONTEXT("squeue -o %" << letter) {
      BOOST_TEST(squeue_text(cut(jobs, cli::squeue_reads(opt)), opt) == squeue_text(jobs, opt));
    }
    // Sorted by the letter alone, the ids come in the same order.
    opt.format = "%A";
    opt.sort = std::string{"-"} + letter;
    auto full = cli::render_squeue(jobs, opt, now);
    if (!full) continue;  // not a sort letter
    BOOST_TEST_CONTEXT("squeue -S -" << letter) {
      BOOST_TEST(squeue_text(cut(jobs, cli::squeue_reads(opt)), opt) == full->text);
    }
  }
}

BOOST_AUTO_TEST_CASE(every_listing_field_shows_sorts_and_filters_from_what_it_declares) {
  auto jobs = varied_jobs();
  for (auto& name : cli::job_field_names()) {
    BOOST_TEST_CONTEXT("shoal queue -o " << name) {
      cli::listing_options opt;
      opt.format = name;
      auto mask = cli::job_listing_reads(opt);
      BOOST_TEST(mask != msg::all_fields, "no fields declared: it asks for every field");
      BOOST_TEST(listing_text(cut(jobs, mask), opt) == listing_text(jobs, opt));
      cli::listing_options sorted;
      sorted.format = "JobId";
      sorted.sort = "-" + name;
      BOOST_TEST(listing_text(cut(jobs, cli::job_listing_reads(sorted)), sorted) ==
                 listing_text(jobs, sorted));
      // Filtered by the first job's value, the same jobs stay.
      cli::listing_options shown;
      shown.format = name;
      shown.no_header = true;
      auto first = listing_text({jobs.front()}, shown);
      while (!first.empty() && (first.back() == '\n' || first.back() == ' ')) first.pop_back();
      cli::listing_options filtered;
      filtered.format = "JobId";
      filtered.filters = {name + "=" + first};
      auto selected = cli::job_selection_reads(filtered) | cli::job_listing_reads(sorted);
      BOOST_TEST(listing_text(cut(jobs, selected), filtered) == listing_text(jobs, filtered));
    }
  }
}

BOOST_AUTO_TEST_CASE(the_controllers_filter_keeps_every_job_the_listing_shows_and_drops_others) {
  auto jobs = varied_jobs();
  jobs[1].user = "bob";
  const std::vector<std::vector<std::string>> cases = {
      {"State=R"},
      {"ST=pd,running"},
      {"State=CD,TO"},
      {"State=NOSUCH"},
      {"User=ALICE"},
      {"User=bob,carol", "State=PENDING"},
      {"Partition=debug"},
      {"partition=batch", "user=alice"},
      {"Name=relax", "State=NF"},
      {"User="},
  };
  for (auto& filters : cases) {
    cli::listing_options opt;
    opt.format = "JobId";
    opt.filters = filters;
    auto coarse = cli::job_coarse_filter(opt);
    std::vector<msg::job_info> passed;
    for (auto& j : jobs)
      if (msg::passes(coarse, j)) passed.push_back(j);
    BOOST_TEST_CONTEXT("filters " << filters.front() << (filters.size() > 1 ? " ..." : "")) {
      // The controller's pass keeps what the listing shows; State=, User= and Partition= alone
      // keep nothing more.
      BOOST_TEST(listing_text(passed, opt) == listing_text(jobs, opt));
      bool coarse_only = std::all_of(filters.begin(), filters.end(),
                                     [](const std::string& f) { return f.rfind("Name", 0) != 0; });
      auto shown = cli::select_jobs(jobs, opt, now);
      BOOST_REQUIRE(shown.has_value());
      if (coarse_only) BOOST_TEST(passed.size() == shown->size());
    }
  }
  BOOST_TEST(msg::keeps_all(cli::job_coarse_filter(cli::listing_options{})));
}

BOOST_AUTO_TEST_CASE(json_and_unknown_fields_ask_for_everything) {
  cli::listing_options json;
  json.json = true;
  BOOST_TEST(cli::job_listing_reads(json) == msg::all_fields);
  cli::listing_options unknown;
  unknown.format = "NoSuchField";
  BOOST_TEST(cli::job_listing_reads(unknown) == msg::all_fields);
}

BOOST_AUTO_TEST_SUITE_END()
