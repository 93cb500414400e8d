// shoal: the command-line tool. One binary, Slurm's commands as subcommands:
// run (srun), batch (sbatch), alloc (salloc), queue (squeue), prio (sprio), info (sinfo),
// cancel (scancel), control (scontrol), map (smap), acct (sacct), acctmgr (sacctmgr), stat
// (sstat), share (sshare), and start (a local test cluster, as `flux start`). Run under one of
// Slurm's names (a link named sbatch, srun, ...), it is that subcommand.

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/cli/commands.hpp"
#include "tools/cli/job_options.hpp"
#include "tools/cli/session.hpp"
#include "tools/cli/slurm_names.hpp"
#include "tools/cli/subcommand.hpp"
#include "tools/cli/usage.hpp"

int main(int argc, char** argv) {
  CLI::App app{"shoal: submit and watch work on a shoal cluster"};
  app.formatter(std::make_shared<shoal::cli::one_usage_formatter>());
  app.require_subcommand(1);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.set_version_flag("--version", "shoal " SHOAL_VERSION);
  app.footer(
      "When no controller is in control (down, or a backup not yet taken over), a command waits "
      "for one: after 2 s it says so on stderr, it retries about every second, and it fails "
      "with exit 1 after MessageTimeout seconds (default 10), or with a backup SlurmctldHost "
      "line after 1.5 x SlurmctldTimeout if that is longer.");
  std::string conf;
  app.add_option("-f,--config", conf,
                 "Cluster config file (default: $SHOAL_CONF, else /etc/shoal/shoal.conf)");
  using factory = std::function<shoal::cli::command_runner()>;
  const std::vector<std::pair<std::string, factory>> factories = {
      {"run", [&] { return shoal::cli::add_run_command(app, conf); }},
      {"batch", [&] { return shoal::cli::add_batch_command(app, conf); }},
      {"alloc", [&] { return shoal::cli::add_alloc_command(app, conf); }},
      {"queue", [&] { return shoal::cli::add_queue_command(app, conf); }},
      {"prio", [&] { return shoal::cli::add_prio_command(app, conf); }},
      {"info", [&] { return shoal::cli::add_info_command(app, conf); }},
      {"cancel", [&] { return shoal::cli::add_cancel_command(app, conf); }},
      {"control", [&] { return shoal::cli::add_control_command(app, conf); }},
      {"map", [&] { return shoal::cli::add_map_command(app, conf); }},
      {"start", [&] { return shoal::cli::add_start_command(app); }},
      {"top", [&] { return shoal::cli::add_top_command(app, conf); }},
      {"diag", [&] { return shoal::cli::add_diag_command(app, conf); }},
      {"acct", [&] { return shoal::cli::add_acct_command(app, conf); }},
      {"acctmgr", [&] { return shoal::cli::add_acctmgr_command(app, conf); }},
      {"stat", [&] { return shoal::cli::add_stat_command(app, conf); }},
      {"share", [&] { return shoal::cli::add_share_command(app, conf); }},
  };
  std::vector<std::string> args(argv, argv + argc);
  auto invoked = shoal::cli::command_basename(argc > 0 ? argv[0] : "shoal");
  const auto* alias = shoal::cli::find_slurm_name(invoked);
  // Before the subcommand is built: its help names the output file it writes.
  if (alias != nullptr && std::string{alias->subcommand} == "batch")
    shoal::cli::use_slurm_output_names();
  // Building every subcommand's options (run, batch and alloc have about a hundred each) was a
  // fifth of a listing's CPU: build only the one asked for, and all of them only when none is
  // named or the name is unknown (top-level help, a usage error).
  auto wanted =
      alias != nullptr ? std::string{alias->subcommand} : shoal::cli::named_subcommand(args);
  bool known = std::any_of(factories.begin(), factories.end(),
                           [&](const auto& f) { return f.first == wanted; });
  std::vector<std::pair<std::string, shoal::cli::command_runner>> commands;
  for (auto& [name, make] : factories)
    if (!known || name == wanted) commands.emplace_back(name, make());
  for (auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
    shoal::cli::add_usage_flag(*sub);
  CLI::App* aliased = nullptr;
  if (alias != nullptr) {
    auto found =
        app.get_subcommands([&](CLI::App* sub) { return sub->get_name() == alias->subcommand; });
    if (!found.empty()) aliased = found.front();
    if (aliased == nullptr) {
      std::fprintf(stderr, "%s: error: %s\n", invoked.c_str(), alias->missing);
      return shoal::cli::exit_usage;
    }
    // Slurm's commands all answer -V/--version alone; the subcommands do not know it. The line
    // starts as Slurm's does ("slurm 22.05.11"), the Slurm release whose commands and variables
    // shoal follows: MPI launchers read the version from it (PRRTE parses "slurm X.Y" from
    // `srun --version`, then `scontrol`, `sbatch` and `sinfo`, to choose srun's options).
    if (argc == 2 && (args[1] == "-V" || args[1] == "--version")) {
      std::printf("slurm %s (shoal %s; %s is shoal %s)\n", shoal::cli::slurm_release, SHOAL_VERSION,
                  invoked.c_str(), alias->subcommand);
      return 0;
    }
    shoal::cli::speak_as(invoked);
    std::vector<std::string> prefix{alias->subcommand};
    if (*alias->leading != '\0') prefix.emplace_back(alias->leading);
    args.insert(args.begin() + 1, prefix.begin(), prefix.end());
    std::string note = invoked + " is `shoal " + alias->subcommand +
                       (*alias->leading != '\0' ? std::string{" "} + alias->leading : "") +
                       "`, with its options (docs/migrating.md).";
    auto footer = shoal::cli::as_invoked(aliased->get_footer(), *alias, invoked);
    aliased->footer(footer.empty() ? note : footer + "\n" + note);
  }
  // salloc's -I and -K and srun's -I take their value only attached (-I60, -KINT), as getopt's
  // optional arguments do: the next word may be the command.
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "-f" || args[i] == "--config") {
      ++i;
      continue;
    }
    if (args[i] != "alloc" && args[i] != "run") continue;
    auto name = args[i];
    auto found = app.get_subcommands([&](CLI::App* sub) { return sub->get_name() == name; });
    if (!found.empty())
      shoal::cli::normalize_optional_values(*found.front(), args, i + 1, name == "alloc");
    break;
  }
  std::vector<char*> parse_argv;
  for (auto& a : args) parse_argv.push_back(a.data());
  try {
    app.parse(static_cast<int>(parse_argv.size()), parse_argv.data());
  } catch (const CLI::CallForHelp& e) {
    if (aliased == nullptr) return app.exit(e);
    // The usage line names the command as it was run (`sbatch`, not `shoal batch`).
    std::printf(
        "%s",
        aliased->get_formatter()->make_help(aliased, invoked, CLI::AppFormatMode::Normal).c_str());
    return 0;
  } catch (const shoal::cli::usage_requested& u) {
    auto name = aliased != nullptr ? invoked : "shoal " + u.command->get_name();
    std::printf("%s", shoal::cli::brief_usage(*u.command, name).c_str());
    return 0;
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (aliased != nullptr)
      std::fprintf(stderr, "%s: error: %s\nRun '%s --help'.\n", invoked.c_str(), e.what(),
                   invoked.c_str());
    else
      std::fprintf(stderr, "shoal: error: %s\nRun 'shoal --help' or 'shoal COMMAND --help'.\n",
                   e.what());
    return shoal::cli::exit_usage;
  }
  for (auto& [name, runner] : commands)
    if (app.got_subcommand(name)) shoal::cli::quit_process(runner());
  return shoal::cli::exit_usage;
}
