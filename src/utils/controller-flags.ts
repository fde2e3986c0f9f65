// The one flag parser of the leader-elected controller components (kube-scheduler,
// gardener-controller-manager): --kubeconfig, --metrics-bind-address, the --leader-elect* flags and
// --log-level, plus each component's own flags. Parsing never exits the process: it returns the
// options, or what to print and the exit code (--help: 0 with the help text; a bad flag: one line, 2).
import { accessSync, constants, statSync } from "node:fs";
import { Command, Option } from "commander";
import { DurationError, parsePositiveDuration } from "./duration.ts";
import { type BindAddress, FlagError, type FlagsResult, type LeaderElectFlags, parseBindAddress, parseFlags } from "./flags.ts";

export interface ControllerFlags extends LeaderElectFlags {
  kubeconfig: string;
  /** undefined: no metrics/probe server. */
  metricsBindAddress: BindAddress | undefined;
  logLevel: string;
}

export interface ControllerCommand<T> {
  name: string;
  description: string;
  /** Help of --kubeconfig (the flag is required). */
  kubeconfigHelp: string;
  /** The default of --metrics-bind-address. */
  metricsBindAddress: string;
  /** The leader Lease's default namespace and name, and what --leader-elect makes the component do. */
  lease: { namespace: string; name: string; help: string };
  /** The component's own flags. */
  options?: Option[];
  /** Command lines shown under "Examples" in --help. */
  examples: string[];
  /** The component's options from commander's values and the shared flags (throw FlagError for a bad value). */
  build(values: Record<string, unknown>, flags: ControllerFlags): T;
}

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

export function parseControllerFlags<T>(c: ControllerCommand<T>, argv: string[]): FlagsResult<T> {
  return parseFlags(program(c), argv, (o: Record<string, unknown>) => c.build(o, controllerFlags(o)));
}

function program<T>(c: ControllerCommand<T>): Command {
  const cmd = new Command(c.name)
    .description(c.description)
    .addOption(new Option("--kubeconfig <file>", `${c.kubeconfigHelp} (required)`))
    .addOption(new Option("--metrics-bind-address <host:port>", 'Where /metrics, /healthz and /readyz listen (plain HTTP); "0" disables.').default(c.metricsBindAddress))
    .addOption(new Option("--leader-elect [bool]", c.lease.help).default("true"))
    .addOption(new Option("--leader-elect-lease-duration <duration>", "How long a lease is valid without renewal; longer than the renew deadline.").default("15s"))
    .addOption(new Option("--leader-elect-renew-deadline <duration>", "How long the leader keeps trying to renew before giving up; longer than the retry period.").default("10s"))
    .addOption(new Option("--leader-elect-retry-period <duration>", "Pause between attempts to acquire or renew the lease.").default("2s"))
    .addOption(new Option("--leader-elect-resource-namespace <ns>", "Namespace of the leader Lease.").default(c.lease.namespace))
    .addOption(new Option("--leader-elect-resource-name <name>", "Name of the leader Lease.").default(c.lease.name));
  for (const option of c.options ?? []) cmd.addOption(option);
  return cmd
    .addOption(new Option("--log-level <level>", `Log level of the JSON lines on stderr: ${LOG_LEVELS.join(", ")}.`).default("info"))
    .helpOption("-h, --help", "Show this help.")
    .addHelpText(
      "after",
      [
        "",
        "Durations are Go durations: 300ms, 10s, 1h30m. Booleans: --leader-elect, --leader-elect=false.",
        `Once running it prints one line ("${c.name} started ...") on stdout and stops on SIGTERM or SIGINT.`,
        "Exit codes: 0 after a signal or --help, 1 when it cannot start, 2 for a bad flag (one line on stderr).",
        "",
        "Examples:",
        ...c.examples.map((e) => `  ${e}`),
      ].join("\n"),
    )
    .allowExcessArguments(false)
    .exitOverride();
}

function controllerFlags(o: Record<string, unknown>): ControllerFlags {
  const kubeconfig = o.kubeconfig as string | undefined;
  if (!kubeconfig) throw new FlagError("--kubeconfig is required");
  const unreadable = fileProblem(kubeconfig);
  if (unreadable) throw new FlagError(`invalid value "${kubeconfig}" for --kubeconfig: ${unreadable}`);
  const flags: ControllerFlags = {
    kubeconfig,
    metricsBindAddress: parseBindAddress(String(o.metricsBindAddress), "--metrics-bind-address"),
    leaderElect: boolFlag(o.leaderElect, "--leader-elect"),
    leaderElectLeaseDurationMs: durationFlag(o.leaderElectLeaseDuration, "--leader-elect-lease-duration"),
    leaderElectRenewDeadlineMs: durationFlag(o.leaderElectRenewDeadline, "--leader-elect-renew-deadline"),
    leaderElectRetryPeriodMs: durationFlag(o.leaderElectRetryPeriod, "--leader-elect-retry-period"),
    leaderElectResourceNamespace: String(o.leaderElectResourceNamespace),
    leaderElectResourceName: String(o.leaderElectResourceName),
    logLevel: String(o.logLevel),
  };
  if (!LOG_LEVELS.includes(flags.logLevel)) throw new FlagError(`invalid value "${flags.logLevel}" for --log-level: must be one of ${LOG_LEVELS.join(", ")}`);
  if (flags.leaderElectLeaseDurationMs <= flags.leaderElectRenewDeadlineMs) throw new FlagError("--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
  if (flags.leaderElectRenewDeadlineMs <= flags.leaderElectRetryPeriodMs) throw new FlagError("--leader-elect-renew-deadline must be greater than --leader-elect-retry-period");
  return flags;
}

/** Why path is not a readable file ("" when it is). */
function fileProblem(path: string): string {
  try {
    if (!statSync(path).isFile()) return "not a file";
    accessSync(path, constants.R_OK);
    return "";
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (err as Error).message;
  }
}

/** true/false/1/0 (a bare `--flag` is true). */
export function boolFlag(v: unknown, name: string): boolean {
  if (v === true || v === "true" || v === "1") return true;
  if (v === false || v === "false" || v === "0") return false;
  throw new FlagError(`invalid value "${String(v)}" for ${name}: must be true or false`);
}

/** A positive Go duration, in milliseconds. */
export function durationFlag(v: unknown, name: string): number {
  try {
    return parsePositiveDuration(String(v));
  } catch (err) {
    if (err instanceof DurationError) throw new FlagError(`${name}: ${err.message}`);
    throw err;
  }
}
