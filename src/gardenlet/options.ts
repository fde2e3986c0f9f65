// Command-line flags of the gardenlet. Parsing never exits the process: it returns the options,
// or what to print and the exit code (help: 0; bad flags: one line and 2).
import { Command, Option } from "commander";
import { type BindAddress, FlagError, type FlagsResult, parseBindAddress, parseFlags } from "../utils/flags.ts";
import { isIP } from "node:net";
import { DEFAULT_EGRESS_SECRETS_DIR } from "../api/gardencore/vpnsecrets.ts";
import { parsePositiveDuration } from "../utils/duration.ts";
import { KEY_POOL_SIZE } from "./controller/sshkeypair/keypool.ts";

export interface GardenletFlags {
  gardenKubeconfig: string;
  seedKubeconfig: string;
  seedName: string;
  metricsBindAddress: BindAddress | undefined;
  logLevel: string;
  /** Shoot API server kubeconfigs by shoot key `<namespace>/<name>` (flag --shoot-kubeconfig, repeatable). */
  shootKubeconfigs: Map<string, string>;
  /** Node key pairs generated ahead (flag --ssh-keypair-pool-size). */
  sshKeypairPoolSize: number;
  /**
   * The VPN namespaces' seed-network addresses by control-plane namespace (flag --vpn-server-addresses,
   * repeatable); the `vpn` controller runs when it was given at least once.
   */
  vpnServerAddresses: Map<string, string[]>;
  /** The VPN certificates' keys (flag --vpn-key-algorithm). */
  vpnKeyAlgorithm: VpnKeyAlgorithm;
  /** Where the shoot API server finds the VPN Secrets (flag --vpn-egress-secrets-dir). */
  vpnEgressSecretsDir: string;
  /** The tunnel check's period while the tunnel is healthy, in ms (flag --shoot-care-sync-period, Gardener's shoot care sync period). */
  shootCareSyncPeriodMs: number;
}

export const VPN_KEY_ALGORITHMS = ["rsa-3072", "ecdsa-p256"] as const;
export type VpnKeyAlgorithm = (typeof VPN_KEY_ALGORITHMS)[number];

/** Bounds of --shoot-care-sync-period: each period is one list and one proxied request per shoot. */
export const MIN_CARE_SYNC_PERIOD_MS = 1000;
export const MAX_CARE_SYNC_PERIOD_MS = 60 * 60_000;

/** Bounds of --ssh-keypair-pool-size: each pair is an RSA 4096 generation at start and about 3 KiB of memory. */
export const MAX_SSH_KEYPAIR_POOL_SIZE = 64;

export type ParseResult = FlagsResult<GardenletFlags>;

function program(): Command {
  return new Command("gardenlet")
    .description("The gardenlet of one seed: replicates the seed's Bastions from the garden into the seed and reports back; with --shoot-kubeconfig the shoots' node key pairs, with --vpn-server-addresses their reversed VPN's Secrets, Services, Endpoints and tunnel check.")
    .addOption(new Option("--garden-kubeconfig <file>", "Kubeconfig of the garden, as gardener.cloud:system:seed:<seed> (required)."))
    .addOption(new Option("--seed-kubeconfig <file>", "Kubeconfig of the seed cluster (required)."))
    .addOption(new Option("--seed-name <name>", "Name of the Seed this gardenlet runs for (required)."))
    .addOption(new Option("--metrics-bind-address <host:port>", 'Where /metrics, /healthz and /readyz listen; "0" disables.').default("127.0.0.1:2728"))
    .addOption(new Option("--shoot-kubeconfig <namespace/name=file>", "Kubeconfig of a shoot's API server (repeatable); enables the sshkeypair controller.").argParser(collectShootKubeconfig).default([]))
    .addOption(new Option("--ssh-keypair-pool-size <n>", `Node key pairs (RSA 4096) generated ahead, 1..${MAX_SSH_KEYPAIR_POOL_SIZE}.`).default(String(KEY_POOL_SIZE)))
    .addOption(
      new Option("--vpn-server-addresses <namespace=ip[,ip]>", "Seed-network addresses of a control plane's VPN namespace (repeatable; two for HA); enables the vpn controller.")
        .argParser(collectShootKubeconfig)
        .default([]),
    )
    .addOption(new Option("--vpn-key-algorithm <algorithm>", "Keys of the VPN certificates: rsa-3072 (Gardener's) or ecdsa-p256 (fast).").choices(VPN_KEY_ALGORITHMS).default("rsa-3072"))
    .addOption(new Option("--vpn-egress-secrets-dir <dir>", "Where the shoot API server finds the VPN Secrets; the egress selector ConfigMap names files below it.").default(DEFAULT_EGRESS_SECRETS_DIR))
    .addOption(new Option("--shoot-care-sync-period <duration>", "How often the tunnel check runs while the tunnel is healthy (1s..1h).").default("1m"))
    .addOption(new Option("--log-level <level>", "pino log level: trace, debug, info, warn, error.").default("info"))
    .helpOption("-h, --help", "Show this help.")
    .allowExcessArguments(false)
    .exitOverride();
}

function collectShootKubeconfig(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Parses `<namespace>/<name>=<file>` values into a map; a malformed or repeated shoot is a FlagError. */
export function parseShootKubeconfigs(values: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of values) {
    const m = /^([^/=\s]+)\/([^/=\s]+)=(.+)$/.exec(v);
    if (!m) throw new FlagError(`invalid value "${v}" for --shoot-kubeconfig: expected <namespace>/<name>=<file>`);
    const key = `${m[1]}/${m[2]}`;
    if (out.has(key)) throw new FlagError(`--shoot-kubeconfig: shoot ${key} given twice`);
    out.set(key, m[3]!);
  }
  return out;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Parses `<namespace>=<ip>[,<ip>]` values (IPv4, one or two distinct addresses); a malformed or repeated namespace is a FlagError. */
export function parseVpnServerAddresses(values: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const v of values) {
    const m = /^([^=\s]+)=([^\s]+)$/.exec(v);
    const addresses = m ? m[2]!.split(",") : [];
    const bad = (why: string) => new FlagError(`invalid value "${v.slice(0, 256)}" for --vpn-server-addresses: ${why}`);
    if (!m || !DNS_LABEL.test(m[1]!)) throw bad("expected <namespace>=<ip>[,<ip>]");
    if (addresses.length > 2 || addresses.some((a) => isIP(a) !== 4) || new Set(addresses).size !== addresses.length) throw bad("expected one or two distinct IPv4 addresses");
    if (out.has(m[1]!)) throw new FlagError(`--vpn-server-addresses: namespace ${m[1]} given twice`);
    out.set(m[1]!, addresses);
  }
  return out;
}

export function parseGardenletFlags(argv: string[]): ParseResult {
  return parseFlags(program(), argv, (o: Record<string, string | undefined>) => {
    for (const [flag, value] of [
      ["--garden-kubeconfig", o.gardenKubeconfig],
      ["--seed-kubeconfig", o.seedKubeconfig],
      ["--seed-name", o.seedName],
    ] as const) {
      if (!value) throw new FlagError(`${flag} is required`);
    }
    const poolSize = String(o.sshKeypairPoolSize);
    if (!/^\d+$/.test(poolSize) || Number(poolSize) < 1 || Number(poolSize) > MAX_SSH_KEYPAIR_POOL_SIZE) throw new FlagError(`invalid value "${poolSize}" for --ssh-keypair-pool-size: expected a whole number from 1 to ${MAX_SSH_KEYPAIR_POOL_SIZE}`);
    if (!String(o.vpnEgressSecretsDir).startsWith("/")) throw new FlagError(`invalid value "${String(o.vpnEgressSecretsDir).slice(0, 256)}" for --vpn-egress-secrets-dir: expected an absolute path`);
    const period = String(o.shootCareSyncPeriod);
    let careMs: number;
    try {
      careMs = parsePositiveDuration(period);
    } catch (err) {
      throw new FlagError(`invalid value "${period.slice(0, 64)}" for --shoot-care-sync-period: ${(err as Error).message}`);
    }
    if (careMs < MIN_CARE_SYNC_PERIOD_MS || careMs > MAX_CARE_SYNC_PERIOD_MS) throw new FlagError(`invalid value "${period.slice(0, 64)}" for --shoot-care-sync-period: expected 1s to 1h`);
    const options: GardenletFlags = {
      gardenKubeconfig: o.gardenKubeconfig!,
      seedKubeconfig: o.seedKubeconfig!,
      seedName: o.seedName!,
      metricsBindAddress: parseBindAddress(String(o.metricsBindAddress), "--metrics-bind-address"),
      logLevel: String(o.logLevel),
      shootKubeconfigs: parseShootKubeconfigs((o.shootKubeconfig as unknown as string[] | undefined) ?? []),
      sshKeypairPoolSize: Number(poolSize),
      vpnServerAddresses: parseVpnServerAddresses((o.vpnServerAddresses as unknown as string[] | undefined) ?? []),
      vpnKeyAlgorithm: o.vpnKeyAlgorithm as VpnKeyAlgorithm,
      vpnEgressSecretsDir: String(o.vpnEgressSecretsDir),
      shootCareSyncPeriodMs: careMs,
    };
    return options;
  });
}
