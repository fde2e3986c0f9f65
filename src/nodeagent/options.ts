// Command-line flags of the node agent. Parsing never exits the process: it returns the options, or
// what to print and the exit code (help: 0; bad flags: one line and 2).
import { Command, Option } from "commander";
import { FlagError, type FlagsResult, parseFlags } from "../utils/flags.ts";

export interface NodeAgentFlags {
  kubeconfig: string;
  nodeName: string;
  pool: string;
  root: string;
  secretName: string | undefined;
  hostKeyDir: string;
  logLevel: string;
}

export type ParseResult = FlagsResult<NodeAgentFlags>;

function program(): Command {
  return new Command("gardener-node-agent")
    .description("Registers this worker's Node, installs the authorized keys of user gardener from its pool's operating system config and reports the applied checksum.")
    .addOption(new Option("--kubeconfig <file>", "Kubeconfig of the shoot API server (required)."))
    .addOption(new Option("--node-name <name>", "Name of this machine's Node (required)."))
    .addOption(new Option("--pool <name>", "Worker pool of this machine (required)."))
    .addOption(new Option("--root <dir>", 'The machine\'s root directory; user creation and sshd control happen only with "/".').default("/"))
    .addOption(new Option("--secret-name <name>", "The OSC Secret to follow (default: the newest Secret of the pool)."))
    .addOption(new Option("--host-key-dir <dir>", "Directory (under --root) of the ssh_host_*_key.pub files.").default("/etc/ssh"))
    .addOption(new Option("--log-level <level>", "pino log level: trace, debug, info, warn, error.").default("info"))
    .helpOption("-h, --help", "Show this help.")
    .allowExcessArguments(false)
    .exitOverride();
}

export function parseNodeAgentFlags(argv: string[]): ParseResult {
  return parseFlags(program(), argv, (o: Record<string, string | undefined>) => {
    for (const [flag, value] of [
      ["--kubeconfig", o.kubeconfig],
      ["--node-name", o.nodeName],
      ["--pool", o.pool],
    ] as const) {
      if (!value) throw new FlagError(`${flag} is required`);
    }
    return {
      kubeconfig: o.kubeconfig!,
      nodeName: o.nodeName!,
      pool: o.pool!,
      root: String(o.root),
      secretName: o.secretName || undefined,
      hostKeyDir: String(o.hostKeyDir),
      logLevel: String(o.logLevel),
    };
  });
}
