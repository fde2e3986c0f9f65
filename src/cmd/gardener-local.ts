// gardener-local: starts and stops the local landscape (garden, seed and shoot API servers,
// controllers, machines). The landscape arrives with the bastion and landscape issues; until
// then the command exists, explains itself and exits non-zero for `up`.
import { Command } from "commander";

const program = new Command("gardener-local")
  .description("Start, inspect and stop the local Gardener landscape on this Linux host (requires root).")
  .showHelpAfterError();

program
  .command("up")
  .description("start garden, seed and shoot API servers, controllers and worker machines")
  .option("--state-dir <dir>", "where the landscape keeps its data, kubeconfigs and records", ".state/local")
  .action(() => {
    console.error(
      "gardener-local up: not yet: the local landscape is not implemented in this version.\n" +
        "What runs today: the API server, e.g. `node bin/gardener-apiserver.js --data-dir /tmp/garden --secure-port 6443`.",
    );
    process.exitCode = 3;
  });

program
  .command("status")
  .description("show components and machines")
  .action(() => {
    console.log("gardener-local status: no landscape (not yet implemented)");
  });

program
  .command("down")
  .description("stop everything and remove every host resource the landscape created")
  .action(() => {
    console.log("gardener-local down: nothing to stop");
  });

await program.parseAsync(process.argv);
