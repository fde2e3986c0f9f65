// Command-line flags of the gardenlet. Parsing never exits the process: it returns the options,
// or what to print and the exit code (help: 0; bad flags: one line and 2).
import { Command, Option } from "commander";
import { type BindAddress, FlagError, type FlagsResult, parseBindAddress, parseFlags } from "../utils/flags.ts";
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
}

/** Bounds of --ssh-keypair-pool-size: each pair is an RSA 4096 generation at start and about 3 KiB of memory. */
export const MAX_SSH_KEYPAIR_POOL_SIZE = 64;

export type ParseResult = FlagsResult<GardenletFlags>;

function program(): Command {
  return new Command("gardenlet")
    .description("The gardenlet of one seed: replicates the seed's Bastions from the garden into the seed and reports back.")
    .addOption(new Option("--garden-kubeconfig <file>", "Kubeconfig of the garden, as gardener.cloud:system:seed:<seed> (required)."))
    .addOption(new Option("--seed-kubeconfig <file>", "Kubeconfig of the seed cluster (required)."))
    .addOption(new Option("--seed-name <name>", "Name of the Seed this gardenlet runs for (required)."))
    .addOption(new Option("--metrics-bind-address <host:port>", 'Where /metrics, /healthz and /readyz listen; "0" disables.').default("127.0.0.1:2728"))
    .addOption(new Option("--shoot-kubeconfig <namespace/name=file>", "Kubeconfig of a shoot's API server (repeatable); enables the sshkeypair controller.").argParser(collectShootKubeconfig).default([]))
    .addOption(new Option("--ssh-keypair-pool-size <n>", `Node key pairs (RSA 4096) generated ahead, 1..${MAX_SSH_KEYPAIR_POOL_SIZE}.`).default(String(KEY_POOL_SIZE)))
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
    const options: GardenletFlags = {
      gardenKubeconfig: o.gardenKubeconfig!,
      seedKubeconfig: o.seedKubeconfig!,
      seedName: o.seedName!,
      metricsBindAddress: parseBindAddress(String(o.metricsBindAddress), "--metrics-bind-address"),
      logLevel: String(o.logLevel),
      shootKubeconfigs: parseShootKubeconfigs((o.shootKubeconfig as unknown as string[] | undefined) ?? []),
      sshKeypairPoolSize: Number(poolSize),
    };
    return options;
  });
}
