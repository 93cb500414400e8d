// sacct's names of jobs and steps, the order of steps, and -j's job id forms.

#include <boost/test/unit_test.hpp>

#include "accounting/from_record.hpp"
#include "accounting/rows.hpp"

namespace {

using namespace shoal;
using namespace shoal::accounting;

}  // namespace

BOOST_AUTO_TEST_SUITE(rows)

BOOST_AUTO_TEST_CASE(step_ids_print_as_sacct_prints_them) {
  BOOST_TEST(step_id_text("123", batch_step) == "123.batch");
  BOOST_TEST(step_id_text("123", extern_step) == "123.extern");
  BOOST_TEST(step_id_text("123", interactive_step) == "123.interactive");
  BOOST_TEST(step_id_text("123", 0) == "123.0");
  BOOST_TEST(step_id_text("120_4", 2) == "120_4.2");
}

BOOST_AUTO_TEST_CASE(array_tasks_are_named_by_their_array_and_index) {
  job_row plain;
  plain.job_id = 123;
  BOOST_TEST(job_id_text(plain) == "123");
  job_row task;
  task.job_id = 125;
  task.array_job_id = 120;
  task.array_task_id = 4;
  BOOST_TEST(job_id_text(task) == "120_4");
}

BOOST_AUTO_TEST_CASE(special_steps_come_before_numbered_ones) {
  BOOST_TEST(step_order(batch_step, extern_step));
  BOOST_TEST(step_order(extern_step, interactive_step));
  BOOST_TEST(step_order(interactive_step, 0));
  BOOST_TEST(step_order(0, 1));
  BOOST_TEST(!step_order(1, 0));
  BOOST_TEST(!step_order(0, batch_step));
}

BOOST_AUTO_TEST_CASE(job_selectors_take_ids_and_array_tasks) {
  auto plain = parse_job_selector("123");
  BOOST_REQUIRE(plain);
  BOOST_TEST(plain->job_id == 123u);
  BOOST_TEST(plain->array_task_id == -1);
  auto task = parse_job_selector("120_4");
  BOOST_REQUIRE(task);
  BOOST_TEST(task->job_id == 120u);
  BOOST_TEST(task->array_task_id == 4);
  auto step = parse_job_selector("123.batch");
  BOOST_REQUIRE(step);
  BOOST_TEST(step->job_id == 123u);
  for (auto bad : {"", "x", "0", "12x", "120_", "120_x", "_4", "-3", "120_-1"}) {
    auto r = parse_job_selector(bad);
    BOOST_TEST_INFO("input '" << bad << "'");
    BOOST_TEST((r == errc::invalid_request));
  }
}

BOOST_AUTO_TEST_CASE(a_stored_step_is_named_by_its_command_the_batch_step_batch) {
  msg::job_record rec;
  rec.info.job_id = 7;
  rec.info.name = "train.sh";
  auto step = [](uint32_t id, std::string name) {
    msg::step_record s;
    s.step_id = id;
    s.listing.name = std::move(name);
    return s;
  };
  rec.done_steps = {step(msg::batch_step_id, ""), step(0, "hostname"), step(1, "")};
  auto stored = rows_of(rec, "cluster");
  BOOST_REQUIRE_EQUAL(stored.steps.size(), 3u);
  BOOST_CHECK_EQUAL(stored.steps[0].name, "batch");
  BOOST_CHECK_EQUAL(stored.steps[1].name, "hostname");
  // A step saved before steps kept their listing: the job's name, as sacct showed it then.
  BOOST_CHECK_EQUAL(stored.steps[2].name, "train.sh");
}

BOOST_AUTO_TEST_SUITE_END()
