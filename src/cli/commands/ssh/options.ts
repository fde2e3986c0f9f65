// `gardenctl ssh` options: the raw flag values as parsed, and their validation (docs/gardenctl-ssh.md#flags, docs/gardenctl-ssh.md#validation) into
// SSHOptions. Validation runs before any API call, in the order of docs/gardenctl-ssh.md#validation, and fails with exit 1.
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

/** Validates in the order of docs/gardenctl-ssh.md#validation (items 1-9; the ssh-on-PATH check is the caller's). */
export function validateOptions(raw: RawFlags, positional: string[], command: string[], env: NodeJS.ProcessEnv, tty: boolean, log: Logger): SSHOptions {
  if (positional.length > 1) throw new CLIError(`accepts at most 1 arg(s), received ${positional.length}`);
  const nodeName = positional[0]?.trim() || undefined;
  let interactive = raw.interactive;
  if (nodeName === undefined && interactive) {
    log.debug("no node name given, switching to non-interactive mode");
    interactive = false;
  }
  if (raw.output !== undefined && raw.output !== "json" && raw.output !== "yaml") throw new CLIError("--output must be either 'yaml' or 'json'");

  let shell = raw.shell ?? env.GCTL_SHELL;
  if (shell === undefined) {
    shell = "bash";
    log.debug("no shell specified via --shell flag or GCTL_SHELL environment variable, using fallback; the printed SSH command may have incorrect escaping for your shell - set GCTL_SHELL in your shell profile (e.g., 'export GCTL_SHELL=zsh')", { shell });
  }
  if (shell === "") throw new CLIError("shell is required");
  if (!(SHELLS as readonly string[]).includes(shell)) throw new CLIError(`shell must be one of [${SHELLS.join(" ")}]`);

  if (!(raw.waitTimeout > 0)) throw new CLIError("the maximum wait duration must be non-zero");
  if (raw.keepaliveInterval < MIN_KEEPALIVE || raw.keepaliveInterval > MAX_KEEPALIVE) throw new CLIError(`--keepalive-interval must be between 10s and ${formatDuration(MAX_KEEPALIVE)}`);

  if (!raw.keepalive) {
    if (interactive) throw new CLIError("set --interactive=false when disabling keepalive");
    if (!raw.keepBastion) throw new CLIError("set --keep-bastion when disabling keepalive");
  }
  if (raw.output !== undefined && interactive) throw new CLIError("set --interactive=false when using the output flag");
  if (command.length > 0) {
    if (nodeName === undefined) throw new CLIError("a node name is required when a command is given");
    if (!raw.interactive) throw new CLIError("a command cannot be combined with --interactive=false");
    if (raw.output !== undefined) throw new CLIError("a command cannot be combined with --output");
  }

  if (raw.user === "") throw new CLIError("user must not be empty");
  if (raw.user.length > 32) throw new CLIError("user must not exceed 32 characters");
  if (!USER.test(raw.user)) throw new CLIError("user must start with a lowercase letter or underscore, followed by lowercase letters, digits, underscores, or hyphens");

  if (raw.bastionPort !== "") {
    const n = Number(raw.bastionPort);
    if (!PORT.test(raw.bastionPort) || n < 1 || n > 65535) throw new CLIError("bastion port must be a valid port number between 1 and 65535");
  }
  if (raw.bastionName !== undefined) {
    const errs = isDNS1123Label(raw.bastionName);
    if (errs.length) throw new CLIError(`bastion name is invalid: ${errs.join("; ")}`);
  }
  if (raw.bastionHost !== undefined) {
    const err = checkHost(raw.bastionHost);
    if (err) throw new CLIError(`invalid bastion-host: ${err}`);
  }
  if (nodeName !== undefined) {
    const err = checkHost(nodeName);
    if (err) throw new CLIError(`invalid node name: ${err}`);
  }

  const defaultStrict: StrictHostKeyChecking = tty ? "ask" : "accept-new";
  const bastionStrict = strict(raw.bastionStrictHostKeyChecking) ?? defaultStrict;
  const nodeStrict = strict(raw.nodeStrictHostKeyChecking) ?? defaultStrict;

  if (raw.keyType !== "ed25519" && raw.keyType !== "rsa") throw new CLIError("--key-type must be either 'ed25519' or 'rsa'");
  if (raw.publicKeyFile !== undefined && raw.keyTypeSet) log.warn("--key-type is ignored when --public-key-file is set");
  if (raw.privateKeyFile !== undefined && raw.publicKeyFile === undefined) throw new CLIError("set --public-key-file when using --private-key-file");

  return {
    ...raw,
    interactive,
    nodeName,
    command,
    shell: shell as Shell,
    output: raw.output as SSHOptions["output"],
    keyType: raw.keyType,
    bastionStrictHostKeyChecking: bastionStrict,
    nodeStrictHostKeyChecking: nodeStrict,
    tty,
  };
}

function strict(value: string | undefined): StrictHostKeyChecking | undefined {
  if (value === undefined) return undefined;
  if (value === "off") return "no";
  if ((STRICT_VALUES as readonly string[]).includes(value)) return value as StrictHostKeyChecking;
  throw new CLIError(`invalid value ${JSON.stringify(value)} for StrictHostKeyChecking. Valid options are 'yes', 'ask', 'accept-new', 'no', or 'off'`);
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
