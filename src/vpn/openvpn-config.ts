// OpenVPN configuration of the reversed VPN (docs/reversed-vpn.md#openvpn): the vpn-seed-server's server
// config, its client-config-dir file and routing hooks, the vpn-shoot-client's client config and the
// tls-auth key. Pure: the tests pin the text.
import { randomBytes } from "node:crypto";
import { isIPv4 } from "node:net";

export const OPENVPN_PORT = 1194;
export const CONNECT_PROXY_PORT = 8132;
export const DEFAULT_TRANSFER_NETWORK = "192.168.123.0/24";
/** The client certificate's CN in plain mode, and the file name in the client-config-dir. */
export const SHOOT_CLIENT_CN = "vpn-shoot-client";
export const SEED_SERVER_CN = "vpn-seed-server";

/** `base`, or `base-<index>` for one of the HA pair (a server's, a client's and a tunnel's name). */
export function haName(base: string, index: number | undefined): string {
  return index === undefined ? base : `${base}-${index}`;
}
/** OpenVPN refuses option lines longer than this. */
export const MAX_LINE = 256;
/** The routing table (and rule priority, minus 900) of server i. */
export const ROUTE_TABLE_BASE = 100;

export class OpenVpnConfigError extends Error {
  override readonly name = "OpenVpnConfigError";
}

export interface Ipv4Cidr {
  network: string;
  prefix: number;
}

function toInt(ip: string): number {
  return ip.split(".").reduce((n, o) => n * 256 + Number(o), 0);
}

function toIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");
}

/** Parses an IPv4 CIDR and normalises it to its network address. */
export function parseIpv4Cidr(cidr: string): Ipv4Cidr {
  const [ip, len] = cidr.split("/");
  const prefix = Number(len);
  if (ip === undefined || !isIPv4(ip) || !Number.isInteger(prefix) || prefix < 0 || prefix > 32 || len === "") {
    throw new OpenVpnConfigError(`${JSON.stringify(cidr)} is not an IPv4 CIDR`);
  }
  const size = 2 ** (32 - prefix);
  return { network: toIp(Math.floor(toInt(ip) / size) * size), prefix };
}

export function dottedMask(prefix: number): string {
  return toIp(2 ** 32 - 2 ** (32 - prefix));
}

export const cidrText = (c: Ipv4Cidr): string => `${c.network}/${c.prefix}`;

/** The shoot's ranges, normalised, de-duplicated and sorted (by address, then prefix). */
export function shootRanges(cidrs: readonly string[]): Ipv4Cidr[] {
  const seen = new Map<string, Ipv4Cidr>();
  for (const c of cidrs.map(parseIpv4Cidr)) seen.set(cidrText(c), c);
  return [...seen.values()].sort((a, b) => toInt(a.network) - toInt(b.network) || a.prefix - b.prefix);
}

/** Server i's tunnel subnet and address: plain = the whole /24 (.1); HA i = the i-th /26 (.1, .65). */
export function serverSubnet(transferNetwork: string, index: number | undefined): { network: string; mask: string; address: string } {
  const t = parseIpv4Cidr(transferNetwork);
  if (t.prefix !== 24) throw new OpenVpnConfigError(`transfer network ${transferNetwork} must have prefix length 24`);
  const prefix = index === undefined ? 24 : 26;
  const base = toInt(t.network) + (index ?? 0) * 64;
  return { network: toIp(base), mask: dottedMask(prefix), address: toIp(base + 1) };
}

/** max-routes-per-client: the address count of the shoot's ranges, clamped to [256, 1048576]. */
export function maxRoutes(ranges: readonly Ipv4Cidr[]): number {
  const sum = ranges.reduce((n, r) => n + 2 ** (32 - r.prefix), 0);
  return Math.min(1_048_576, Math.max(256, sum));
}

function lines(list: readonly string[]): string {
  for (const l of list) {
    if (l.length > MAX_LINE) throw new OpenVpnConfigError(`OpenVPN option line longer than ${MAX_LINE} characters: ${l.slice(0, 80)}...`);
    if (/[\n\r]/.test(l)) throw new OpenVpnConfigError("OpenVPN option line with a line break");
  }
  return list.join("\n") + "\n";
}

/** Paths must not need quoting (OpenVPN splits option lines on white space). */
function path(p: string): string {
  if (!/^\/[A-Za-z0-9_./+-]+$/.test(p)) throw new OpenVpnConfigError(`path ${JSON.stringify(p)} must be absolute, without spaces or quotes`);
  return p;
}

export interface ServerFiles {
  ca: string;
  cert: string;
  key: string;
  tlsAuth: string;
  ccdDir: string;
  management: string;
  upHook: string;
  downHook: string;
}

export interface ServerConfigOptions {
  /** The VPN namespace's address on the seed network (OpenVPN listens there). */
  local: string;
  transferNetwork: string;
  /** HA server index; undefined in plain mode. */
  index?: number;
  shootCidrs: readonly string[];
  files: ServerFiles;
}

export function serverDevice(index: number | undefined): string {
  return `tun${index ?? 0}`;
}

export function renderServerConfig(o: ServerConfigOptions): string {
  if (!isIPv4(o.local)) throw new OpenVpnConfigError(`local address ${JSON.stringify(o.local)} is not IPv4`);
  const sub = serverSubnet(o.transferNetwork, o.index);
  const f = o.files;
  return lines([
    "mode server",
    "tls-server",
    "proto tcp4-server",
    `port ${OPENVPN_PORT}`,
    `local ${o.local}`,
    `dev ${serverDevice(o.index)}`,
    "topology subnet",
    `server ${sub.network} ${sub.mask}`,
    "keepalive 10 30",
    "txqueuelen 1000",
    "tcp-nodelay",
    "verb 3",
    "data-ciphers AES-256-GCM",
    "auth SHA256",
    "dh none",
    `ca ${path(f.ca)}`,
    `cert ${path(f.cert)}`,
    `key ${path(f.key)}`,
    `tls-auth ${path(f.tlsAuth)} 0`,
    "remote-cert-tls client",
    `client-config-dir ${path(f.ccdDir)}`,
    "ccd-exclusive",
    `max-routes-per-client ${maxRoutes(shootRanges(o.shootCidrs))}`,
    "script-security 2",
    `up ${path(f.upHook)}`,
    `down ${path(f.downHook)}`,
    `management ${path(f.management)} unix`,
  ]);
}

/** The client-config-dir file of the expected client: one iroute per shoot range. */
export function renderCcd(shootCidrs: readonly string[]): string {
  return lines(shootRanges(shootCidrs).map((r) => `iroute ${r.network} ${dottedMask(r.prefix)}`));
}

/**
 * The `up` and `down` hooks (shell scripts OpenVPN runs with the device as $1): the shoot's ranges go into
 * the server's own table, reached only by sockets bound to the server's tunnel address.
 */
export function renderHooks(o: { transferNetwork: string; index?: number; shootCidrs: readonly string[] }): { up: string; down: string } {
  const i = o.index ?? 0;
  const table = ROUTE_TABLE_BASE + i;
  const from = serverSubnet(o.transferNetwork, o.index).address;
  const rule = `from ${from} lookup ${table} priority ${1000 + i}`;
  const up = [
    "#!/bin/sh",
    "# OpenVPN up hook: the shoot's ranges through the tunnel, for sockets bound to the tunnel address only.",
    "set -e",
    'dev="$1"',
    ...shootRanges(o.shootCidrs).map((r) => `ip route replace ${cidrText(r)} dev "$dev" table ${table}`),
    `ip rule del ${rule} 2>/dev/null || true`,
    `ip rule add ${rule}`,
  ];
  const down = ["#!/bin/sh", "# OpenVPN down hook.", `ip rule del ${rule} 2>/dev/null || true`, `ip route flush table ${table} 2>/dev/null || true`];
  return { up: up.join("\n") + "\n", down: down.join("\n") + "\n" };
}

export interface ClientFiles {
  ca: string;
  cert: string;
  key: string;
  tlsAuth: string;
  management: string;
}

export interface ClientConfigOptions {
  /** The host named in the CONNECT request line (ignored by the proxy). */
  endpoint: string;
  proxyHost: string;
  proxyPort?: number;
  /** The control-plane namespace (`shoot--<project>--<name>`). */
  namespace: string;
  index?: number;
  files: ClientFiles;
}

export function reversedVpnHeader(namespace: string, index?: number): string {
  const server = haName(SEED_SERVER_CN, index);
  return `outbound|${OPENVPN_PORT}||${server}.${namespace}.svc.cluster.local`;
}

const HOST = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;

export function renderClientConfig(o: ClientConfigOptions): string {
  for (const h of [o.endpoint, o.proxyHost]) if (!HOST.test(h)) throw new OpenVpnConfigError(`host ${JSON.stringify(h)} is not a host name or address`);
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(o.namespace)) throw new OpenVpnConfigError(`namespace ${JSON.stringify(o.namespace)} is not a DNS label`);
  const f = o.files;
  return lines([
    "tls-client",
    "pull",
    "proto tcp4-client",
    `dev ${serverDevice(o.index)}`,
    `remote ${o.endpoint} ${OPENVPN_PORT}`,
    "resolv-retry infinite",
    `http-proxy ${o.proxyHost} ${o.proxyPort ?? CONNECT_PROXY_PORT}`,
    `http-proxy-option CUSTOM-HEADER Reversed-VPN ${reversedVpnHeader(o.namespace, o.index)}`,
    "connect-retry 1 2",
    "data-ciphers AES-256-GCM",
    "auth SHA256",
    `tls-auth ${path(f.tlsAuth)} 1`,
    `ca ${path(f.ca)}`,
    `cert ${path(f.cert)}`,
    `key ${path(f.key)}`,
    "remote-cert-tls server",
    `verify-x509-name ${SEED_SERVER_CN} name`,
    'pull-filter ignore "route"',
    'pull-filter ignore "redirect-gateway"',
    'pull-filter ignore "dhcp-option"',
    "auth-nocache",
    "txqueuelen 1000",
    "socket-flags TCP_NODELAY",
    "verb 3",
    `management ${path(f.management)} unix`,
  ]);
}

/** A tls-auth key in `openvpn --genkey secret` format: 256 random bytes as 16 lines of 32 hex digits. */
export function generateTlsAuthKey(random: (n: number) => Buffer = randomBytes): string {
  const hex = random(256).toString("hex");
  const body = Array.from({ length: 16 }, (_, i) => hex.slice(i * 32, i * 32 + 32));
  return ["-----BEGIN OpenVPN Static key V1-----", ...body, "-----END OpenVPN Static key V1-----", ""].join("\n");
}
