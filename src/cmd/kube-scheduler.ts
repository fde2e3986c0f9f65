// kube-scheduler: the composition root. Parses flags, connects to the cluster, runs the scheduler
// (with leader election unless disabled), prints a ready line and stops cleanly on SIGTERM/SIGINT
// (exit 0). Bad flags: one line on stderr, exit 2.
import { pino } from "pino";
import { Client } from "../client/client.ts";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { createScheduler } from "../scheduler/app.ts";
import { parseSchedulerFlags } from "../scheduler/options.ts";

const parsed = parseSchedulerFlags(process.argv.slice(2));
if (parsed.kind === "exit") {
  process.stdout.write(parsed.stdout);
  process.stderr.write(parsed.stderr);
  process.exit(parsed.code);
}
const flags = parsed.options;
const logger = pino({ level: flags.logLevel, base: { component: "kube-scheduler" } }, pino.destination(2));

let scheduler;
try {
  const client = Client.fromKubeconfigFile(flags.kubeconfig, { fieldManager: "kube-scheduler", userAgent: "kube-scheduler" });
  scheduler = createScheduler({
    client,
    schedulerName: flags.schedulerName,
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
  await scheduler.start();
} catch (err) {
  logger.error({ err }, "failed to start");
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(1);
}
const address = scheduler.manager.address();
logger.info({ schedulerName: flags.schedulerName, leaderElection: flags.leaderElect }, "started");
process.stdout.write(`kube-scheduler started${address ? `; metrics on http://${address.host}:${address.port}/metrics` : ""}\n`);
stopOnSignals(scheduler.manager, { onSignal: (signal) => logger.info({ signal }, "stopping") });
