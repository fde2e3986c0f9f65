// Command-line flags of gardener-controller-manager. Parsing never exits the process: it returns
// the options, or what to print and the exit code (help: 0; bad flags: one line and 2).
import { Command, Option } from "commander";
import { DurationError, parsePositiveDuration } from "../utils/duration.ts";
import { type BindAddress, FlagError, type FlagsResult, type LeaderElectFlags, parseBindAddress, parseFlags } from "../utils/flags.ts";

export interface ControllerManagerFlags extends LeaderElectFlags {
  kubeconfig: string;
  bastionMaxLifetimeMs: number;
  /** undefined: no metrics/probe server. */
  metricsBindAddress: BindAddress | undefined;
  logLevel: string;
}

export type ParseResult = FlagsResult<ControllerManagerFlags>;

function program(): Command {
  return new Command("gardener-controller-manager")
    .description("Gardener's controller manager: bastion lifetimes and project RBAC in the garden.")
    .addOption(new Option("--kubeconfig <file>", "Kubeconfig of the garden cluster (required)."))
    .addOption(new Option("--bastion-max-lifetime <duration>", "Maximum lifetime of a Bastion, a Go duration (e.g. 24h, 8h30m).").default("24h"))
    .addOption(new Option("--metrics-bind-address <host:port>", 'Where /metrics, /healthz and /readyz listen; "0" disables.').default("127.0.0.1:2718"))
    .addOption(new Option("--leader-elect [bool]", "Run only while holding the leader lease.").default("true"))
    .addOption(new Option("--leader-elect-lease-duration <duration>", "How long a lease is valid without renewal.").default("15s"))
    .addOption(new Option("--leader-elect-renew-deadline <duration>", "How long the leader keeps trying to renew before giving up.").default("10s"))
    .addOption(new Option("--leader-elect-retry-period <duration>", "Pause between attempts to acquire or renew the lease.").default("2s"))
    .addOption(new Option("--leader-elect-resource-namespace <ns>", "Namespace of the leader lease.").default("garden"))
    .addOption(new Option("--leader-elect-resource-name <name>", "Name of the leader lease.").default("gardener-controller-manager-leader-election"))
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

export function parseControllerManagerFlags(argv: string[]): ParseResult {
  return parseFlags(program(), argv, (o: Record<string, unknown>) => {
    const kubeconfig = o.kubeconfig as string | undefined;
    if (!kubeconfig) throw new FlagError("--kubeconfig is required");
    const options: ControllerManagerFlags = {
      kubeconfig,
      bastionMaxLifetimeMs: duration(o.bastionMaxLifetime, "--bastion-max-lifetime"),
      metricsBindAddress: parseBindAddress(String(o.metricsBindAddress), "--metrics-bind-address"),
      leaderElect: bool(o.leaderElect, "--leader-elect"),
      leaderElectLeaseDurationMs: duration(o.leaderElectLeaseDuration, "--leader-elect-lease-duration"),
      leaderElectRenewDeadlineMs: duration(o.leaderElectRenewDeadline, "--leader-elect-renew-deadline"),
      leaderElectRetryPeriodMs: duration(o.leaderElectRetryPeriod, "--leader-elect-retry-period"),
      leaderElectResourceNamespace: String(o.leaderElectResourceNamespace),
      leaderElectResourceName: String(o.leaderElectResourceName),
      logLevel: String(o.logLevel),
    };
    return options;
  });
}
