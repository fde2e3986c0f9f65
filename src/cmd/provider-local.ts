// provider-local: the composition root. Parses flags, connects to the seed, runs the local Bastion
// controller on this host (root), prints a ready line and stops cleanly on SIGTERM/SIGINT (exit 0).
// Bad flags: one line on stderr, exit 2.
import { pino } from "pino";
import { Client } from "../client/client.ts";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { createProviderLocal } from "../provider-local/app.ts";
import { parseProviderLocalFlags } from "../provider-local/options.ts";

const parsed = parseProviderLocalFlags(process.argv.slice(2));
if (parsed.kind === "exit") {
  process.stdout.write(parsed.stdout);
  process.stderr.write(parsed.stderr);
  process.exit(parsed.code);
}
const flags = parsed.options;
const logger = pino({ level: flags.logLevel, base: { component: "provider-local" } }, pino.destination(2));

if (process.getuid?.() !== 0) {
  process.stderr.write("error: provider-local needs root (network namespaces, mounts, machines)\n");
  process.exit(1);
}

let provider;
try {
  provider = createProviderLocal({
    seedClient: Client.fromKubeconfigFile(flags.kubeconfig, { fieldManager: "provider-local", userAgent: "provider-local" }),
    stateDir: flags.stateDir,
    ...(flags.prefix ? { prefix: flags.prefix } : {}),
    publicCidr: flags.publicCidr,
    nodeCidrPool: flags.nodeCidrPool,
    concurrentSyncs: flags.concurrentSyncs,
    logger,
    server: flags.metricsBindAddress ?? false,
  });
  await provider.start();
} catch (err) {
  logger.error({ err }, "failed to start");
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(1);
}
const running = provider;
const address = running.manager.address();
logger.info({ stateDir: flags.stateDir }, "started");
process.stdout.write(`provider-local started; state in ${flags.stateDir}${address ? `; metrics on http://${address.host}:${address.port}/metrics` : ""}\n`);
stopOnSignals({ stop: () => running.stop(), done: () => running.manager.done() }, { onSignal: (signal) => logger.info({ signal }, "stopping") });
