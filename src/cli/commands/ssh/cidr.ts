// The CIDRs allowed to reach the bastion (docs/gardenctl-ssh.md#allowed-cidrs). Precedence: --cidr > --public-ip-command >
// GCTL_PUBLIC_IP_COMMAND > config ssh.publicIPCommand; the command prints the public IPs. (The local
// landscape configures one that prints the host's address on its public network.)
import { isIP } from "node:net";
import { parseCIDR } from "../../../api/cidr.ts";
import { CLIError } from "./errors.ts";
import type { Logger } from "./log.ts";
import { isMulticast, isUnspecified } from "./options.ts";
import { runShell } from "../../../host/spawn.ts";

export interface CIDRSettings {
  cidrs: string[];
  publicIpCommand?: string;
  env: NodeJS.ProcessEnv;
  config?: { publicIPCommand?: string };
  signal?: AbortSignal;
  timeoutMs?: number;
}

const NO_SOURCE =
  "could not determine the CIDR(s) allowed to reach the bastion: pass --cidr, or configure a public-IP command (--public-ip-command, GCTL_PUBLIC_IP_COMMAND or ssh.publicIPCommand)";

export async function determineCIDRs(s: CIDRSettings, log: Logger): Promise<string[]> {
  if (s.cidrs.length > 0) {
    for (const c of s.cidrs) {
      if (!parseCIDR(c)) throw new CLIError(`CIDR ${JSON.stringify(c)} is invalid: invalid CIDR address: ${c}`);
    }
    return s.cidrs;
  }
  const cmd = s.publicIpCommand || s.env.GCTL_PUBLIC_IP_COMMAND || s.config?.publicIPCommand;
  if (!cmd) throw new CLIError(NO_SOURCE);
  const ips = tokens(await runPublicIPCommand(cmd, s.timeoutMs ?? 60_000, s.signal));
  if (ips.length === 0) throw new CLIError(NO_SOURCE);
  const cidrs = toCIDRs(ips, log);
  log.info("Auto-detected your system's CIDR(s)", { cidr: cidrs.join(", ") });
  return cidrs;
}

function tokens(out: string): string[] {
  return out.split(/[\s,]+/).filter((t) => t !== "");
}

/** IPv4 -> /32, IPv6 -> /64 (masked, normalized), duplicates removed. */
export function toCIDRs(ips: string[], log: Logger): string[] {
  const out: string[] = [];
  for (const ip of ips) {
    const family = isIP(ip);
    if (family === 0) throw new CLIError(`public IP command printed an invalid IP address: ${JSON.stringify(ip)}`);
    const loopback = family === 4 ? ip.startsWith("127.") : ip === "::1";
    const linkLocal = family === 4 ? ip.startsWith("169.254.") : /^fe[89ab]/i.test(ip);
    if (isUnspecified(ip) || isMulticast(ip) || linkLocal || loopback) throw new CLIError(`public IP command returned a non-global unicast IP address: ${JSON.stringify(ip)}`);
    if (isPrivate(ip)) log.warn("the detected IP address is private; the bastion will only be reachable from that network", { ip });
    const cidr = family === 4 ? `${ip}/32` : `${maskV6(ip)}/64`;
    if (!out.includes(cidr)) out.push(cidr);
  }
  return out;
}

function isPrivate(ip: string): boolean {
  return /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(ip) || /^f[cd]/i.test(ip);
}

function maskV6(ip: string): string {
  const p = parseCIDR(`${ip}/64`);
  if (!p) throw new CLIError(`public IP command printed an invalid IP address: ${JSON.stringify(ip)}`);
  const words = expandV6(ip).slice(0, 4).map((w) => parseInt(w, 16).toString(16));
  // Trailing zero words collapse into "::" (the canonical text of a /64 network).
  while (words.length > 0 && words[words.length - 1] === "0") words.pop();
  return `${words.join(":")}::`;
}

function expandV6(ip: string): string[] {
  const [head, tail] = ip.includes("::") ? ip.split("::") : [ip, undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  return tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t];
}

async function runPublicIPCommand(cmd: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  let r;
  try {
    r = await runShell(cmd, { timeoutMs, signal });
  } catch (err) {
    throw new CLIError(`public IP command ${JSON.stringify(cmd)} failed: ${(err as Error).message}`);
  }
  if (r.code === 0) return r.stdout;
  const last = r.stderr.trim().split("\n").pop() ?? "";
  const why = r.signal === "SIGTERM" ? "timeout" : r.signal ? `signal: ${r.signal}` : `exit status ${r.code}`;
  throw new CLIError(`public IP command ${JSON.stringify(cmd)} failed: ${why}: ${last}`);
}
