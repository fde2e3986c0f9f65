// The gardenctl program (commander): `gardenctl ssh` and help. Flags follow gardenctl-v2's
// pflag habits: booleans accept `--flag=true|false`, repeatable flags collect, durations are Go
// durations. Everything after the first `--` is the remote command. Flag-parsing errors print
// the usage and exit 1.
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { parseDuration } from "../utils/duration.ts";
import type { RawFlags } from "./commands/ssh/options.ts";
import { type IO, runSSH } from "./commands/ssh/run.ts";

const BOOL_FLAGS = ["interactive", "keep-bastion", "skip-availability-check", "control-plane", "confirm-access-restriction"];

/** Rewrites `--flag=true|false` of boolean flags into commander's `--flag` / `--no-flag`. */
export function normalizeBooleans(args: string[]): string[] {
  const out: string[] = [];
  for (const a of args) {
    const m = /^--([a-z-]+)=(.*)$/.exec(a);
    if (m && (BOOL_FLAGS.includes(m[1]!) || m[1] === "no-keepalive")) {
      const value = m[2]!.toLowerCase();
      if (value !== "true" && value !== "false") throw new InvalidArgumentError(`invalid argument ${JSON.stringify(m[2])} for "--${m[1]}" flag: strconv.ParseBool: parsing ${JSON.stringify(m[2])}: invalid syntax`);
      const on = value === "true";
      if (m[1] === "no-keepalive") out.push(...(on ? ["--no-keepalive"] : []));
      else out.push(on ? `--${m[1]}` : `--no-${m[1]}`);
      continue;
    }
    out.push(a);
  }
  return out;
}

function duration(value: string): number {
  try {
    return parseDuration(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

const collect = (value: string, prev: string[]): string[] => [...prev, value];

const output = (io: IO) => ({
  writeOut: (s: string) => io.stdout.write(s),
  writeErr: (s: string) => io.stderr.write(s),
  outputError: (s: string, write: (s: string) => void) => write(s.replace(/^error: /, "Error: ")),
});

function sshCommand(io: IO, done: (code: number) => void, rest: string[]): Command {
  const cmd = new Command("ssh")
    .summary("Establish an SSH connection to a node of a shoot cluster")
    .description(
      "Establish an SSH connection to a node of a shoot cluster through a bastion host that is created for this session and removed on exit.\n\n" +
        "Without NODE_NAME the nodes are listed and the bastion is kept alive until Ctrl-C. Everything after `--` is run on the node.",
    )
    .usage("[NODE_NAME] [flags] [-- COMMAND [ARG...]]")
    .argument("[NODE_NAME...]", "name of the node to connect to")
    .option("--interactive", "open a shell (false: provide the bastion and the connect info only)", true)
    .option("--no-interactive", "same as --interactive=false")
    .option("--cidr <cidr>", "CIDR allowed to reach the bastion (repeatable; default: detected)", collect, [])
    .option("--public-ip-command <command>", "command whose stdout lists this machine's public IPs")
    .option("--public-key-file <path>", "existing bastion public key (authorized_keys format)")
    .option("--private-key-file <path>", "private key matching --public-key-file (omitted: ssh-agent must hold the key)")
    .option("--key-type <type>", "type of a generated key pair: ed25519 or rsa", "ed25519")
    .addOption(new Option("--wait-timeout <duration>", "maximum wait for the bastion to be ready and to accept SSH").argParser(duration).default(600_000, "10m0s"))
    .option("--keep-bastion", "keep the Bastion and the local key and known_hosts files on exit", false)
    .option("--skip-availability-check", "skip the SSH probe of the bastion once BastionReady=True", false)
    .option("--no-keepalive", "exit right after the bastion is available (needs --interactive=false and --keep-bastion)")
    .addOption(new Option("--keepalive-interval <duration>", "heartbeat period (10s to 30m)").argParser(duration).default(180_000, "3m0s"))
    .option("--bastion-name <name>", "Bastion name (default cli-<random>); an existing Bastion is reused")
    .option("--bastion-host <host>", "host for the bastion hop and the probe (overrides the status address)")
    .option("--bastion-port <port>", "bastion SSH port (empty: no -p)", "22")
    .option("--bastion-user-known-hosts-file <path>", "known_hosts file for the bastion (fallback only, repeatable)", collect, [])
    .option("--bastion-strict-host-key-checking <value>", "yes, ask, accept-new, no or off (fallback only)")
    .option("--node-user-known-hosts-file <path>", "known_hosts file for the node (fallback only, repeatable)", collect, [])
    .option("--node-strict-host-key-checking <value>", "yes, ask, accept-new, no or off (fallback only)")
    .option("--user <user>", "login user on the node", "gardener")
    .option("--shell <shell>", "escaping of printed commands: bash, zsh, fish or powershell (default $GCTL_SHELL, else bash)")
    .option("-o, --output <format>", "json or yaml (non-interactive mode only)")
    .option("-y, --confirm-access-restriction", "skip the access-restriction confirmation", false)
    .option("--garden <identity>", "target garden")
    .option("--project <name>", "target project")
    .option("--seed <name>", "target seed")
    .option("--shoot <name>", "target shoot")
    .option("--control-plane", "target the control-plane nodes (seed of the shoot)", false)
    .option("--kubeconfig <path>", "kubeconfig of the garden cluster")
    .option("--config <path>", "configuration file (default <garden home>/gardenctl-v2.yaml)")
    .option("-v, --v <level>", "log verbosity", (v) => Number.parseInt(v, 10), 0)
    .action(async (positional: string[], flags: Record<string, unknown>, c: Command) => {
      const raw = {
        ...(flags as unknown as RawFlags),
        keyTypeSet: c.getOptionValueSource("keyType") === "cli",
      };
      done(await runSSH(raw, positional, rest, io));
    });
  return cmd;
}

/** Builds the program; `done` receives the exit code of a completed command. */
export function buildProgram(io: IO, done: (code: number) => void, rest: string[] = []): Command {
  const program = new Command("gardenctl")
    .description("gardenctl: operator access to Gardener shoot clusters")
    .showHelpAfterError()
    .exitOverride()
    .configureOutput(output(io));
  program.addCommand(sshCommand(io, done, rest).exitOverride().showHelpAfterError().configureOutput(output(io)));
  return program;
}

/** Runs gardenctl with `argv` (without node and script); resolves with the exit code. */
export async function main(argv: string[], io: IO): Promise<number> {
  const sep = argv.indexOf("--");
  const before = sep < 0 ? argv : argv.slice(0, sep);
  const rest = sep < 0 ? [] : argv.slice(sep + 1);
  let code = 0;
  try {
    const program = buildProgram(io, (c) => (code = c), rest);
    if (before.length === 0) {
      program.outputHelp();
      return 0;
    }
    await program.parseAsync(normalizeBooleans(before), { from: "user" });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.help" || err.code === "commander.version") return 0;
      return 1;
    }
    if (err instanceof InvalidArgumentError) {
      io.stderr.write(`Error: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
