// provider-local: the composition root. Parses flags, connects to the seed, runs the local Bastion
// controller on this host (root), prints a ready line and stops cleanly on SIGTERM/SIGINT (exit 0).
// Bad flags: one line on stderr, exit 2.
import { Client } from "../client/client.ts";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { createProviderLocal } from "../provider-local/app.ts";
import { parseProviderLocalFlags } from "../provider-local/options.ts";
import { componentLogger, flagsOrExit, metricsSuffix, startOrExit } from "./component.ts";

const flags = flagsOrExit(parseProviderLocalFlags(process.argv.slice(2)));
const logger = componentLogger("provider-local", flags.logLevel);

if (process.getuid?.() !== 0) {
  process.stderr.write("error: provider-local needs root (network namespaces, mounts, machines)\n");
  process.exit(1);
}

const provider = await startOrExit(logger, () =>
  createProviderLocal({
    seedClient: Client.fromKubeconfigFile(flags.kubeconfig, { fieldManager: "provider-local", userAgent: "provider-local" }),
    stateDir: flags.stateDir,
    ...(flags.prefix ? { prefix: flags.prefix } : {}),
    publicCidr: flags.publicCidr,
    nodeCidrPool: flags.nodeCidrPool,
    concurrentSyncs: flags.concurrentSyncs,
    bastionPoolSize: flags.bastionPoolSize,
    logger,
    server: flags.metricsBindAddress ?? false,
  }),
);
logger.info({ stateDir: flags.stateDir }, "started");
process.stdout.write(`provider-local started; state in ${flags.stateDir}${metricsSuffix(provider.manager)}\n`);
stopOnSignals({ stop: () => provider.stop(), done: () => provider.manager.done() }, { onSignal: (signal) => logger.info({ signal }, "stopping") });
