// gardener-controller-manager: the composition root. Parses flags, connects to the garden, runs
// the bastion and project controllers (with leader election unless disabled), prints a ready line
// and stops cleanly on SIGTERM/SIGINT (exit 0). Bad flags: one line on stderr, exit 2.
import { Client } from "../client/client.ts";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { createControllerManager } from "../controllermanager/app.ts";
import { parseControllerManagerFlags } from "../controllermanager/options.ts";
import { formatDuration } from "../utils/duration.ts";
import { componentLogger, flagsOrExit, leaderElectionOf, metricsSuffix, startOrExit } from "./component.ts";

const flags = flagsOrExit(parseControllerManagerFlags(process.argv.slice(2)));
const logger = componentLogger("gardener-controller-manager", flags.logLevel);

const gcm = await startOrExit(logger, () =>
  createControllerManager({
    gardenClient: Client.fromKubeconfigFile(flags.kubeconfig, { fieldManager: "gardener-controller-manager", userAgent: "gardener-controller-manager" }),
    bastionMaxLifetimeMs: flags.bastionMaxLifetimeMs,
    logger,
    server: flags.metricsBindAddress ?? false,
    leaderElection: leaderElectionOf(flags),
  }),
);
logger.info({ bastionMaxLifetime: formatDuration(flags.bastionMaxLifetimeMs), leaderElection: flags.leaderElect }, "started");
process.stdout.write(`gardener-controller-manager started${metricsSuffix(gcm.manager)}\n`);
stopOnSignals(gcm.manager, { onSignal: (signal) => logger.info({ signal }, "stopping") });
