// kube-scheduler: the composition root. Parses flags, connects to the cluster, runs the scheduler
// (with leader election unless disabled), prints a ready line and stops cleanly on SIGTERM/SIGINT
// (exit 0). Bad flags: one line on stderr, exit 2.
import { Client } from "../client/client.ts";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { createScheduler } from "../scheduler/app.ts";
import { parseSchedulerFlags } from "../scheduler/options.ts";
import { componentLogger, flagsOrExit, leaderElectionOf, metricsSuffix, startOrExit } from "./component.ts";

const flags = flagsOrExit(parseSchedulerFlags(process.argv.slice(2)));
const logger = componentLogger("kube-scheduler", flags.logLevel);

const scheduler = await startOrExit(logger, () =>
  createScheduler({
    client: Client.fromKubeconfigFile(flags.kubeconfig, { fieldManager: "kube-scheduler", userAgent: "kube-scheduler" }),
    schedulerName: flags.schedulerName,
    logger,
    server: flags.metricsBindAddress ?? false,
    leaderElection: leaderElectionOf(flags),
  }),
);
logger.info({ schedulerName: flags.schedulerName, leaderElection: flags.leaderElect }, "started");
process.stdout.write(`kube-scheduler started${metricsSuffix(scheduler.manager)}\n`);
stopOnSignals(scheduler.manager, { onSignal: (signal) => logger.info({ signal }, "stopping") });
