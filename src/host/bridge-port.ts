// A named network namespace with one veth into a bridge of the host namespace: its address, its default
// route through the bridge's address, loopback up (a pod's network). The same objects and records as
// ensureNetns + ensureVeth + ensureRoute, made by one shell instead of some twenty processes: `ip netns add`,
// one `ip -batch` on the bridge's side and one inside the namespace. That fast way is taken for a namespace
// that does not exist yet; anything in the way (a leftover link) sends it the idempotent way.
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deleteRecords, ownLink, ownNetns, ownedFields, type HostContext, type Owned } from "./context.ts";
import { familyOf, normalizeCidr } from "./cidr.ts";
import { ensureRoute, ensureVeth } from "./links.ts";
import { HostSpecError, validateIfname } from "./names.ts";
import { ensureNetns } from "./netns.ts";
import type { RecordInput } from "./records.ts";

export interface BridgePortSpec extends Owned {
  /** The namespace (made if missing). */
  netns: string;
  /** The link's name inside, e.g. "eth0". */
  ifname: string;
  /** IPv4 address with prefix length. */
  address: string;
  /** The default route's gateway (the bridge's address). */
  gateway: string;
  /** A bridge of the host namespace and the veth end on it (both carry the prefix). */
  bridge: string;
  hostLink: string;
}

function check(ctx: HostContext, spec: BridgePortSpec): void {
  ownNetns(ctx, spec.netns);
  validateIfname(spec.ifname);
  validateIfname(spec.bridge);
  validateIfname(spec.hostLink);
  ownLink(ctx, spec.hostLink, undefined);
  if (!spec.address.includes("/") || familyOf(spec.address) !== 4) throw new HostSpecError(`address ${JSON.stringify(spec.address)} must be IPv4 with a prefix length`);
  normalizeCidr(spec.address);
  if (familyOf(spec.gateway) !== 4 || spec.gateway.includes("/")) throw new HostSpecError(`gateway ${JSON.stringify(spec.gateway)} must be an IPv4 address`);
}

/** Makes the namespace and its port on the bridge; idempotent (an existing namespace is converged). */
export async function ensureBridgePort(ctx: HostContext, spec: BridgePortSpec): Promise<void> {
  check(ctx, spec);
  const owned = ownedFields(spec);
  if (existsSync(`/run/netns/${spec.netns}`) || !(await fast(ctx, spec, owned))) {
    await ensureNetns(ctx, spec.netns, owned);
    await ensureVeth(ctx, { name: spec.ifname, netns: spec.netns, addresses: [spec.address], peer: { name: spec.hostLink, master: spec.bridge }, ...owned });
    await ensureRoute(ctx, { netns: spec.netns, destination: "default", via: spec.gateway, dev: spec.ifname, ...owned });
  }
}

/**
 * Everything in one shell, so the caller starts one process (a fork of a large Node process costs
 * milliseconds of its event loop); the `ip` batches are files. Exit 10: the namespace exists; 11: the
 * bridge's side failed (a leftover link).
 */
const SCRIPT = [
  'ip netns add "$1" || exit 10',
  'ip -batch "$2" || exit 11',
  // Announce the address when the link comes up (gratuitous ARP, as links.ts does): a new pod may reuse an
  // address with a new MAC. The sysctl is the namespace's own, so it is written from inside.
  `exec nsenter --net="/run/netns/$1" sh -c 'echo 1 > "$0" && exec ip -batch "$1"' "/proc/sys/net/ipv4/conf/$4/arp_notify" "$3"`,
].join("\n");

/** The fast way; false when something was in the way (what was made stays, recorded, for the idempotent way). */
async function fast(ctx: HostContext, spec: BridgePortSpec, owned: Owned): Promise<boolean> {
  const records: RecordInput[] = [
    { kind: "netns", name: spec.netns, ...owned },
    { kind: "link", type: "veth", name: spec.ifname, netns: spec.netns, peer: { name: spec.hostLink }, ...owned },
    { kind: "route", destination: "default", netns: spec.netns, via: spec.gateway, dev: spec.ifname, ...owned },
  ];
  const dir = join(ctx.stateDir, "run");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const outside = join(dir, `${spec.hostLink}.outside.ip`);
  const inside = join(dir, `${spec.hostLink}.inside.ip`);
  await Promise.all([
    ...records.map((r) => ctx.records.put(r, "creating")),
    writeFile(outside, [
      `link add name ${spec.hostLink} type veth peer name ${spec.ifname} netns ${spec.netns}`,
      `link set dev ${spec.hostLink} master ${spec.bridge}`,
      `link set dev ${spec.hostLink} up`,
      "",
    ].join("\n")),
    writeFile(inside, [
      "link set dev lo up",
      `addr replace ${spec.address} dev ${spec.ifname}`,
      `link set dev ${spec.ifname} up`,
      `route replace default via ${spec.gateway} dev ${spec.ifname}`,
      "",
    ].join("\n")),
  ]);
  try {
    const r = await ctx.exec.run("sh", ["-c", SCRIPT, "sh", spec.netns, outside, inside, spec.ifname], { okExitCodes: [0, 10, 11] });
    if (r.exitCode !== 0) return false;
  } finally {
    await Promise.all([rm(outside, { force: true }), rm(inside, { force: true })]);
  }
  await Promise.all(records.map((r) => ctx.records.put(r, "created")));
  return true;
}

/**
 * Kills what still runs in the namespace (a pod's containers are stopped before; this is the safety net),
 * deletes the veth from the bridge's side (its other end goes with it, at once, rather than whenever the
 * kernel frees the namespace) and the namespace. One shell; exit 1 when the namespace is still there.
 */
const TEARDOWN = [
  'pids=$(ip netns pids "$1" 2>/dev/null) || true',
  '[ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true',
  'ip link del dev "$2" 2>/dev/null || true',
  '[ ! -e "/run/netns/$1" ] || ip netns del "$1"',
].join("\n");

/** Removes what ensureBridgePort made, and its records (read by id: only the namespace's own). */
export async function deleteBridgePort(ctx: HostContext, spec: Pick<BridgePortSpec, "netns" | "hostLink">): Promise<void> {
  ownNetns(ctx, spec.netns);
  validateIfname(spec.hostLink);
  ownLink(ctx, spec.hostLink, undefined);
  await ctx.exec.run("sh", ["-c", TEARDOWN, "sh", spec.netns, spec.hostLink]);
  const own = (id: string): boolean => id === `netns/${spec.netns}` || ["link", "route", "nftTable"].some((k) => id.startsWith(`${k}/${spec.netns}/`));
  await deleteRecords(ctx, () => true, own);
}
