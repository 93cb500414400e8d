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
      "       shoal batch [OPTIONS] --wrap=COMMAND\n"
      "#SHOAL (or #SBATCH) lines at the top of the script set options; the command\n"
      "line wins. Output goes to shoal-%j.out in the current directory.\n"
      "Options shoal recognises but cannot act on (--hint, a\n"
      "--distribution other than block) print one warning each and are ignored.");
  return [cmd, opts, &conf]() -> int {
    std::vector<std::string> args;
    for (auto& extra : cmd->remaining()) args.push_back(extra);
    // Options end where the command starts; an unknown option is a usage error, not a command.
    if (!args.empty() && args.front().size() > 1 && args.front()[0] == '-')
      return fail("batch", "unrecognized option '" + args.front() + "'", exit_usage);
    std::string script;
    std::string path;
    if (!opts->wrap.empty()) {
      // sbatch's own wording and check: --wrap is the whole script.
      if (!args.empty())
        return fail("batch", "Script arguments not permitted with --wrap option", exit_usage);
      script = wrap_script(opts->wrap);
    } else {
      if (args.empty())
        return fail("batch", "no script given (shoal batch [OPTIONS] SCRIPT [ARGS...])",
                    exit_usage);
      path = args.front();
      args.erase(args.begin());
      std::ifstream in{path};
      if (!in) return fail("batch", "cannot read script '" + path + "'", exit_usage);
      std::stringstream text;
      text << in.rdbuf();
      script = text.str();
    }
    // #SHOAL lines set options; the command line wins, so parse them first and the command line
    // again on top.
    auto directives = script_directives(script);
    if (!directives.empty()) {
      CLI::App from_script{"#SHOAL directives"};
      auto script_opts = std::make_shared<job_options>();
      add_job_options(from_script, *script_opts, true);
      try {
        std::vector<std::string> reversed(directives.rbegin(), directives.rend());
        from_script.parse(reversed);
      } catch (const CLI::ParseError& e) {
        return fail("batch", path + ": bad #SHOAL line: " + e.what(), exit_usage);
      }
      if (!script_opts->wrap.empty())
        return fail("batch", path + ": --wrap cannot be given in a #SBATCH or #SHOAL line",
                    exit_usage);
      apply_command_line(from_script, *cmd);
      *opts = *script_opts;
    }
    auto req = build_request(*opts, args, true);
    if (!req) return fail("batch", describe(req.error()), exit_usage);
    for (auto& note : ignored_option_notes(*opts)) warn("batch", note);
    req->script = std::move(script);
    if (req->name.empty()) req->name = path.empty() ? "wrap" : path.substr(path.rfind('/') + 1);
    int code = 0;
    auto s = open_session("batch", conf, code);
    if (!s) return code;
    auto info = ask<msg::job_info>(*s, msg::submit_atom_v, std::move(*req));
    if (!info) return fail("batch", describe(info.error()));
    if (opts->parsable)
      std::printf("%llu\n", static_cast<unsigned long long>(info->job_id));
    else
      std::printf("Submitted batch job %llu\n", static_cast<unsigned long long>(info->job_id));
    return 0;
  };
}

}  // namespace shoal::cli
