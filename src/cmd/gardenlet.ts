// gardenlet: the composition root. Parses flags, connects to the garden (as its seed's identity)
// and to the seed, runs the bastion controllers, prints a ready line and stops cleanly on
// SIGTERM/SIGINT (exit 0). Bad flags: one line on stderr, exit 2.
import { Client } from "../client/client.ts";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { createGardenlet } from "../gardenlet/app.ts";
import { parseGardenletFlags } from "../gardenlet/options.ts";
import { staticShootClients } from "../gardenlet/controller/sshkeypair/reconciler.ts";
import { componentLogger, flagsOrExit, metricsSuffix, startOrExit } from "./component.ts";

const flags = flagsOrExit(parseGardenletFlags(process.argv.slice(2)));
const logger = componentLogger("gardenlet", flags.logLevel);
const connect = (file: string) => Client.fromKubeconfigFile(file, { fieldManager: "gardenlet", userAgent: "gardenlet" });

const gardenlet = await startOrExit(logger, () =>
  createGardenlet({
    gardenClient: connect(flags.gardenKubeconfig),
    seedClient: connect(flags.seedKubeconfig),
    seedName: flags.seedName,
    logger,
    server: flags.metricsBindAddress ?? false,
    sshKeypairPoolSize: flags.sshKeypairPoolSize,
    ...(flags.shootKubeconfigs.size > 0 ? { shootClients: staticShootClients(new Map([...flags.shootKubeconfigs].map(([key, file]) => [key, connect(file)]))) } : {}),
  }),
);
logger.info({ seed: flags.seedName }, "started");
process.stdout.write(`gardenlet started for seed ${flags.seedName}${metricsSuffix(gardenlet.manager)}\n`);
stopOnSignals({ stop: () => gardenlet.stop(), done: () => gardenlet.manager.done() }, { onSignal: (signal) => logger.info({ signal }, "stopping") });
