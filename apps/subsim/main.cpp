// subsim: the command line.  `subsim scenarios` lists the built-in scenes; `subsim run SCENE`
// simulates one (see README.md).
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.hpp"

int main(int argc, char** argv) {
  using namespace subsim::cli;
  CLI::App app{"subsim: contact-rich multibody simulation with subsystem-based ADMM"};
  app.require_subcommand(1);

  app.add_subcommand("scenarios", "list the built-in scenes");

  RunOptions run;
  CLI::App* run_cmd = app.add_subcommand("run", "simulate a scene and report its figures");
  run_cmd
      ->add_option("scene", run.scene,
                   "scene file (.yaml) or built-in scene with parameters, e.g. "
                   "granular:spheres=1000,mu=0.3")
      ->required();
  run_cmd->add_option("--solver", run.solver, "solver name")->capture_default_str();
  run_cmd->add_option("--iterations", run.iterations, "iteration cap")
      ->check(CLI::Range(0, 100000000));
  run_cmd
      ->add_option("--tolerance", run.tolerance, "stopping residual; 0 runs exactly --iterations")
      ->check(CLI::Range(0.0, 1e300));
  run_cmd->add_option("--steps", run.steps, "number of steps (default: the scene's)")
      ->check(CLI::Range(0, 100000000));
  run_cmd->add_option("--dt", run.dt, "time step in s (default: the scene's)")
      ->check(CLI::PositiveNumber);
  run_cmd->add_option("--threads", run.threads, "OpenMP threads for the solver")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  run_cmd
      ->add_option("--beta-scale", run.beta_scale,
                   "SubADMM: factor on the penalty rule (23) (default 20)")
      ->check(CLI::PositiveNumber);
  run_cmd
      ->add_option("--relaxation", run.relaxation,
                   "SubADMM: ADMM over-relaxation in (0, 2) (default 1.5; 1 = plain)")
      ->check(CLI::Range(1e-6, 2.0 - 1e-6));
  run_cmd->add_flag("--fixed-beta", run.fixed_beta,
                    "SubADMM: keep the penalty fixed (no residual balancing)");
  run_cmd->add_option("--record", run.record, "write poses, contacts and statistics to FILE.h5");
  run_cmd->add_flag("--json", run.json, "print one JSON object with the run's figures on stdout");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "subsim: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (app.got_subcommand("scenarios")) return runScenarios();
  return runSimulation(run);
}
