// gardenlet: the composition root. Parses flags, connects to the garden (as its seed's identity)
// and to the seed, runs the bastion controllers, prints a ready line and stops cleanly on
// SIGTERM/SIGINT (exit 0). Bad flags: one line on stderr, exit 2.
import { pino } from "pino";
import { Client } from "../client/client.ts";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { createGardenlet } from "../gardenlet/app.ts";
import { parseGardenletFlags } from "../gardenlet/options.ts";
import { staticShootClients } from "../gardenlet/controller/sshkeypair/reconciler.ts";

const parsed = parseGardenletFlags(process.argv.slice(2));
if (parsed.kind === "exit") {
  process.stdout.write(parsed.stdout);
  process.stderr.write(parsed.stderr);
  process.exit(parsed.code);
}
const flags = parsed.options;
const logger = pino({ level: flags.logLevel, base: { component: "gardenlet" } }, pino.destination(2));

let gardenlet;
try {
  gardenlet = createGardenlet({
    gardenClient: Client.fromKubeconfigFile(flags.gardenKubeconfig, { fieldManager: "gardenlet", userAgent: "gardenlet" }),
    seedClient: Client.fromKubeconfigFile(flags.seedKubeconfig, { fieldManager: "gardenlet", userAgent: "gardenlet" }),
    seedName: flags.seedName,
    logger,
    server: flags.metricsBindAddress ?? false,
    ...(flags.shootKubeconfigs.size > 0
      ? {
          shootClients: staticShootClients(
            new Map([...flags.shootKubeconfigs].map(([key, file]) => [key, Client.fromKubeconfigFile(file, { fieldManager: "gardenlet", userAgent: "gardenlet" })])),
          ),
        }
      : {}),
  });
  await gardenlet.start();
} catch (err) {
  logger.error({ err }, "failed to start");
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(1);
}
const running = gardenlet;
const address = running.manager.address();
logger.info({ seed: flags.seedName }, "started");
process.stdout.write(`gardenlet started for seed ${flags.seedName}${address ? `; metrics on http://${address.host}:${address.port}/metrics` : ""}\n`);
stopOnSignals({ stop: () => running.stop(), done: () => running.manager.done() }, { onSignal: (signal) => logger.info({ signal }, "stopping") });
