// `shoal batch`: sbatch. Queues a script to run on the first node of its allocation, with its
// output in a file, and prints "Submitted batch job N".

#include <fstream>
#include <sstream>

#include "messages/type_ids.hpp"
#include "tools/cli/batch_script.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/job_options.hpp"
#include "tools/cli/session.hpp"

namespace shoal::cli {

command_runner add_batch_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("batch", "Queue a batch script (sbatch)");
  auto opts = std::make_shared<job_options>();
  add_job_options(*cmd, *opts, true);
  cmd->prefix_command();
  cmd->footer(
      "Usage: shoal batch [OPTIONS] SCRIPT [ARGS...]\n"
      "#SHOAL (or #SBATCH) lines at the top of the script set options; the command\n"
      "line wins. Output goes to shoal-%j.out in the current directory.");
  return [cmd, opts, &conf]() -> int {
    std::vector<std::string> args;
    for (auto& extra : cmd->remaining()) args.push_back(extra);
    // Options end where the command starts; an unknown option is a usage error, not a command.
    if (!args.empty() && args.front().size() > 1 && args.front()[0] == '-')
      return fail("batch", "unrecognized option '" + args.front() + "'", exit_usage);
    if (args.empty())
      return fail("batch", "no script given (shoal batch [OPTIONS] SCRIPT [ARGS...])", exit_usage);
    auto path = args.front();
    std::ifstream in{path};
    if (!in) return fail("batch", "cannot read script '" + path + "'", exit_usage);
    std::stringstream text;
    text << in.rdbuf();
    // #SHOAL lines set options; the command line wins, so parse them first and the command line
    // again on top (single-value options keep their last value).
    auto directives = script_directives(text.str());
    if (!directives.empty()) {
      auto given = *opts;
      CLI::App from_script{"#SHOAL directives"};
      auto script_opts = std::make_shared<job_options>();
      add_job_options(from_script, *script_opts, true);
      try {
        std::vector<std::string> reversed(directives.rbegin(), directives.rend());
        from_script.parse(reversed);
      } catch (const CLI::ParseError& e) {
        return fail("batch", path + ": bad #SHOAL line: " + e.what(), exit_usage);
      }
      merge_unset(*script_opts, given, *cmd);
      *opts = *script_opts;
    }
    args.erase(args.begin());
    auto req = build_request(*opts, args, true);
    if (!req) return fail("batch", describe(req.error()), exit_usage);
    req->script = text.str();
    if (req->name.empty()) req->name = path.substr(path.rfind('/') + 1);
    int code = 0;
    auto s = open_session("batch", conf, code);
    if (!s) return code;
    auto info = ask<msg::job_info>(*s, msg::submit_atom_v, std::move(*req));
    if (!info) return fail("batch", describe(info.error()));
    std::printf("Submitted batch job %llu\n", static_cast<unsigned long long>(info->job_id));
    return 0;
  };
}

}  // namespace shoal::cli
