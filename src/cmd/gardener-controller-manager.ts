// gardener-controller-manager: the composition root. Parses flags, connects to the garden, runs
// the bastion and project controllers (with leader election unless disabled), prints a ready line
// and stops cleanly on SIGTERM/SIGINT (exit 0). Bad flags: one line on stderr, exit 2.
import { pino } from "pino";
import { Client } from "../client/client.ts";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { createControllerManager } from "../controllermanager/app.ts";
import { parseControllerManagerFlags } from "../controllermanager/options.ts";
import { formatDuration } from "../utils/duration.ts";

const parsed = parseControllerManagerFlags(process.argv.slice(2));
if (parsed.kind === "exit") {
  process.stdout.write(parsed.stdout);
  process.stderr.write(parsed.stderr);
  process.exit(parsed.code);
}
const flags = parsed.options;
const logger = pino({ level: flags.logLevel, base: { component: "gardener-controller-manager" } }, pino.destination(2));

let gcm;
try {
  const gardenClient = Client.fromKubeconfigFile(flags.kubeconfig, { fieldManager: "gardener-controller-manager", userAgent: "gardener-controller-manager" });
  gcm = createControllerManager({
    gardenClient,
    bastionMaxLifetimeMs: flags.bastionMaxLifetimeMs,
    logger,
    server: flags.metricsBindAddress ?? false,
    leaderElection: flags.leaderElect
      ? {
          namespace: flags.leaderElectResourceNamespace,
          name: flags.leaderElectResourceName,
          leaseDurationMs: flags.leaderElectLeaseDurationMs,
          renewDeadlineMs: flags.leaderElectRenewDeadlineMs,
          retryPeriodMs: flags.leaderElectRetryPeriodMs,
          releaseOnCancel: true,
        }
      : undefined,
  });
  await gcm.start();
} catch (err) {
  logger.error({ err }, "failed to start");
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(1);
}
const address = gcm.manager.address();
logger.info({ bastionMaxLifetime: formatDuration(flags.bastionMaxLifetimeMs), leaderElection: flags.leaderElect }, "started");
process.stdout.write(`gardener-controller-manager started${address ? `; metrics on http://${address.host}:${address.port}/metrics` : ""}\n`);
stopOnSignals(gcm.manager, { onSignal: (signal) => logger.info({ signal }, "stopping") });
