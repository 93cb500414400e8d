// shoal: the command-line tool. One binary, Slurm's commands as subcommands:
// run (srun), batch (sbatch), queue (squeue), info (sinfo), cancel (scancel),
// control (scontrol), map (smap), and start (a local test cluster, as `flux start`).

#include <cstdio>

#include <CLI/CLI.hpp>

#include "tools/cli/commands.hpp"
#include "tools/cli/session.hpp"

int main(int argc, char** argv) {
  CLI::App app{"shoal: submit and watch work on a shoal cluster"};
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
  std::vector<std::pair<std::string, shoal::cli::command_runner>> commands = {
      {"run", shoal::cli::add_run_command(app, conf)},
      {"batch", shoal::cli::add_batch_command(app, conf)},
      {"queue", shoal::cli::add_queue_command(app, conf)},
      {"info", shoal::cli::add_info_command(app, conf)},
      {"cancel", shoal::cli::add_cancel_command(app, conf)},
      {"control", shoal::cli::add_control_command(app, conf)},
      {"map", shoal::cli::add_map_command(app, conf)},
      {"start", shoal::cli::add_start_command(app)},
      {"top", shoal::cli::add_top_command(app, conf)},
      {"diag", shoal::cli::add_diag_command(app, conf)},
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "shoal: error: %s\nRun 'shoal --help' or 'shoal COMMAND --help'.\n",
                 e.what());
    return shoal::cli::exit_usage;
  }
  for (auto& [name, runner] : commands)
    if (app.got_subcommand(name)) shoal::cli::quit_process(runner());
  return shoal::cli::exit_usage;
}
