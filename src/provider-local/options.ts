// Command-line flags of provider-local. Parsing never exits the process: it returns the options, or what
// to print and the exit code (help: 0; bad flags: one line and 2).
import { Command, Option } from "commander";
import { type BindAddress, FlagError, type FlagsResult, parseBindAddress, parseFlags } from "../utils/flags.ts";
import { parseCidr } from "../host/index.ts";
import { DEFAULT_NODE_POOL, DEFAULT_PUBLIC_CIDR } from "./network/networks.ts";

export const DEFAULT_STATE_DIR = "/var/lib/gardener-local/provider-local";
/** Held bastion machines by default: a burst of ten bastions is claimed whole (docs/adr/0015-bastion-machine-pool.md). */
export const DEFAULT_BASTION_POOL_SIZE = 10;
/** Most held bastion machines: each costs a booted machine's memory while it waits. */
export const MAX_BASTION_POOL_SIZE = 64;

export interface ProviderLocalFlags {
  kubeconfig: string;
  stateDir: string;
  prefix: string | undefined;
  publicCidr: string;
  nodeCidrPool: string;
  concurrentSyncs: number;
  bastionPoolSize: number;
  metricsBindAddress: BindAddress | undefined;
  logLevel: string;
}

export type ParseResult = FlagsResult<ProviderLocalFlags>;

function program(): Command {
  return new Command("provider-local")
    .description("The local provider extension: realises the seed's Bastions (type local) as Linux-namespace machines on this host (needs root).")
    .addOption(new Option("--kubeconfig <file>", "Kubeconfig of the seed cluster (required)."))
    .addOption(new Option("--state-dir <dir>", "Where host records, machines and address allocations live.").default(DEFAULT_STATE_DIR))
    .addOption(new Option("--prefix <prefix>", 'Name prefix of host objects (default: the state directory\'s, else "ga-").'))
    .addOption(new Option("--public-cidr <cidr>", "The public network (users and bastions' public addresses).").default(DEFAULT_PUBLIC_CIDR))
    .addOption(new Option("--node-cidr-pool <cidr>", "Where per-shoot node networks are carved from.").default(DEFAULT_NODE_POOL))
    // A reconcile mostly waits for its machine's boot: with 5, the sixth of ten bastions created at once
    // would start only after a whole boot (docs/bastion.md#provider-local).
    .addOption(new Option("--concurrent-syncs <n>", "Bastions reconciled at once.").default("16"))
    // Held bastion machines take a machine's boot off a bastion's creation (docs/adr/0015-bastion-machine-pool.md).
    .addOption(new Option("--bastion-pool-size <n>", "Bastion machines booted in advance, up to their user-data; 0 disables.").default(String(DEFAULT_BASTION_POOL_SIZE)))
    .addOption(new Option("--metrics-bind-address <host:port>", 'Where /metrics, /healthz and /readyz listen; "0" disables.').default("127.0.0.1:2729"))
    .addOption(new Option("--log-level <level>", "pino log level: trace, debug, info, warn, error.").default("info"))
    .helpOption("-h, --help", "Show this help.")
    .allowExcessArguments(false)
    .exitOverride();
}

function cidrFlag(value: string, flag: string): string {
  try {
    if (!value.includes("/")) throw new Error("no prefix length");
    if (parseCidr(value).family !== 4) throw new Error("only IPv4 is supported");
    return value;
  } catch (err) {
    throw new FlagError(`invalid value "${value}" for ${flag}: ${(err as Error).message}`);
  }
}

export function parseProviderLocalFlags(argv: string[]): ParseResult {
  return parseFlags(program(), argv, (o: Record<string, string | undefined>) => {
    if (!o.kubeconfig) throw new FlagError("--kubeconfig is required");
    const syncs = Number(o.concurrentSyncs);
    if (!Number.isInteger(syncs) || syncs < 1) throw new FlagError(`invalid value "${o.concurrentSyncs}" for --concurrent-syncs: expected a positive integer`);
    const poolSize = Number(o.bastionPoolSize);
    if (!Number.isInteger(poolSize) || poolSize < 0 || poolSize > MAX_BASTION_POOL_SIZE) throw new FlagError(`invalid value "${o.bastionPoolSize}" for --bastion-pool-size: expected an integer from 0 to ${MAX_BASTION_POOL_SIZE}`);
    const options: ProviderLocalFlags = {
      kubeconfig: o.kubeconfig,
      stateDir: String(o.stateDir),
      prefix: o.prefix,
      publicCidr: cidrFlag(String(o.publicCidr), "--public-cidr"),
      nodeCidrPool: cidrFlag(String(o.nodeCidrPool), "--node-cidr-pool"),
      concurrentSyncs: syncs,
      bastionPoolSize: poolSize,
      metricsBindAddress: parseBindAddress(String(o.metricsBindAddress), "--metrics-bind-address"),
      logLevel: String(o.logLevel),
    };
    return options;
  });
}
