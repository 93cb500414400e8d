#pragma once

// What every accounting store does, written once and run against each (sqlite_test.cpp,
// postgres_test.cpp): SHOAL_STORE_BEHAVIOURS lists the bodies, and each suite makes a case of
// every one.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "accounting/assoc_schema.hpp"
#include "accounting/associations.hpp"
#include "accounting/schema.hpp"
#include "test/unit/accounting/store_env.hpp"

#define SHOAL_STORE_BEHAVIOURS(X)                   \
  X(every_field_round_trips)                        \
  X(rewriting_a_job_replaces_its_row)               \
  X(a_failed_write_leaves_nothing)                  \
  X(text_that_is_not_utf8_is_stored)                \
  X(users_accounts_partitions_names_and_clusters)   \
  X(states_select_on_the_final_state)               \
  X(job_ids_select_jobs_arrays_and_tasks)           \
  X(nodes_select_jobs_that_ran_there)               \
  X(jobs_come_in_order_and_up_to_the_limit)         \
  X(window_selects_jobs_eligible_or_running)        \
  X(reopening_keeps_the_rows)                       \
  X(an_older_schema_is_migrated)                    \
  X(a_newer_schema_is_refused)                      \
  X(a_bad_node_expression_is_an_error)              \
  X(associations_round_trip)                        \
  X(replacing_associations_replaces_all_of_them)    \
  X(a_failed_association_write_leaves_the_old)      \
  X(a_version_1_store_gains_the_association_tables) \
  X(a_version_2_store_gains_the_qos_preempt_columns)

namespace shoal::test::behaviour {

using namespace shoal::accounting;

/// A job with every field set to something other than its default.
inline job_row full_job() {
  job_row j;
  j.cluster = "alpha";
  j.job_id = 4242;
  j.array_job_id = 4240;
  j.array_task_id = 2;
  j.name = "train 'quoted' \"name\"";
  j.user = "alice";
  j.uid = 1001;
  j.gid = 2002;
  j.group = "ml";
  j.account = "research";
  j.partition = "gpu";
  j.qos = "high";
  j.state = "OUT_OF_MEMORY";
  j.reason = "OutOfMemory";
  j.exit_code = 137;
  j.exit_signal = 9;
  j.derived_exit_code = 3;
  j.submit_time = 1700000000;
  j.eligible_time = 1700000005;
  j.start_time = 1700000010;
  j.end_time = 1700003610;
  j.time_limit_s = 7200;
  j.node_count = 2;
  j.nodelist = "gpu[01-02]";
  j.req_cpus = 16;
  j.alloc_cpus = 32;
  j.req_mem_mb = 4096;
  j.req_mem_per_cpu = true;
  j.req_tres = "cpu=16,mem=64G,node=2,gres/gpu=4";
  j.alloc_tres = "cpu=32,mem=128G,node=2,gres/gpu=4";
  j.work_dir = "/home/alice/run";
  j.submit_line = "sbatch --mem-per-cpu=4G -N2 train.sh";
  j.priority = 4294901760u;
  j.requeue_count = 1;
  return j;
}

inline step_row full_step(const job_row& j, uint32_t step_id) {
  step_row s;
  s.cluster = j.cluster;
  s.job_id = j.job_id;
  s.submit_time = j.submit_time;
  s.step_id = step_id;
  s.name = step_id == batch_step ? "batch" : "python";
  s.nodelist = "gpu[01-02]";
  s.node_count = 2;
  s.ntasks = 8;
  s.state = "COMPLETED";
  s.exit_code = 1;
  s.exit_signal = 15;
  s.start_time = j.start_time + 1;
  s.end_time = j.end_time - 1;
  s.user_cpu_us = 123456789012ull;
  s.system_cpu_us = 98765;
  s.max_rss_bytes = 5ull << 33;
  s.max_rss_node = "gpu02";
  s.max_rss_task = 7;
  s.ave_rss_bytes = 3ull << 30;
  s.max_vsize_bytes = 9ull << 34;
  s.read_bytes = 1ull << 40;
  s.written_bytes = 77;
  return s;
}

/// A finished job of cluster c1 with the fields the selection tests use.
inline job_row job(uint32_t id, int64_t submit, int64_t end,
                   const std::string& state = "COMPLETED") {
  job_row j;
  j.cluster = "c1";
  j.job_id = id;
  j.submit_time = submit;
  j.start_time = submit;
  j.end_time = end;
  j.state = state;
  j.name = "job";
  return j;
}

inline std::string text_of(const sql_value& v) {
  return std::holds_alternative<int64_t>(v) ? std::to_string(std::get<int64_t>(v))
                                            : "'" + std::get<std::string>(v) + "'";
}

/// Checks every field of `got` against `want`, naming the ones that differ.
template <class Row>
void check_same(const Row& got, const Row& want) {
  std::vector<std::string> names;
  auto collect = [&](const char* name, const auto&) { names.push_back(name); };
  if constexpr (std::is_same_v<Row, job_row>)
    visit_job_fields(want, collect);
  else
    visit_step_fields(want, collect);
  auto g = row_values(got), w = row_values(want);
  BOOST_REQUIRE_EQUAL(g.size(), w.size());
  for (size_t i = 0; i < g.size(); ++i)
    BOOST_CHECK_MESSAGE(g[i] == w[i],
                        names[i] << ": got " << text_of(g[i]) << ", wrote " << text_of(w[i]));
}

/// "cluster/id@submit" of each job, in the order given.
inline std::vector<std::string> labels(const std::vector<job_record>& records) {
  std::vector<std::string> out;
  for (auto& r : records)
    out.push_back(r.job.cluster + "/" + std::to_string(r.job.job_id) + "@" +
                  std::to_string(r.job.submit_time));
  return out;
}

inline std::vector<job_record> query_ok(job_store& store, const job_query& q) {
  auto r = store.query(q);
  if (!r) BOOST_FAIL("query: " << describe(r.error()));
  return std::move(*r);
}

inline void write_ok(job_store& store, const std::vector<job_row>& jobs,
                     const std::vector<step_row>& steps = {}) {
  auto err = store.write(jobs, steps);
  BOOST_REQUIRE_MESSAGE(!err, "write: " << describe(err));
}

/// The selection tests' jobs: two users, accounts, partitions and names, an array of three
/// tasks, a job id reused later, and the same id on another cluster.
inline std::vector<job_row> assorted_jobs() {
  std::vector<job_row> out;
  auto add = [&](uint32_t id, int64_t submit, uint32_t uid, const char* account,
                 const char* partition, const char* name, const char* state, const char* nodes) {
    auto j = job(id, submit, submit + 1000, state);
    j.uid = uid;
    j.account = account;
    j.partition = partition;
    j.name = name;
    j.nodelist = nodes;
    out.push_back(j);
    return &out.back();
  };
  add(101, 1000, 1000, "physics", "batch", "sim", "COMPLETED", "n[1-2]");
  add(102, 1100, 1001, "chem", "gpu", "train", "FAILED", "g1");
  add(103, 1200, 1000, "chem", "batch", "sim", "CANCELLED", "n[3-4]");
  for (int32_t task = 0; task < 3; ++task) {
    auto* j = add(110 + task, 1300, 1002, "physics", "batch", "arr", "COMPLETED", "n5");
    j->array_job_id = 110;
    j->array_task_id = task;
  }
  add(101, 5000, 1003, "bio", "batch", "again", "TIMEOUT", "n10");
  add(101, 1000, 1000, "physics", "batch", "elsewhere", "COMPLETED", "x1")->cluster = "c2";
  return out;
}

// -- the behaviours ------------------------------------------------------------------------------

inline void every_field_round_trips(store_env& env) {
  auto store = env.open_ok();
  BOOST_TEST(store->schema_version() == current_schema_version);
  auto j = full_job();
  std::vector<step_row> steps{full_step(j, 1), full_step(j, extern_step), full_step(j, 0),
                              full_step(j, batch_step)};
  write_ok(*store, {j}, steps);
  auto found = query_ok(*store, {});
  BOOST_REQUIRE_EQUAL(found.size(), 1u);
  check_same(found[0].job, j);
  BOOST_TEST(found[0].job.req_mem_per_cpu);
  BOOST_TEST(found[0].job.name == j.name);
  BOOST_REQUIRE_EQUAL(found[0].steps.size(), 4u);
  std::vector<uint32_t> order;
  for (auto& s : found[0].steps) order.push_back(s.step_id);
  BOOST_TEST((order == std::vector<uint32_t>{batch_step, extern_step, 0, 1}));
  for (auto& s : found[0].steps) check_same(s, full_step(j, s.step_id));
  BOOST_TEST(found[0].steps[3].max_rss_node == "gpu02");
}

inline void rewriting_a_job_replaces_its_row(store_env& env) {
  auto store = env.open_ok();
  auto running = job(7, 100, 0, "RUNNING");
  running.nodelist = "n1";
  auto step = full_step(running, 0);
  step.end_time = 0;
  step.state = "RUNNING";
  write_ok(*store, {running}, {step});
  auto done = running;
  done.state = "COMPLETED";
  done.end_time = 160;
  done.nodelist = "n[1-2]";
  step.state = "COMPLETED";
  step.end_time = 150;
  // Once, and again as a writer restarted after it would; and twice in one batch.
  write_ok(*store, {done}, {step});
  write_ok(*store, {done}, {step});
  write_ok(*store, {running, done}, {step, step});
  auto found = query_ok(*store, {});
  BOOST_REQUIRE_EQUAL(found.size(), 1u);
  check_same(found[0].job, done);
  BOOST_REQUIRE_EQUAL(found[0].steps.size(), 1u);
  check_same(found[0].steps[0], step);
  job_query on_n2;
  on_n2.nodes = {"n2"};
  BOOST_TEST(query_ok(*store, on_n2).size() == 1u);
  // Nothing to write is no transaction at all.
  BOOST_TEST(!store->write({}, {}));
}

inline void a_failed_write_leaves_nothing(store_env& env) {
  auto store = env.open_ok();
  env.fail_steps_named("refused");
  auto j = job(5, 100, 200);
  j.nodelist = "n1";
  auto good = full_step(j, 0);
  auto bad = full_step(j, 1);
  bad.name = "refused";
  auto err = store->write({j}, {good, bad});
  BOOST_TEST((err == errc::system_error));
  BOOST_TEST(describe(err).find("refused by the test") != std::string::npos, describe(err));
  BOOST_TEST(query_ok(*store, {}).empty());
  job_query on_n1;
  on_n1.nodes = {"n1"};
  BOOST_TEST(query_ok(*store, on_n1).empty());
  // The store goes on: the next write stands alone.
  write_ok(*store, {j}, {good});
  BOOST_TEST(query_ok(*store, on_n1).size() == 1u);
}

inline void text_that_is_not_utf8_is_stored(store_env& env) {
  auto store = env.open_ok();
  // Job names and command lines are the user's bytes. SQLite keeps them as they are; a UTF8
  // PostgreSQL database would refuse them, so that store puts '?' for each bad byte.
  auto j = job(9, 100, 200);
  j.name = "bad\xff\xfe name \xc3";
  j.submit_line = "sbatch --wrap='echo \xe2\x82\xac \xed\xa0\x80'";  // a euro sign, a surrogate
  write_ok(*store, {j});
  auto found = query_ok(*store, {});
  BOOST_REQUIRE_EQUAL(found.size(), 1u);
  auto& name = found[0].job.name;
  BOOST_TEST(name.size() == j.name.size());
  BOOST_TEST((name == j.name || name == "bad?? name ?"), name);
  auto& line = found[0].job.submit_line;
  BOOST_TEST((line == j.submit_line ||
              line == "sbatch --wrap='echo \xe2\x82\xac " + std::string(3, '?') + "'"),
             line);
}

inline void users_accounts_partitions_names_and_clusters(store_env& env) {
  auto store = env.open_ok();
  write_ok(*store, assorted_jobs());
  auto select = [&](auto edit) {
    job_query q;
    edit(q);
    return labels(query_ok(*store, q));
  };
  using v = std::vector<std::string>;
  BOOST_TEST(select([](job_query& q) { q.uids = {1000}; }) ==
             (v{"c1/101@1000", "c2/101@1000", "c1/103@1200"}));
  BOOST_TEST(select([](job_query& q) {
               q.uids = {1001, 1003};
             }) == (v{"c1/101@5000", "c1/102@1100"}));
  BOOST_TEST(select([](job_query& q) { q.accounts = {"chem"}; }) ==
             (v{"c1/102@1100", "c1/103@1200"}));
  BOOST_TEST(select([](job_query& q) { q.partitions = {"gpu"}; }) == (v{"c1/102@1100"}));
  BOOST_TEST(select([](job_query& q) {
               q.names = {"sim", "again"};
             }) == (v{"c1/101@1000", "c1/101@5000", "c1/103@1200"}));
  BOOST_TEST(select([](job_query& q) { q.clusters = {"c2"}; }) == (v{"c2/101@1000"}));
  BOOST_TEST(select([](job_query& q) {
               q.accounts = {"physics"};
               q.partitions = {"batch"};
               q.clusters = {"c1"};
               q.uids = {1000};
             }) == (v{"c1/101@1000"}));
  BOOST_TEST(select([](job_query& q) { q.accounts = {"nobody"}; }).empty());
}

inline void states_select_on_the_final_state(store_env& env) {
  auto store = env.open_ok();
  write_ok(*store, assorted_jobs());
  job_query q;
  q.states = {"failed", "TIMEOUT"};
  BOOST_TEST(labels(query_ok(*store, q)) ==
             (std::vector<std::string>{"c1/101@5000", "c1/102@1100"}));
  q.states = {"RUNNING"};
  BOOST_TEST(query_ok(*store, q).empty());
}

inline void job_ids_select_jobs_arrays_and_tasks(store_env& env) {
  auto store = env.open_ok();
  write_ok(*store, assorted_jobs());
  auto select = [&](std::vector<const char*> ids) {
    job_query q;
    for (auto id : ids) {
      auto sel = parse_job_selector(id);
      BOOST_REQUIRE(sel);
      q.jobs.push_back(*sel);
    }
    return labels(query_ok(*store, q));
  };
  using v = std::vector<std::string>;
  BOOST_TEST(select({"102"}) == (v{"c1/102@1100"}));
  // The array's id selects every task; a task's own id selects it alone.
  BOOST_TEST(select({"110"}) == (v{"c1/110@1300", "c1/111@1300", "c1/112@1300"}));
  BOOST_TEST(select({"111"}) == (v{"c1/111@1300"}));
  BOOST_TEST(select({"110_2"}) == (v{"c1/112@1300"}));
  BOOST_TEST(select({"110_2", "103.batch"}) == (v{"c1/103@1200", "c1/112@1300"}));
  BOOST_TEST(select({"101"}) == (v{"c1/101@1000", "c2/101@1000", "c1/101@5000"}));
  BOOST_TEST(select({"999"}).empty());
}

inline void nodes_select_jobs_that_ran_there(store_env& env) {
  auto store = env.open_ok();
  write_ok(*store, assorted_jobs());
  job_query q;
  q.nodes = {"n2"};
  BOOST_TEST(labels(query_ok(*store, q)) == (std::vector<std::string>{"c1/101@1000"}));
  q.nodes = {"n[2-3]", "g1"};
  BOOST_TEST(labels(query_ok(*store, q)) ==
             (std::vector<std::string>{"c1/101@1000", "c1/102@1100", "c1/103@1200"}));
  q.nodes = {"n99"};
  BOOST_TEST(query_ok(*store, q).empty());
  // A job that never got nodes matches no -N, and is stored all the same.
  auto pending = job(300, 10, 20, "CANCELLED");
  pending.nodelist = "None assigned";
  write_ok(*store, {pending});
  q.nodes = {"None", "assigned"};
  BOOST_TEST(query_ok(*store, q).empty());
  BOOST_TEST(query_ok(*store, {}).size() == 9u);
}

inline void jobs_come_in_order_and_up_to_the_limit(store_env& env) {
  auto store = env.open_ok();
  auto jobs = assorted_jobs();
  std::reverse(jobs.begin(), jobs.end());
  std::vector<step_row> steps;
  for (auto& j : jobs) steps.push_back(full_step(j, 0));
  write_ok(*store, jobs, steps);
  auto all = query_ok(*store, {});
  BOOST_TEST(labels(all) == (std::vector<std::string>{"c1/101@1000", "c2/101@1000", "c1/101@5000",
                                                      "c1/102@1100", "c1/103@1200", "c1/110@1300",
                                                      "c1/111@1300", "c1/112@1300"}));
  for (auto& r : all) {
    BOOST_REQUIRE_EQUAL(r.steps.size(), 1u);
    BOOST_TEST(r.steps[0].cluster == r.job.cluster);
    BOOST_TEST(r.steps[0].submit_time == r.job.submit_time);
  }
  job_query q;
  q.limit = 2;
  BOOST_TEST(labels(query_ok(*store, q)) ==
             (std::vector<std::string>{"c1/101@1000", "c2/101@1000"}));
  q.limit = 0;
  q.with_steps = false;
  auto jobs_only = query_ok(*store, q);
  BOOST_TEST(jobs_only.size() == all.size());
  for (auto& r : jobs_only) BOOST_TEST(r.steps.empty());
}

inline void window_selects_jobs_eligible_or_running(store_env& env) {
  auto store = env.open_ok();
  write_ok(*store,
           {job(1, 100, 200), job(2, 300, 400), job(3, 500, 0, "RUNNING"), job(4, 50, 600)});
  auto window = [&](int64_t start, int64_t end, std::vector<std::string> states = {}) {
    job_query q;
    q.start = start;
    q.end = end;
    q.states = std::move(states);
    std::vector<uint32_t> ids;
    for (auto& r : query_ok(*store, q)) ids.push_back(r.job.job_id);
    return ids;
  };
  using v = std::vector<uint32_t>;
  BOOST_TEST(window(250, 350) == (v{2, 4}));
  BOOST_TEST(window(450, 0) == (v{3, 4}));  // still running counts as running now
  BOOST_TEST(window(0, 90) == (v{4}));
  BOOST_TEST(window(201, 299) == (v{4}));
  BOOST_TEST(window(200, 300) == (v{1, 2, 4}));  // both ends inclusive
  BOOST_TEST(window(0, 0) == (v{1, 2, 3, 4}));
  BOOST_TEST(window(450, 0, {"RUNNING"}) == (v{3}));
  BOOST_TEST(window(700, 800).size() == 1u);  // only the running one
}

inline void reopening_keeps_the_rows(store_env& env) {
  auto j = full_job();
  {
    auto store = env.open_ok();
    write_ok(*store, {j}, {full_step(j, batch_step)});
  }
  auto again = env.open_ok();
  auto found = query_ok(*again, {});
  BOOST_REQUIRE_EQUAL(found.size(), 1u);
  check_same(found[0].job, j);
  BOOST_REQUIRE_EQUAL(found[0].steps.size(), 1u);
  check_same(found[0].steps[0], full_step(j, batch_step));
}

inline void an_older_schema_is_migrated(store_env& env) {
  // Version 0, where the migration list starts: the version table and nothing else.
  env.raw_exec("CREATE TABLE schema_version (version INTEGER NOT NULL)");
  env.raw_exec("INSERT INTO schema_version (version) VALUES (0)");
  auto store = env.open_ok();
  BOOST_TEST(store->schema_version() == current_schema_version);
  write_ok(*store, {full_job()});
  BOOST_TEST(query_ok(*store, {}).size() == 1u);
  store.reset();
  // Migrated once: the version row says so, and opening again changes nothing.
  auto again = env.open_ok();
  BOOST_TEST(query_ok(*again, {}).size() == 1u);
}

inline void a_newer_schema_is_refused(store_env& env) {
  env.open_ok();
  auto newer = current_schema_version + 1;
  env.raw_exec("UPDATE schema_version SET version = " + std::to_string(newer));
  auto s = env.open();
  BOOST_REQUIRE(!s);
  BOOST_TEST((s.error() == errc::incompatible_version));
  auto text = describe(s.error());
  BOOST_TEST(text.find("version " + std::to_string(newer)) != std::string::npos, text);
  BOOST_TEST(text.find("version " + std::to_string(current_schema_version)) != std::string::npos,
             text);
}

inline void a_bad_node_expression_is_an_error(store_env& env) {
  auto store = env.open_ok();
  job_query q;
  q.nodes = {"n[1-"};
  auto r = store->query(q);
  BOOST_TEST(!r);
  BOOST_TEST((r.error() == errc::invalid_hostlist));
}

/// Every object with every field off its default.
inline msg::association_data full_associations() {
  msg::association_data d;
  d.clusters = {{"alpha", "ctl1", 6817}, {"beta", "", 0}};
  d.accounts = {{"physics", "Physics 'dept'", "science"}, {"root", "default root account", "root"}};
  d.users = {{"alice", "physics", "Operator"}, {"bob", "physics", "None"}};
  msg::association a;
  a.cluster = "alpha";
  a.account = "physics";
  a.user = "alice";
  a.partition = "gpu";
  a.parent = "physics";
  a.shares = 7;
  a.priority = 3;
  a.grp_jobs = 10;
  a.grp_submit = 20;
  a.grp_tres = "cpu=8,mem=1000M";
  a.grp_wall_min = 600;
  a.max_jobs = 4;
  a.max_submit = 8;
  a.max_tres = "cpu=2,node=1";
  a.max_wall_min = 60;
  a.qos = {"high", "normal"};
  a.default_qos = "normal";
  msg::association plain;
  plain.cluster = "alpha";
  plain.account = "physics";
  plain.parent = "root";
  d.associations = {plain, a};  // in key order: the account's own (user "") first
  msg::qos_info q;
  q.name = "high";
  q.description = "high priority";
  q.priority = 100;
  q.flags = "DenyOnLimit";
  q.usage_factor = 2.5;
  q.grace_time_s = 30;
  q.grp_jobs = 11;
  q.grp_submit = 21;
  q.grp_tres = "cpu=16";
  q.grp_wall_min = 700;
  q.max_tres = "cpu=4";
  q.max_wall_min = 120;
  q.max_tres_per_user = "cpu=8";
  q.max_jobs_per_user = 5;
  q.max_submit_per_user = 9;
  q.max_tres_per_account = "cpu=12";
  q.max_jobs_per_account = 6;
  q.max_submit_per_account = 12;
  q.min_tres = "cpu=1";
  q.preempt = {"normal"};
  q.preempt_mode = "CANCEL";
  msg::qos_info normal;
  normal.name = "normal";
  d.qos = {q, normal};
  return d;
}

/// Each table's rows as their insert parameters, for comparing whole tables.
inline std::vector<std::string> rows_text(const msg::association_data& d) {
  std::vector<std::string> out;
  for_each_assoc_table(d, [&](const auto& rows) {
    for (auto& r : rows) {
      std::string line;
      for (auto& v : assoc_values(r)) line += text_of(v) + " ";
      out.push_back(line);
    }
  });
  return out;
}

inline msg::association_data read_assocs_ok(job_store& store) {
  auto r = store.read_associations();
  if (!r) BOOST_FAIL("read_associations: " << describe(r.error()));
  return std::move(*r);
}

inline void associations_round_trip(store_env& env) {
  auto store = env.open_ok();
  BOOST_TEST(rows_text(read_assocs_ok(*store)).empty());
  auto d = full_associations();
  BOOST_REQUIRE(!store->replace_associations(d));
  // Each table comes back in key order, which full_associations keeps.
  BOOST_TEST(rows_text(read_assocs_ok(*store)) == rows_text(d), boost::test_tools::per_element());
  auto again = env.open_ok();
  BOOST_TEST(rows_text(read_assocs_ok(*again)) == rows_text(d), boost::test_tools::per_element());
}

inline void replacing_associations_replaces_all_of_them(store_env& env) {
  auto store = env.open_ok();
  BOOST_REQUIRE(!store->replace_associations(full_associations()));
  msg::association_data small;
  accounting::ensure_cluster(small, "gamma");
  BOOST_REQUIRE(!store->replace_associations(small));
  auto got = read_assocs_ok(*store);
  BOOST_TEST(got.clusters.size() == 1u);
  BOOST_TEST(got.clusters.at(0).name == "gamma");
  BOOST_TEST(got.users.size() == 1u);
  BOOST_TEST(got.associations.size() == 2u);  // root's account and root's user association
  BOOST_TEST(got.qos.size() == 1u);
  BOOST_TEST(got.qos.at(0).name == "normal");
  BOOST_TEST(got.qos.at(0).usage_factor == 1.0);
  BOOST_TEST(got.qos.at(0).max_jobs_per_user == -1);
}

inline void a_failed_association_write_leaves_the_old(store_env& env) {
  auto store = env.open_ok();
  auto d = full_associations();
  BOOST_REQUIRE(!store->replace_associations(d));
  auto twice = d;
  twice.users.push_back(twice.users.front());  // the same key twice: the insert fails
  twice.clusters.clear();
  auto err = store->replace_associations(twice);
  BOOST_TEST(bool(err));
  BOOST_TEST((err == errc::system_error));
  BOOST_TEST(rows_text(read_assocs_ok(*store)) == rows_text(d), boost::test_tools::per_element());
}

inline void a_version_1_store_gains_the_association_tables(store_env& env) {
  {
    auto store = env.open_ok();
    write_ok(*store, {full_job()});
  }
  for (auto t : {"acct_clusters", "acct_accounts", "acct_users", "acct_associations", "acct_qos"})
    env.raw_exec(std::string{"DROP TABLE "} + t);
  env.raw_exec("UPDATE schema_version SET version = 1");
  auto store = env.open_ok();
  BOOST_TEST(store->schema_version() == current_schema_version);
  BOOST_TEST(query_ok(*store, {}).size() == 1u);
  BOOST_REQUIRE(!store->replace_associations(full_associations()));
  BOOST_TEST(read_assocs_ok(*store).users.size() == 2u);
}

inline void a_version_2_store_gains_the_qos_preempt_columns(store_env& env) {
  {
    auto store = env.open_ok();
    BOOST_REQUIRE(!store->replace_associations(full_associations()));
  }
  // acct_qos as version 2 made it: every column but the two version 3 added.
  env.raw_exec("ALTER TABLE acct_qos DROP COLUMN preempt");
  env.raw_exec("ALTER TABLE acct_qos DROP COLUMN preempt_mode");
  env.raw_exec("UPDATE schema_version SET version = 2");
  auto store = env.open_ok();
  BOOST_TEST(store->schema_version() == current_schema_version);
  auto kept = read_assocs_ok(*store);
  BOOST_REQUIRE_EQUAL(kept.qos.size(), 2u);
  BOOST_TEST(kept.qos[0].max_jobs_per_user == 5);  // the rows stay
  BOOST_TEST(kept.qos[0].preempt.empty());         // the new columns start empty
  BOOST_REQUIRE(!store->replace_associations(full_associations()));
  BOOST_TEST(read_assocs_ok(*store).qos[0].preempt == std::vector<std::string>{"normal"});
  BOOST_TEST(read_assocs_ok(*store).qos[0].preempt_mode == "CANCEL");
}

}  // namespace shoal::test::behaviour
