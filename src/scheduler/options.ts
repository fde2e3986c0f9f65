// Command-line flags of kube-scheduler (the subset this scheduler has, named as upstream's).
// Parsing never exits the process: it returns the options, or what to print and the exit code
// (help: 0; bad flags: one line and 2).
import { Command, Option } from "commander";
import { DurationError, parsePositiveDuration } from "../utils/duration.ts";
import { type BindAddress, FlagError, type FlagsResult, type LeaderElectFlags, parseBindAddress, parseFlags } from "../utils/flags.ts";

export interface SchedulerFlags extends LeaderElectFlags {
  kubeconfig: string;
  /** undefined: no metrics/probe server. */
  metricsBindAddress: BindAddress | undefined;
  schedulerName: string;
  logLevel: string;
}

function program(): Command {
  return new Command("kube-scheduler")
    .description(
      "Binds each pod without spec.nodeName (and with spec.schedulerName default-scheduler or unset) to a Ready, schedulable node " +
        "that matches its nodeSelector and whose NoSchedule/NoExecute taints it tolerates, preferring the node with the fewest pods. " +
        "Pods that fit nowhere get PodScheduled=False (Unschedulable) and a FailedScheduling event, and are retried.",
    )
    .addOption(new Option("--kubeconfig <file>", "Kubeconfig of the cluster, e.g. <data-dir>/scheduler.kubeconfig of its API server (required)."))
    .addOption(new Option("--metrics-bind-address <host:port>", 'Where /metrics, /healthz and /readyz listen (plain HTTP); "0" disables.').default("127.0.0.1:10251"))
    .addOption(new Option("--leader-elect [bool]", "Schedule only while holding the leader Lease (for replicated schedulers).").default("true"))
    .addOption(new Option("--leader-elect-lease-duration <duration>", "How long a lease is valid without renewal.").default("15s"))
    .addOption(new Option("--leader-elect-renew-deadline <duration>", "How long the leader keeps trying to renew before giving up.").default("10s"))
    .addOption(new Option("--leader-elect-retry-period <duration>", "Pause between attempts to acquire or renew the lease.").default("2s"))
    .addOption(new Option("--leader-elect-resource-namespace <ns>", "Namespace of the leader Lease.").default("kube-system"))
    .addOption(new Option("--leader-elect-resource-name <name>", "Name of the leader Lease.").default("kube-scheduler"))
    .addOption(new Option("--scheduler-name <name>", "The spec.schedulerName of the pods this scheduler places.").default("default-scheduler"))
    .addOption(new Option("--log-level <level>", "pino log level: trace, debug, info, warn, error.").default("info"))
    .helpOption("-h, --help", "Show this help.")
    .allowExcessArguments(false)
    .exitOverride();
}

function bool(v: unknown, name: string): boolean {
  if (v === true || v === "true" || v === "1") return true;
  if (v === false || v === "false" || v === "0") return false;
  throw new FlagError(`invalid value "${String(v)}" for ${name}: must be true or false`);
}

function duration(v: unknown, name: string): number {
  try {
    return parsePositiveDuration(String(v));
  } catch (err) {
    if (err instanceof DurationError) throw new FlagError(`${name}: ${err.message}`);
    throw err;
  }
}

const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

export function parseSchedulerFlags(argv: string[]): FlagsResult<SchedulerFlags> {
  return parseFlags(program(), argv, (o: Record<string, unknown>) => {
    const kubeconfig = o.kubeconfig as string | undefined;
    if (!kubeconfig) throw new FlagError("--kubeconfig is required");
    const logLevel = String(o.logLevel);
    if (!LOG_LEVELS.includes(logLevel)) throw new FlagError(`invalid value "${logLevel}" for --log-level: must be one of ${LOG_LEVELS.join(", ")}`);
    const schedulerName = String(o.schedulerName);
    if (!schedulerName) throw new FlagError("--scheduler-name must not be empty");
    const flags: SchedulerFlags = {
      kubeconfig,
      metricsBindAddress: parseBindAddress(String(o.metricsBindAddress), "--metrics-bind-address"),
      leaderElect: bool(o.leaderElect, "--leader-elect"),
      leaderElectLeaseDurationMs: duration(o.leaderElectLeaseDuration, "--leader-elect-lease-duration"),
      leaderElectRenewDeadlineMs: duration(o.leaderElectRenewDeadline, "--leader-elect-renew-deadline"),
      leaderElectRetryPeriodMs: duration(o.leaderElectRetryPeriod, "--leader-elect-retry-period"),
      leaderElectResourceNamespace: String(o.leaderElectResourceNamespace),
      leaderElectResourceName: String(o.leaderElectResourceName),
      schedulerName,
      logLevel,
    };
    if (flags.leaderElectLeaseDurationMs <= flags.leaderElectRenewDeadlineMs) throw new FlagError("--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
    return flags;
  });
}
