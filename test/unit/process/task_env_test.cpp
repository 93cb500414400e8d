// The environment a task starts with: the SHOAL_* variables, Slurm's SLURM_* names beside them
// (unless SlurmEnv=NO), and PATH with shoal's folders in front.

#include <boost/test/unit_test.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "process/task_launch.hpp"

using namespace shoal;
using namespace shoal::process;
namespace fs = std::filesystem;

namespace {

/// The value of `key` in `env`, or "<unset>".
std::string value(const std::vector<std::string>& env, const std::string& key) {
  auto* entry = find_env(env, key);
  return entry != nullptr ? entry->substr(key.size() + 1) : std::string{"<unset>"};
}

/// Rank 5 of a 7-task step 3 on the second of three nodes (3, 2, 2 tasks: ranks 3-4 here), in
/// a job of four nodes and 12 tasks.
msg::launch_request step_launch() {
  msg::launch_request req;
  req.job_id = 42;
  req.step_id = 3;
  req.env = {"HOME=/home/alice", "PATH=/usr/bin:/bin"};
  req.cwd = "/home/alice/run";
  req.nodelist = "n[1-3]";
  req.node_index = 1;
  req.node_count = 3;
  req.ntasks = 7;
  req.ranks = {3, 4};
  req.job_nodelist = "n[1-4]";
  req.job_name = "relax";
  req.partition = "batch";
  req.job_node_count = 4;
  req.job_ntasks = 12;
  return req;
}

/// The batch script of the same job, on its first node.
msg::launch_request batch_launch() {
  auto req = step_launch();
  req.step_id = msg::batch_step_id;
  req.batch = true;
  req.nodelist = "n1";
  req.node_index = 0;
  req.node_count = 1;
  req.ntasks = 1;
  req.ranks = {0};
  return req;
}

/// A fresh directory under /tmp, removed afterwards.
struct temp_dir {
  temp_dir() {
    auto base = fs::temp_directory_path() / "shoal-task-env-XXXXXX";
    std::string tmpl = base.string();
    BOOST_REQUIRE_MESSAGE(::mkdtemp(tmpl.data()) != nullptr,
                          "mkdtemp " << tmpl << ": " << std::strerror(errno));
    path = tmpl;
  }
  ~temp_dir() { fs::remove_all(path); }
  std::string path;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(task_env)

BOOST_AUTO_TEST_CASE(a_step_task_gets_slurms_names_beside_shoals) {
  task_env_settings settings;
  settings.cluster_name = "lab";
  auto env = build_task_env(step_launch(), 4, 1, "n2", settings);
  BOOST_TEST(value(env, "SLURM_JOB_ID") == "42");
  BOOST_TEST(value(env, "SLURM_JOBID") == "42");
  BOOST_TEST(value(env, "SLURM_STEP_ID") == "3");
  BOOST_TEST(value(env, "SLURM_STEPID") == "3");
  BOOST_TEST(value(env, "SLURM_JOB_NAME") == "relax");
  BOOST_TEST(value(env, "SLURM_NTASKS") == "7");
  BOOST_TEST(value(env, "SLURM_NPROCS") == "7");
  BOOST_TEST(value(env, "SLURM_PROCID") == "4");
  BOOST_TEST(value(env, "SLURM_LOCALID") == "1");
  BOOST_TEST(value(env, "SLURM_NODEID") == "1");
  BOOST_TEST(value(env, "SLURM_JOB_NODELIST") == "n[1-4]");
  BOOST_TEST(value(env, "SLURM_NODELIST") == "n[1-4]");
  BOOST_TEST(value(env, "SLURM_STEP_NODELIST") == "n[1-3]");
  BOOST_TEST(value(env, "SLURM_JOB_NUM_NODES") == "4");
  BOOST_TEST(value(env, "SLURM_NNODES") == "3");
  BOOST_TEST(value(env, "SLURM_STEP_NUM_NODES") == "3");
  BOOST_TEST(value(env, "SLURM_STEP_NUM_TASKS") == "7");
  BOOST_TEST(value(env, "SLURM_TASKS_PER_NODE") == "3,2(x2)");
  BOOST_TEST(value(env, "SLURM_STEP_TASKS_PER_NODE") == "3,2(x2)");
  BOOST_TEST(value(env, "SLURM_SUBMIT_DIR") == "/home/alice/run");
  BOOST_TEST(value(env, "SLURM_JOB_PARTITION") == "batch");
  BOOST_TEST(value(env, "SLURMD_NODENAME") == "n2");
  BOOST_TEST(value(env, "SLURM_CLUSTER_NAME") == "lab");
  // Not asked for: Slurm leaves it out.
  BOOST_TEST(value(env, "SLURM_CPUS_PER_TASK") == "<unset>");
  BOOST_TEST(value(env, "SHOAL_CPUS_PER_TASK") == "1");
  BOOST_TEST(value(env, "SLURM_ARRAY_JOB_ID") == "<unset>");
  // The SHOAL_* set is still there.
  BOOST_TEST(value(env, "SHOAL_PROCID") == "4");
  BOOST_TEST(value(env, "SHOAL_JOB_NODELIST") == "n[1-4]");
}

BOOST_AUTO_TEST_CASE(a_batch_script_sees_the_job_and_no_step) {
  auto req = batch_launch();
  // As if submitted from inside step 7 of another job.
  req.env.push_back("SLURM_STEP_ID=7");
  req.env.push_back("SLURM_STEPID=7");
  req.env.push_back("SLURM_JOB_ID=1");
  auto env = build_task_env(req, 0, 0, "n1", task_env_settings{});
  BOOST_TEST(value(env, "SLURM_JOB_ID") == "42");
  BOOST_TEST(value(env, "SLURM_STEP_ID") == "<unset>");
  BOOST_TEST(value(env, "SLURM_STEPID") == "<unset>");
  BOOST_TEST(value(env, "SLURM_STEP_NODELIST") == "<unset>");
  BOOST_TEST(value(env, "SLURM_NTASKS") == "12");
  BOOST_TEST(value(env, "SLURM_NPROCS") == "12");
  BOOST_TEST(value(env, "SLURM_NNODES") == "4");
  BOOST_TEST(value(env, "SLURM_JOB_NUM_NODES") == "4");
  BOOST_TEST(value(env, "SLURM_TASKS_PER_NODE") == "3(x4)");
  BOOST_TEST(value(env, "SLURM_NODELIST") == "n[1-4]");
  BOOST_TEST(value(env, "SLURM_PROCID") == "0");
  BOOST_TEST(value(env, "SLURM_NODEID") == "0");
  BOOST_TEST(value(env, "SLURM_LOCALID") == "0");
  // No ClusterName known: left out rather than made up.
  BOOST_TEST(value(env, "SLURM_CLUSTER_NAME") == "<unset>");
  BOOST_TEST(value(env, "SHOAL_STEP_ID") == "batch");
}

BOOST_AUTO_TEST_CASE(cpus_per_task_and_array_variables_appear_only_when_the_job_has_them) {
  auto req = batch_launch();
  req.cpus_per_task = 4;
  req.cpus_per_task_set = true;
  req.env.push_back("SHOAL_ARRAY_JOB_ID=40");
  req.env.push_back("SHOAL_ARRAY_TASK_ID=2");
  req.env.push_back("SHOAL_ARRAY_TASK_COUNT=5");
  req.env.push_back("SHOAL_ARRAY_TASK_MIN=0");
  req.env.push_back("SHOAL_ARRAY_TASK_MAX=4");
  auto env = build_task_env(req, 0, 0, "n1", task_env_settings{});
  BOOST_TEST(value(env, "SLURM_CPUS_PER_TASK") == "4");
  BOOST_TEST(value(env, "SLURM_ARRAY_JOB_ID") == "40");
  BOOST_TEST(value(env, "SLURM_ARRAY_TASK_ID") == "2");
  BOOST_TEST(value(env, "SLURM_ARRAY_TASK_COUNT") == "5");
  BOOST_TEST(value(env, "SLURM_ARRAY_TASK_MIN") == "0");
  BOOST_TEST(value(env, "SLURM_ARRAY_TASK_MAX") == "4");
}

BOOST_AUTO_TEST_CASE(the_jobs_cpus_per_node_get_slurms_names_when_the_controller_sent_them) {
  auto req = step_launch();
  BOOST_TEST(value(build_task_env(req, 4, 1, "n2", task_env_settings{}),
                   "SLURM_JOB_CPUS_PER_NODE") == "<unset>");
  req.env.push_back("SHOAL_JOB_CPUS_PER_NODE=4(x3),2");
  req.env.push_back("SHOAL_CPUS_ON_NODE=4");
  auto env = build_task_env(req, 4, 1, "n2", task_env_settings{});
  BOOST_TEST(value(env, "SLURM_JOB_CPUS_PER_NODE") == "4(x3),2");
  BOOST_TEST(value(env, "SLURM_CPUS_ON_NODE") == "4");
}

BOOST_AUTO_TEST_CASE(allocated_gpus_are_named_as_slurms_gpu_plugin_names_them) {
  task_env_settings settings;
  auto batch = batch_launch();
  batch.gres = {{0, "gpu", {1, 3}}, {0, "nic", {0}}};
  auto env = build_task_env(batch, 0, 0, "n1", settings);
  for (const char* key :
       {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK", "GPU_DEVICE_ORDINAL"})
    BOOST_TEST(value(env, key) == "1,3");
  BOOST_TEST(value(env, "SLURM_JOB_GPUS") == "1,3");
  BOOST_TEST(value(env, "SLURM_GPUS_ON_NODE") == "2");
  BOOST_TEST(value(env, "SLURM_STEP_GPUS") == "<unset>");
  auto step = step_launch();
  step.gres = {{0, "gpu", {0}}};
  env = build_task_env(step, 4, 1, "n2", settings);
  BOOST_TEST(value(env, "CUDA_VISIBLE_DEVICES") == "0");
  BOOST_TEST(value(env, "SLURM_STEP_GPUS") == "0");
  // SlurmEnv=NO: the devices are still named, Slurm's own variables are not.
  settings.slurm_env = false;
  env = build_task_env(step, 4, 1, "n2", settings);
  BOOST_TEST(value(env, "CUDA_VISIBLE_DEVICES") == "0");
  BOOST_TEST(value(env, "SLURM_STEP_GPUS") == "<unset>");
}

BOOST_AUTO_TEST_CASE(a_job_without_gpus_on_a_gpu_node_sees_none_and_elsewhere_nothing_changes) {
  task_env_settings settings;
  auto step = step_launch();
  step.env.push_back("CUDA_VISIBLE_DEVICES=0,1");
  step.env.push_back("SLURM_STEP_GPUS=0,1");
  step.gres = {{0, "gpu", {}}};
  auto env = build_task_env(step, 4, 1, "n2", settings);
  BOOST_TEST(value(env, "CUDA_VISIBLE_DEVICES") == "<unset>");
  BOOST_TEST(value(env, "SLURM_STEP_GPUS") == "<unset>");
  step.gres.clear();  // a node without GPUs
  env = build_task_env(step, 4, 1, "n2", settings);
  BOOST_TEST(value(env, "CUDA_VISIBLE_DEVICES") == "0,1");
}

BOOST_AUTO_TEST_CASE(slurm_env_off_sets_no_slurm_variable_and_keeps_the_users_own) {
  auto req = step_launch();
  req.env.push_back("SLURM_CONF=/etc/slurm/slurm.conf");
  req.env.push_back("SHOAL_ARRAY_TASK_ID=2");
  req.env.push_back("SHOAL_JOB_CPUS_PER_NODE=4(x3),2");
  req.cpus_per_task_set = true;
  task_env_settings settings;
  settings.slurm_env = false;
  settings.cluster_name = "lab";
  auto env = build_task_env(req, 4, 1, "n2", settings);
  for (auto& entry : env) {
    bool slurm = entry.rfind("SLURM", 0) == 0;
    BOOST_CHECK_MESSAGE(!slurm || entry == "SLURM_CONF=/etc/slurm/slurm.conf", entry);
  }
  BOOST_TEST(value(env, "SHOAL_JOB_ID") == "42");
  BOOST_TEST(value(env, "SHOAL_PROCID") == "4");
}

BOOST_AUTO_TEST_CASE(cpu_bind_variables_get_slurms_names_only_when_asked) {
  auto spec = topology::parse_cpu_bind("cores");
  BOOST_REQUIRE(spec);
  std::vector<std::string> env;
  set_cpu_bind_env(env, *spec, {{0}, {1}}, 8);
  BOOST_TEST(value(env, "SLURM_CPU_BIND") == "<unset>");
  set_cpu_bind_env(env, *spec, {{0}, {1}}, 8, true);
  BOOST_TEST(value(env, "SLURM_CPU_BIND") == "quiet,mask_cpu:0x01,0x02");
  BOOST_TEST(value(env, "SLURM_CPU_BIND_TYPE") == "mask_cpu:");
  BOOST_TEST(value(env, "SLURM_CPU_BIND_LIST") == "0x01,0x02");
  BOOST_TEST(value(env, "SLURM_CPU_BIND_VERBOSE") == "quiet");
  BOOST_TEST(value(env, "SHOAL_CPU_BIND") == "quiet,mask_cpu:0x01,0x02");
}

BOOST_AUTO_TEST_CASE(path_gets_shoals_folders_first_unless_it_holds_them_already) {
  task_env_settings settings;
  settings.shoal_dir = "/opt/shoal/bin";
  settings.slurm_names_dir = "/opt/shoal/bin/slurm-names";
  std::vector<std::string> env{"PATH=/home/a/bin:/usr/bin"};
  BOOST_TEST(task_path(env, settings) ==
             "/opt/shoal/bin:/opt/shoal/bin/slurm-names:/home/a/bin:/usr/bin");
  // Installed where the user looks already: the user's order stands.
  settings.shoal_dir = "/usr/bin";
  settings.slurm_names_dir.clear();
  BOOST_TEST(task_path(env, settings) == "/home/a/bin:/usr/bin");
  // A job submitted from inside a job: nothing added twice.
  settings.shoal_dir = "/opt/shoal/bin";
  settings.slurm_names_dir = "/opt/shoal/bin/slurm-names";
  std::vector<std::string> nested{"PATH=" + task_path(env, settings)};
  BOOST_TEST(task_path(nested, settings) == value(nested, "PATH"));
  // No PATH in the request: ours in front of the default.
  settings.default_path = "/usr/bin:/bin";
  BOOST_TEST(task_path({}, settings) == "/opt/shoal/bin:/opt/shoal/bin/slurm-names:/usr/bin:/bin");
  // SlurmEnv=NO: `shoal` stays reachable, the Slurm names do not appear.
  settings.slurm_env = false;
  BOOST_TEST(task_path(env, settings) == "/opt/shoal/bin:/home/a/bin:/usr/bin");
  auto task = build_task_env(step_launch(), 3, 0, "n2", settings);
  BOOST_TEST(value(task, "PATH") == "/opt/shoal/bin:/usr/bin:/bin");
}

BOOST_AUTO_TEST_CASE(a_request_without_path_keeps_none_when_there_is_nothing_to_add) {
  auto req = step_launch();
  req.env = {"HOME=/home/alice"};
  auto env = build_task_env(req, 3, 0, "n2", task_env_settings{});
  BOOST_TEST(value(env, "PATH") == "<unset>");
}

BOOST_AUTO_TEST_CASE(command_dirs_are_the_folders_that_exist) {
  temp_dir dir;
  task_env_settings settings;
  find_command_dirs(dir.path, settings);
  BOOST_TEST(settings.shoal_dir == "");
  BOOST_TEST(settings.slurm_names_dir == "");
  auto shoal = dir.path + "/shoal";
  std::ofstream{shoal} << "#!/bin/sh\n";
  // Not executable: no use on PATH.
  find_command_dirs(dir.path, settings);
  BOOST_TEST(settings.shoal_dir == "");
  ::chmod(shoal.c_str(), 0755);
  fs::create_directory(dir.path + "/" + slurm_names_folder);
  find_command_dirs(dir.path, settings);
  BOOST_TEST(settings.shoal_dir == dir.path);
  BOOST_TEST(settings.slurm_names_dir == dir.path + "/slurm-names");
}

BOOST_AUTO_TEST_CASE(installed_slurm_names_are_found_under_lib_shoal) {
  // The package's layout: /usr/bin/shoal and /usr/lib/shoal/slurm-names/.
  temp_dir dir;
  fs::create_directories(dir.path + "/bin");
  fs::create_directories(dir.path + "/lib/shoal/" + slurm_names_folder);
  task_env_settings settings;
  find_command_dirs(dir.path + "/bin", settings);
  BOOST_TEST(settings.slurm_names_dir == dir.path + "/lib/shoal/slurm-names");
  // A build's own folder beside the binary wins.
  fs::create_directories(dir.path + "/bin/" + slurm_names_folder);
  find_command_dirs(dir.path + "/bin", settings);
  BOOST_TEST(settings.slurm_names_dir == dir.path + "/bin/slurm-names");
}

BOOST_AUTO_TEST_CASE(shoald_hands_its_settings_to_stepd_through_the_environment) {
  export_task_env("relative.conf", false, "lab");
  auto settings = task_env_from_environment();
  BOOST_TEST(settings.shoal_conf == fs::current_path().string() + "/relative.conf");
  BOOST_TEST(!settings.slurm_env);
  BOOST_TEST(settings.cluster_name == "lab");
  export_task_env("", true, "");
  settings = task_env_from_environment();
  BOOST_TEST(settings.slurm_env);
  BOOST_TEST(settings.cluster_name == "");
  ::unsetenv("SHOAL_CONF");
}

BOOST_AUTO_TEST_SUITE_END()
