// Which known_hosts files and StrictHostKeyChecking each hop uses (docs/gardenctl-ssh.md#host-keys): pinned files written
// from published keys (StrictHostKeyChecking=yes), else the flags' fallback with its defaults.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import { CLIError } from "./errors.ts";
import { hostPattern, parseHostKeys, writeKnownHosts } from "./knownhosts.ts";
import type { Logger } from "./log.ts";
import type { NodeInfo } from "./nodes.ts";
import type { StrictHostKeyChecking } from "./options.ts";

export interface HopPolicy {
  files: string[];
  strict: StrictHostKeyChecking;
}

export interface FallbackFlags {
  files: string[];
  strict: StrictHostKeyChecking;
  /** The flags were given explicitly (for the "ignored" log). */
  explicit: boolean;
  tty: boolean;
}

function fallback(what: "bastion" | "shoot node", defaultFile: string, f: FallbackFlags, log: Logger): HopPolicy {
  log.warn(`${what === "bastion" ? "bastion does" : "node does"} not publish SSH host keys; falling back to StrictHostKeyChecking=${f.strict}`);
  let files = f.files;
  if (files.length === 0) {
    files = [defaultFile];
    log.info(`Using default known_hosts file for ${what}`, { knownHostsFile: defaultFile });
  }
  if (f.strict === "ask" && !f.tty) throw new CLIError("no terminal available to prompt user");
  if (f.strict === "yes" && !existsSync(files[0]!)) throw new CLIError(`known_hosts file ${JSON.stringify(files[0])} does not exist; StrictHostKeyChecking=yes needs known keys`);
  return { files, strict: f.strict };
}

export function bastionPolicy(dir: string, b: Bastion, bastionHost: string | undefined, port: string, f: FallbackFlags, log: Logger): HopPolicy {
  const file = join(dir, "bastion_known_hosts");
  const keys = parseHostKeys(b.status?.sshHostKeys ?? [], "bastion", log);
  if (keys.length === 0) return fallback("bastion", file, f, log);
  const hosts = [b.status?.ingress?.ip, b.status?.ingress?.hostname, bastionHost].filter((h): h is string => !!h).map((h) => hostPattern(h, port));
  writeKnownHosts(file, [{ hosts, keys }]);
  if (f.explicit) log.info("bastion publishes SSH host keys; ignoring the bastion known-hosts and strict-host-key-checking flags", {}, 1);
  return { files: [file], strict: "yes" };
}

/** `nodes`: the target node (with its host) or, in list mode, every listed node. */
export function nodePolicy(dir: string, nodes: { info: NodeInfo; host?: string }[], defaultFile: string, f: FallbackFlags, log: Logger): HopPolicy {
  const file = join(dir, "node_known_hosts");
  const entries = nodes.map(({ info, host }) => ({ hosts: [...info.addresses, ...(host ? [host] : [])], keys: parseHostKeys(info.hostKeys, `node ${info.name}`, log) })).filter((e) => e.keys.length > 0);
  const all = nodes.length > 0 && entries.length === nodes.length;
  if (entries.length > 0) writeKnownHosts(file, entries);
  if (all) {
    if (f.explicit) log.info("shoot node publishes SSH host keys; ignoring the node known-hosts and strict-host-key-checking flags", {}, 1);
    return { files: [file], strict: "yes" };
  }
  const fb = fallback("shoot node", defaultFile, f, log);
  return entries.length > 0 ? { files: [...fb.files, file], strict: fb.strict } : fb;
}

/** `<garden home>/cache/<shoot UID>/.ssh/known_hosts` (directory 0700, file 0600), created if missing. */
export function defaultNodeKnownHosts(home: string, shootUID: string): string {
  const sshDir = join(home, "cache", shootUID, ".ssh");
  mkdirSync(sshDir, { recursive: true, mode: 0o700 });
  const file = join(sshDir, "known_hosts");
  if (!existsSync(file)) writeFileSync(file, "", { mode: 0o600 });
  return file;
}
