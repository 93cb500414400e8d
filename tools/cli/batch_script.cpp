#include "tools/cli/batch_script.hpp"

#include <sstream>

namespace shoal::cli {

namespace {

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

}  // namespace

std::vector<std::string> script_directives(const std::string& script) {
  std::vector<std::string> out;
  std::istringstream in{script};
  std::string line;
  while (std::getline(in, line)) {
    auto start = line.find_first_not_of(" \t");
    if (start == std::string::npos) continue;
    if (line[start] != '#') break;
    for (const char* tag : {"#SHOAL", "#SBATCH"}) {
      if (line.compare(start, std::char_traits<char>::length(tag), tag) == 0) {
        auto words = split_words(line.substr(start + std::char_traits<char>::length(tag)));
        out.insert(out.end(), words.begin(), words.end());
      }
    }
  }
  return out;
}

void merge_unset(job_options& base, const job_options& given, const CLI::App& cmd) {
  auto set = [&](const char* name) { return cmd.get_option(name)->count() > 0; };
  if (set("--nodes")) base.nodes = given.nodes;
  if (set("--ntasks")) base.ntasks = given.ntasks;
  if (set("--cpus-per-task")) base.cpus_per_task = given.cpus_per_task;
  if (set("--partition")) base.partition = given.partition;
  if (set("--time")) base.time = given.time;
  if (set("--job-name")) base.name = given.name;
  if (set("--nodelist")) base.nodelist = given.nodelist;
  if (set("--exclude")) base.exclude = given.exclude;
  if (set("--chdir")) base.chdir = given.chdir;
  if (set("--requeue")) base.requeue = given.requeue;
  if (set("--nice")) base.nice = given.nice;
  if (set("--jobid")) base.jobid = given.jobid;
  if (set("--cpu-bind")) base.cpu_bind = given.cpu_bind;
  if (set("--output")) base.output = given.output;
  if (set("--error")) base.error = given.error;
  if (set("--geometry")) base.geometry = given.geometry;
  if (set("--no-rotate")) base.no_rotate = given.no_rotate;
  if (set("--conn-type")) base.conn_type = given.conn_type;
  if (set("--node-use")) base.node_use = given.node_use;
}

}  // namespace shoal::cli
