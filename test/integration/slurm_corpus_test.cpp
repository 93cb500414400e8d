// Batch scripts and shell sessions in the styles of site guides and Slurm's documentation
// (test/data/slurm_corpus), run unchanged through Slurm's command names on a local cluster of
// two nodes with two GPUs each (issue 18, "Show it").
//
// NN-name.sh is submitted with `sbatch NN-name.sh`; NN-name.session is run by bash, as a user
// would type it, with the slurm-names folder first on PATH. NN-name.expected holds what it must
// print: for a script, its output file; for a session, its standard output. Header lines:
//   # state: S     the script's job ends in state S (default COMPLETED)
//   # exit: N      the job's exit code (script; unchecked without) or the session's exit
//                  status (default 0)
//   # output: F    the script's output file (default slurm-{JOBID}.out)
//   # match: prefix  the output need only begin with the text
// {HOST} stands for this host's name and {JOBID} for the script's job id.

#include <stdlib.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;
namespace fs = std::filesystem;

namespace {

struct expectation {
  std::string state = "COMPLETED";
  int exit = 0;
  bool exit_given = false;
  std::string output = "slurm-{JOBID}.out";
  bool prefix = false;
  std::string text;
};

expectation read_expectation(const std::string& path) {
  expectation e;
  for (auto& line : lines_of(read_file(path))) {
    auto header = [&](const char* key) {
      std::string start = std::string{"# "} + key + ": ";
      return line.rfind(start, 0) == 0 ? line.substr(start.size()) : std::string{};
    };
    if (auto v = header("state"); !v.empty()) {
      e.state = v;
    } else if (auto v = header("exit"); !v.empty()) {
      e.exit = std::stoi(v);
      e.exit_given = true;
    } else if (auto v = header("output"); !v.empty()) {
      e.output = v;
    } else if (header("match") == "prefix") {
      e.prefix = true;
    } else {
      e.text += line + "\n";
    }
  }
  return e;
}

std::string substitute(std::string text, const std::map<std::string, std::string>& values) {
  for (auto& [key, value] : values)
    for (size_t at = text.find(key); at != std::string::npos;
         at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

std::string host_name() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(slurm_script_corpus, two_gpu_nodes)

BOOST_AUTO_TEST_CASE(every_script_and_session_runs_unchanged_through_slurms_names) {
  const fs::path corpus = std::string{SHOAL_TEST_DATA} + "/slurm_corpus";
  std::vector<fs::path> entries;
  for (auto& entry : fs::directory_iterator(corpus))
    if (entry.path().extension() == ".sh" || entry.path().extension() == ".session")
      entries.push_back(entry.path());
  std::sort(entries.begin(), entries.end());
  BOOST_TEST(entries.size() >= 25u);
  const char* path = std::getenv("PATH");
  command_options opt;
  opt.env = {
      {"SHOAL_CONF", conf},
      {"PATH", bin_path("slurm-names") + ":" + fs::path{bin_path("shoal")}.parent_path().string() +
                   ":" + (path != nullptr ? path : "/usr/bin:/bin")}};
  opt.timeout = 120s;
  for (auto& entry : entries) {
    auto name = entry.stem().string();
    BOOST_TEST_CONTEXT(entry.filename().string()) {
      auto expected = read_expectation((corpus / (name + ".expected")).string());
      auto work = scratch.file(name);
      fs::create_directories(work);
      fs::copy_file(entry, fs::path{work} / entry.filename());
      opt.cwd = work;
      std::map<std::string, std::string> values{{"{HOST}", host_name()}};
      if (entry.extension() == ".session") {
        auto r = run_command({"bash", entry.filename().string()}, opt);
        BOOST_TEST(r.exit_code == expected.exit, r.describe());
        auto want = substitute(expected.text, values);
        if (expected.prefix)
          BOOST_TEST(r.out.rfind(want, 0) == 0u, r.describe());
        else
          BOOST_TEST(r.out == want, r.describe());
        continue;
      }
      // The link itself: run_command looks its program up on the test's own PATH.
      auto r = run_command({bin_path("slurm-names/sbatch"), entry.filename().string()}, opt);
      auto id = submitted_job_id(r.out);
      BOOST_TEST((r.exit_code == 0 && id != 0), r.describe());
      if (id == 0) continue;
      values["{JOBID}"] = std::to_string(id);
      BOOST_TEST(wait_job_state(id, expected.state, 60s), "job " << id << " is " << job_state(id));
      if (expected.exit_given) BOOST_TEST(job(id).value("exit_code", -1) == expected.exit);
      auto text = read_file(work + "/" + substitute(expected.output, values));
      auto want = substitute(expected.text, values);
      if (expected.prefix)
        BOOST_TEST(text.rfind(want, 0) == 0u, text);
      else
        BOOST_TEST(text == want);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
