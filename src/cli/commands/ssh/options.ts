// `gardenctl ssh` options: the raw flag values as parsed, and their validation (docs/gardenctl-ssh.md#flags, docs/gardenctl-ssh.md#validation) into
// SSHOptions. Validation runs before any API call, in the order of docs/gardenctl-ssh.md#validation, and fails with exit 1, naming every
// problem found.
import { isIP } from "node:net";
import { isDNS1123Label, isDNS1123Subdomain } from "../../../apimachinery/names/validation.ts";
import { formatDuration } from "../../../utils/duration.ts";
import { CLIError } from "./errors.ts";
import { SHELLS, type Shell } from "./escape.ts";
import type { Logger } from "./log.ts";

export const STRICT_VALUES = ["yes", "ask", "accept-new", "no"] as const;
export type StrictHostKeyChecking = (typeof STRICT_VALUES)[number];

/** Flag values as commander hands them over (durations already in ms). */
export interface RawFlags {
  interactive: boolean;
  cidr: string[];
  publicIpCommand?: string;
  publicKeyFile?: string;
  privateKeyFile?: string;
  keyType: string;
  keyTypeSet: boolean;
  waitTimeout: number;
  keepBastion: boolean;
  skipAvailabilityCheck: boolean;
  keepalive: boolean;
  keepaliveInterval: number;
  bastionName?: string;
  bastionHost?: string;
  bastionPort: string;
  bastionUserKnownHostsFile: string[];
  bastionStrictHostKeyChecking?: string;
  nodeUserKnownHostsFile: string[];
  nodeStrictHostKeyChecking?: string;
  user: string;
  shell?: string;
  output?: string;
  confirmAccessRestriction: boolean;
  garden?: string;
  project?: string;
  seed?: string;
  shoot?: string;
  controlPlane: boolean;
  kubeconfig?: string;
  config?: string;
  v: number;
}

export interface SSHOptions extends Omit<RawFlags, "shell" | "bastionStrictHostKeyChecking" | "nodeStrictHostKeyChecking" | "output" | "keyType"> {
  nodeName?: string;
  command: string[];
  shell: Shell;
  output?: "json" | "yaml";
  keyType: "ed25519" | "rsa";
  bastionStrictHostKeyChecking: StrictHostKeyChecking;
  nodeStrictHostKeyChecking: StrictHostKeyChecking;
  /** stdin and stderr are terminals. */
  tty: boolean;
}

const USER = /^[a-z_][a-z0-9_-]*$/;
const PORT = /^[0-9]+$/;
const MIN_KEEPALIVE = 10_000;
const MAX_KEEPALIVE = 30 * 60_000;

/** The flags failed validation: every problem found, in the order of docs/gardenctl-ssh.md#validation. */
export class OptionsError extends CLIError {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
    this.name = "OptionsError";
  }
}

/**
 * Validates in the order of docs/gardenctl-ssh.md#validation (items 1-9; the ssh-on-PATH check is the
 * caller's) and reports every problem at once (one per flag), as an OptionsError.
 */
export function validateOptions(raw: RawFlags, positional: string[], command: string[], env: NodeJS.ProcessEnv, tty: boolean, log: Logger): SSHOptions {
  const problems: string[] = [];
  if (positional.length > 1) problems.push(`accepts at most 1 arg(s), received ${positional.length}`);
  const nodeName = positional[0]?.trim() || undefined;
  let interactive = raw.interactive;
  if (nodeName === undefined && interactive) {
    log.debug("no node name given, switching to non-interactive mode");
    interactive = false;
  }
  if (raw.output !== undefined && raw.output !== "json" && raw.output !== "yaml") problems.push("--output must be either 'yaml' or 'json'");
  const shell = resolveShell(raw.shell, env, log, problems);
  if (!(raw.waitTimeout > 0)) problems.push("the maximum wait duration must be non-zero");
  if (raw.keepaliveInterval < MIN_KEEPALIVE || raw.keepaliveInterval > MAX_KEEPALIVE) problems.push(`--keepalive-interval must be between 10s and ${formatDuration(MAX_KEEPALIVE)}`);
  problems.push(...modeProblems(raw, interactive, nodeName, command));
  problems.push(...userProblems(raw.user), ...bastionProblems(raw));
  if (nodeName !== undefined) {
    const err = checkHost(nodeName);
    if (err) problems.push(`invalid node name: ${err}`);
  }
  const defaultStrict: StrictHostKeyChecking = tty ? "ask" : "accept-new";
  const bastionStrict = strict(raw.bastionStrictHostKeyChecking, problems) ?? defaultStrict;
  const nodeStrict = strict(raw.nodeStrictHostKeyChecking, problems) ?? defaultStrict;
  if (raw.keyType !== "ed25519" && raw.keyType !== "rsa") problems.push("--key-type must be either 'ed25519' or 'rsa'");
  if (raw.privateKeyFile !== undefined && raw.publicKeyFile === undefined) problems.push("set --public-key-file when using --private-key-file");
  if (raw.publicKeyFile !== undefined && raw.keyTypeSet) log.warn("--key-type is ignored when --public-key-file is set");
  if (problems.length > 0) throw new OptionsError(problems);

  return {
    ...raw,
    interactive,
    nodeName,
    command,
    shell: shell as Shell,
    output: raw.output as SSHOptions["output"],
    keyType: raw.keyType as SSHOptions["keyType"],
    bastionStrictHostKeyChecking: bastionStrict,
    nodeStrictHostKeyChecking: nodeStrict,
    tty,
  };
}

/** --shell, else $GCTL_SHELL, else bash (with a hint). */
function resolveShell(flag: string | undefined, env: NodeJS.ProcessEnv, log: Logger, problems: string[]): string {
  let shell = flag ?? env.GCTL_SHELL;
  if (shell === undefined) {
    shell = "bash";
    log.debug("no shell specified via --shell flag or GCTL_SHELL environment variable, using fallback; the printed SSH command may have incorrect escaping for your shell - set GCTL_SHELL in your shell profile (e.g., 'export GCTL_SHELL=zsh')", { shell });
  }
  if (shell === "") problems.push("shell is required");
  else if (!(SHELLS as readonly string[]).includes(shell)) problems.push(`shell must be one of [${SHELLS.join(" ")}]`);
  return shell;
}

/** Mode combinations: keepalive, output and a remote command. */
function modeProblems(raw: RawFlags, interactive: boolean, nodeName: string | undefined, command: string[]): string[] {
  const problems: string[] = [];
  if (!raw.keepalive) {
    if (interactive) problems.push("set --interactive=false when disabling keepalive");
    if (!raw.keepBastion) problems.push("set --keep-bastion when disabling keepalive");
  }
  if (raw.output !== undefined && interactive) problems.push("set --interactive=false when using the output flag");
  if (command.length > 0) {
    if (nodeName === undefined) problems.push("a node name is required when a command is given");
    if (!raw.interactive) problems.push("a command cannot be combined with --interactive=false");
    if (raw.output !== undefined) problems.push("a command cannot be combined with --output");
  }
  return problems;
}

function userProblems(user: string): string[] {
  if (user === "") return ["user must not be empty"];
  if (user.length > 32) return ["user must not exceed 32 characters"];
  if (!USER.test(user)) return ["user must start with a lowercase letter or underscore, followed by lowercase letters, digits, underscores, or hyphens"];
  return [];
}

/** --bastion-port, --bastion-name and --bastion-host. */
function bastionProblems(raw: RawFlags): string[] {
  const problems: string[] = [];
  if (raw.bastionPort !== "") {
    const n = Number(raw.bastionPort);
    if (!PORT.test(raw.bastionPort) || n < 1 || n > 65535) problems.push("bastion port must be a valid port number between 1 and 65535");
  }
  if (raw.bastionName !== undefined) {
    const errs = isDNS1123Label(raw.bastionName);
    if (errs.length) problems.push(`bastion name is invalid: ${errs.join("; ")}`);
  }
  if (raw.bastionHost !== undefined) {
    const err = checkHost(raw.bastionHost);
    if (err) problems.push(`invalid bastion-host: ${err}`);
  }
  return problems;
}

function strict(value: string | undefined, problems: string[]): StrictHostKeyChecking | undefined {
  if (value === undefined) return undefined;
  if (value === "off") return "no";
  if ((STRICT_VALUES as readonly string[]).includes(value)) return value as StrictHostKeyChecking;
  problems.push(`invalid value ${JSON.stringify(value)} for StrictHostKeyChecking. Valid options are 'yes', 'ask', 'accept-new', 'no', or 'off'`);
  return undefined;
}

/** An IP (not unspecified, not multicast) or a DNS-1123 subdomain; returns the problem or "". */
export function checkHost(value: string): string {
  const family = isIP(value);
  if (family !== 0) {
    if (isUnspecified(value)) return `unspecified addresses are not allowed: ${JSON.stringify(value)}`;
    if (isMulticast(value)) return `multicast addresses are not allowed: ${JSON.stringify(value)}`;
    return "";
  }
  const errs = isDNS1123Subdomain(value);
  return errs.length ? `does not conform to DNS naming rules: ${errs.join("; ")}: ${JSON.stringify(value)}` : "";
}

export function isUnspecified(ip: string): boolean {
  return ip === "0.0.0.0" || /^[0:]+$/.test(ip);
}

export function isMulticast(ip: string): boolean {
  if (isIP(ip) === 4) {
    const first = Number(ip.split(".")[0]);
    return first >= 224 && first <= 239;
  }
  return /^ff/i.test(ip);
}
