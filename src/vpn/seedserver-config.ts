// The vpn-seed-server process's configuration file (JSON, written by whoever deploys it; docs/reversed-vpn.md#health):
// where to listen, the shoot's ranges, the OpenVPN servers to watch and the files of its TLS credentials.
import { readFile } from "node:fs/promises";
import { isIPv4 } from "node:net";
import { readCredentialFiles } from "./credential-files.ts";
import type { ManagedServer, SeedServerOptions } from "./seedserver.ts";
import { parseIpv4Cidr } from "./openvpn-config.ts";

export interface SeedServerConfig {
  listenAddress: string;
  egressPort?: number;
  healthPort?: number;
  transferNetwork: string;
  shootCidrs: string[];
  servers: ManagedServer[];
  /** The vpn-seed-server certificate and key, and the CA bundle client certificates must chain to. */
  certFile: string;
  keyFile: string;
  caFile: string;
}

const MAX_CONFIG_BYTES = 64 * 1024;

export class SeedServerConfigError extends Error {
  override readonly name = "SeedServerConfigError";
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new SeedServerConfigError(message);
}

export function validateSeedServerConfig(c: SeedServerConfig): SeedServerConfig {
  check(typeof c === "object" && c !== null, "the configuration must be an object");
  check(isIPv4(c.listenAddress), "listenAddress must be an IPv4 address");
  for (const p of [c.egressPort, c.healthPort]) check(p === undefined || (Number.isInteger(p) && p >= 0 && p <= 65535), "ports must be 0-65535");
  parseIpv4Cidr(c.transferNetwork);
  check(Array.isArray(c.shootCidrs) && c.shootCidrs.length > 0 && c.shootCidrs.length <= 16, "shootCidrs must list 1-16 CIDRs");
  c.shootCidrs.forEach(parseIpv4Cidr);
  check(Array.isArray(c.servers) && c.servers.length >= 1 && c.servers.length <= 2, "servers must list one or two OpenVPN servers");
  for (const s of c.servers) {
    check(/^vpn-seed-server(-[01])?$/.test(s.name) && isIPv4(s.tunnelAddress) && typeof s.management === "string" && typeof s.clientCn === "string", `invalid server ${JSON.stringify(s).slice(0, 200)}`);
  }
  for (const f of [c.certFile, c.keyFile, c.caFile]) check(typeof f === "string" && f.startsWith("/"), "certFile, keyFile and caFile must be absolute paths");
  return c;
}

export async function loadSeedServerConfig(file: string): Promise<SeedServerConfig> {
  const text = await readFile(file, "utf8");
  check(text.length <= MAX_CONFIG_BYTES, `${file} exceeds ${MAX_CONFIG_BYTES} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new SeedServerConfigError(`${file}: ${(err as Error).message}`);
  }
  return validateSeedServerConfig(parsed as SeedServerConfig);
}

/** The runtime options: the configuration with its credentials read (and the files to read them again from). */
export async function seedServerOptions(c: SeedServerConfig): Promise<SeedServerOptions> {
  const credentialFiles = { cert: c.certFile, key: c.keyFile, ca: c.caFile };
  return {
    servers: c.servers,
    credentials: await readCredentialFiles(credentialFiles),
    credentialFiles,
    shootCidrs: c.shootCidrs,
    transferNetwork: c.transferNetwork,
    listenAddress: c.listenAddress,
    ...(c.egressPort !== undefined ? { egressPort: c.egressPort } : {}),
    ...(c.healthPort !== undefined ? { healthPort: c.healthPort } : {}),
    processMetrics: true,
  };
}
