// The ssh command line (docs/gardenctl-ssh.md#the-ssh-command-line): the node hop with a ProxyCommand through the bastion, as
// executed (unquoted argv) and as printed for the user's shell; and running the system ssh.
import { type ForegroundProcess, startForeground } from "../../../host/spawn.ts";
import { type Shell, escape } from "./escape.ts";
import type { StrictHostKeyChecking } from "./options.ts";

export const NODE_PLACEHOLDER = "IP_OR_HOSTNAME";

export interface SSHCommandInput {
  shell: Shell;
  bastionAddress: string;
  /** "" emits no -p. */
  bastionPort: string;
  /** Undefined when only an agent key is used. */
  bastionPrivateKeyFile?: string;
  bastionKnownHostsFiles: string[];
  bastionStrictHostKeyChecking: StrictHostKeyChecking;
  nodeKnownHostsFiles: string[];
  nodeStrictHostKeyChecking: StrictHostKeyChecking;
  /** node_id_rsa first, then node_id_rsa.old if present. */
  nodePrivateKeyFiles: string[];
  user: string;
  nodeHost: string;
  command: string[];
}

function knownHostsOption(shell: Shell, files: string[]): string {
  return `-oUserKnownHostsFile=${files.map((f) => escape(shell, f)).join(" ")}`;
}

/** The ProxyCommand string, run by OpenSSH through `$SHELL -c`. */
export function bastionHop(i: SSHCommandInput): string {
  const q = (s: string): string => escape(i.shell, s);
  const parts = ["ssh", q("-W[%h]:%p"), `-oStrictHostKeyChecking=${i.bastionStrictHostKeyChecking}`];
  if (i.bastionPrivateKeyFile !== undefined) parts.push("-oIdentitiesOnly=yes", q(`-i${i.bastionPrivateKeyFile}`));
  parts.push(q(knownHostsOption(i.shell, i.bastionKnownHostsFiles)));
  if (i.bastionPort !== "") parts.push(q(`-p${i.bastionPort}`));
  parts.push(q(`gardener@${i.bastionAddress}`));
  return parts.join(" ");
}

/** The argv after `ssh`, unquoted (what gardenctl executes). */
export function sshArgs(i: SSHCommandInput): string[] {
  return [
    "-oIdentitiesOnly=yes",
    `-oStrictHostKeyChecking=${i.nodeStrictHostKeyChecking}`,
    knownHostsOption(i.shell, i.nodeKnownHostsFiles),
    ...i.nodePrivateKeyFiles.map((k) => `-i${k}`),
    `-oProxyCommand=${bastionHop(i)}`,
    `${i.user}@${i.nodeHost}`,
    ...i.command,
  ];
}

const BARE = /^-o(IdentitiesOnly=yes|StrictHostKeyChecking=[a-z-]+)$/;

/** `ssh ` plus the node-hop arguments quoted for the shell (bare where docs/gardenctl-ssh.md#the-ssh-command-line says so). */
export function printedCommand(i: SSHCommandInput): string {
  return ["ssh", ...sshArgs(i).map((a) => (BARE.test(a) ? a : escape(i.shell, a)))].join(" ");
}

export type RunningSSH = ForegroundProcess;

/** Starts the system ssh with inherited stdio; `exited` resolves with its exit status. */
export function startSSH(args: string[], env: NodeJS.ProcessEnv): RunningSSH {
  return startForeground("ssh", args, env);
}
