// Command-line flags of terminal-controller-manager (docs/terminals.md#terminal-controller-manager).
// Parsing never exits the process: it returns the options, or what to print and the exit code
// (help: 0; bad flags: one line and 2).
import { Command, Option } from "commander";
import { DurationError, parsePositiveDuration } from "../utils/duration.ts";
import { type BindAddress, FlagError, type FlagsResult, type LeaderElectFlags, parseBindAddress, parseFlags } from "../utils/flags.ts";

export interface TerminalControllerManagerFlags extends LeaderElectFlags {
  kubeconfig: string;
  /** Holds tls.crt and tls.key of the webhook server. */
  webhookServerCertDir: string;
  webhookBindAddress: BindAddress;
  /** The base URL the garden calls the webhooks at; with webhookCAFile, the configurations are registered at start. */
  webhookURL: string | undefined;
  webhookCAFile: string | undefined;
  timeToLiveMs: number;
  maxObjectSize: number;
  maxTerminalsPerUser: number;
  maxTerminals: number;
  honourServiceAccountRefHostCluster: boolean;
  /** honourCleanupProjectMembership: Terminals may ask that their target ServiceAccount leaves the project's members after the last of them. */
  honourCleanupProjectMembership: boolean;
  metricsBindAddress: BindAddress | undefined;
  logLevel: string;
}

function program(): Command {
  return new Command("terminal-controller-manager")
    .description("Web terminals: the Terminal admission webhooks and the terminal controller, on the garden.")
    .addOption(new Option("--kubeconfig <file>", "Kubeconfig of the garden cluster (required)."))
    .addOption(new Option("--webhook-server-cert-dir <dir>", "Directory with tls.crt and tls.key of the webhook server (required)."))
    .addOption(new Option("--webhook-bind-address <host:port>", "Where the webhook server listens.").default("127.0.0.1:9443"))
    .addOption(new Option("--webhook-url <url>", "Base https URL the garden reaches the webhook server at; registers the webhook configurations (with --webhook-ca-file)."))
    .addOption(new Option("--webhook-ca-file <file>", "PEM CA that signed the webhook server's certificate, for the configurations' caBundle."))
    .addOption(new Option("--time-to-live <duration>", "Terminals without a heartbeat for this long are deleted.").default("5m"))
    .addOption(new Option("--max-object-size <bytes>", "The largest Terminal the validating webhook admits.").default("10240"))
    .addOption(new Option("--max-terminals-per-user <n>", "Terminals one user may have; 0: no cap.").default("10"))
    .addOption(new Option("--max-terminals <n>", "Terminals there may be in all; 0: no cap.").default("100"))
    .addOption(new Option("--honour-service-account-ref-host-cluster [bool]", "Accept serviceAccountRef host credentials.").default("true"))
    .addOption(new Option("--honour-cleanup-project-membership [bool]", "Accept spec.target.cleanupProjectMembership: the ServiceAccount controller removes such a target ServiceAccount from its project's members after the last Terminal using it.").default("false"))
    .addOption(new Option("--metrics-bind-address <host:port>", 'Where /metrics, /healthz and /readyz listen; "0" disables.').default("127.0.0.1:8081"))
    .addOption(new Option("--leader-elect [bool]", "Run only while holding the leader lease.").default("true"))
    .addOption(new Option("--leader-elect-lease-duration <duration>", "How long a lease is valid without renewal.").default("15s"))
    .addOption(new Option("--leader-elect-renew-deadline <duration>", "How long the leader keeps trying to renew before giving up.").default("10s"))
    .addOption(new Option("--leader-elect-retry-period <duration>", "Pause between attempts to acquire or renew the lease.").default("2s"))
    .addOption(new Option("--leader-elect-resource-namespace <ns>", "Namespace of the leader lease.").default("terminal-system"))
    .addOption(new Option("--leader-elect-resource-name <name>", "Name of the leader lease.").default("terminal-controller-leader-election"))
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

export function parseTerminalControllerManagerFlags(argv: string[]): FlagsResult<TerminalControllerManagerFlags> {
  return parseFlags(program(), argv, (o: Record<string, unknown>) => {
    const kubeconfig = o.kubeconfig as string | undefined;
    if (!kubeconfig) throw new FlagError("--kubeconfig is required");
    const certDir = o.webhookServerCertDir as string | undefined;
    if (!certDir) throw new FlagError("--webhook-server-cert-dir is required");
    const webhook = parseBindAddress(String(o.webhookBindAddress), "--webhook-bind-address");
    if (!webhook) throw new FlagError("--webhook-bind-address must not be 0");
    const url = o.webhookUrl as string | undefined;
    if (url !== undefined && !/^https:\/\/[^/?#@]+$/.test(url)) throw new FlagError("--webhook-url must be an https URL without path, query or user");
    if ((url === undefined) !== (o.webhookCaFile === undefined)) throw new FlagError("--webhook-url and --webhook-ca-file go together");
    const maxObjectSize = Number(o.maxObjectSize);
    if (!Number.isInteger(maxObjectSize) || maxObjectSize < 1) throw new FlagError("--max-object-size must be a positive integer");
    const cap = (v: unknown, name: string): number => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new FlagError(`${name} must be a non-negative integer`);
      return n;
    };
    return {
      kubeconfig,
      maxTerminalsPerUser: cap(o.maxTerminalsPerUser, "--max-terminals-per-user"),
      maxTerminals: cap(o.maxTerminals, "--max-terminals"),
      webhookServerCertDir: certDir,
      webhookBindAddress: webhook,
      webhookURL: url,
      webhookCAFile: o.webhookCaFile as string | undefined,
      timeToLiveMs: duration(o.timeToLive, "--time-to-live"),
      maxObjectSize,
      honourServiceAccountRefHostCluster: bool(o.honourServiceAccountRefHostCluster, "--honour-service-account-ref-host-cluster"),
      honourCleanupProjectMembership: bool(o.honourCleanupProjectMembership, "--honour-cleanup-project-membership"),
      metricsBindAddress: parseBindAddress(String(o.metricsBindAddress), "--metrics-bind-address"),
      leaderElect: bool(o.leaderElect, "--leader-elect"),
      leaderElectLeaseDurationMs: duration(o.leaderElectLeaseDuration, "--leader-elect-lease-duration"),
      leaderElectRenewDeadlineMs: duration(o.leaderElectRenewDeadline, "--leader-elect-renew-deadline"),
      leaderElectRetryPeriodMs: duration(o.leaderElectRetryPeriod, "--leader-elect-retry-period"),
      leaderElectResourceNamespace: String(o.leaderElectResourceNamespace),
      leaderElectResourceName: String(o.leaderElectResourceName),
      logLevel: String(o.logLevel),
    };
  });
}
