#include "process/task_scripts.hpp"

#include <algorithm>
#include <cctype>

namespace shoal::process {

namespace {

std::string trimmed(std::string s) {
  auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!s.empty() && space(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && space(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

void unset(std::vector<std::string>& env, const std::string& name) {
  auto prefix = name + "=";
  env.erase(std::remove_if(env.begin(), env.end(),
                           [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }),
            env.end());
}

}  // namespace

std::string apply_task_prolog_output(const std::string& output, std::vector<std::string>& env) {
  std::string printed;
  size_t pos = 0;
  while (pos < output.size()) {
    auto end = output.find('\n', pos);
    if (end == std::string::npos) end = output.size();
    auto line = output.substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("print ", 0) == 0) {
      auto text = line.substr(6);
      text.erase(0, text.find_first_not_of(" \t"));
      printed += text + "\n";
    } else if (line.rfind("export ", 0) == 0) {
      auto rest = line.substr(7);
      auto eq = rest.find('=');
      if (eq == std::string::npos) continue;
      auto name = trimmed(rest.substr(0, eq));
      if (name.empty()) continue;
      unset(env, name);
      env.push_back(name + "=" + rest.substr(eq + 1));
    } else if (line.rfind("unset ", 0) == 0) {
      auto name = trimmed(line.substr(6));
      if (!name.empty()) unset(env, name);
    }
  }
  return printed;
}

script_result run_task_script(const std::string& label, const std::string& program,
                              std::vector<std::string> env, uid_t uid, gid_t gid,
                              std::vector<gid_t> groups, const std::string& cwd,
                              std::chrono::seconds timeout) {
  script_spec spec;
  spec.label = label;
  spec.argv = {program};
  spec.env = std::move(env);
  spec.timeout = timeout;
  spec.capture_output = true;
  spec.uid = uid;
  spec.gid = gid;
  spec.groups = std::move(groups);
  spec.cwd = cwd;
  return run_script(spec);
}

}  // namespace shoal::process
