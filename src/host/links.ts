// Bridges, veth pairs, addresses and routes. Every operation is idempotent: it checks what exists and only
// adds what is missing (addresses with `ip addr replace`, routes with `ip route replace`).
import { deleteRecords, ipNs, ownLink, ownNetns, ownedFields, recorded, type HostContext, type Owned } from "./context.ts";
import { familyOf, normalizeCidr } from "./cidr.ts";
import { HostSpecError, validateIfname } from "./names.ts";
import type { Exec } from "./exec.ts";
import { ensureGuard } from "./guard.ts";
import { recordId } from "./records.ts";

export interface LinkEnd {
  name: string;
  /** Named network namespace; omitted = the host's. */
  netns?: string;
  /** Addresses with prefix length, e.g. "10.250.0.1/16". */
  addresses?: readonly string[];
  /** A bridge (in the same namespace) to enslave this end to. */
  master?: string;
  /** The link's MAC address (default: the kernel's random one). */
  mac?: string;
}

export interface BridgeSpec extends Owned {
  name: string;
  netns?: string;
  addresses?: readonly string[];
}

export interface VethSpec extends Owned, LinkEnd {
  peer: LinkEnd;
}

export interface RouteSpec extends Owned {
  netns?: string;
  /** "default" or a CIDR. */
  destination: string;
  via?: string;
  dev?: string;
}

export async function linkExists(exec: Exec, name: string, netns?: string): Promise<boolean> {
  const r = await exec.run("ip", [...ipNs(netns), "-o", "link", "show", "dev", name], { okExitCodes: [0, 1, 255] });
  return r.exitCode === 0 && r.stdout.trim() !== "";
}

async function configure(exec: Exec, end: LinkEnd): Promise<void> {
  const ns = ipNs(end.netns);
  for (const a of end.addresses ?? []) {
    // IPv6 addresses skip duplicate address detection, so a daemon can bind them at once.
    const nodad = familyOf(a) === 6 ? ["nodad"] : [];
    await exec.run("ip", [...ns, "addr", "replace", a, "dev", end.name, ...nodad]);
  }
  if (end.master !== undefined) await exec.run("ip", [...ns, "link", "set", "dev", end.name, "master", validateIfname(end.master)]);
  if ((end.addresses ?? []).some((a) => familyOf(a) === 4)) {
    // Announce the address when the link comes up (gratuitous ARP): addresses are reused by new
    // machines with new MACs, and neighbours must not keep sending to the old one. This one can be
    // lost (a bridge port starts forwarding only once it has seen the carrier), so machines announce
    // again when they boot (machine-files.ts, init).
    const sysctl = ["sysctl", "-qw", `net.ipv4.conf.${end.name}.arp_notify=1`];
    await exec.run(end.netns ? "ip" : sysctl[0]!, end.netns ? ["netns", "exec", end.netns, ...sysctl] : sysctl.slice(1));
  }
  await exec.run("ip", [...ns, "link", "set", "dev", end.name, "up"]);
}

function checkAddresses(addresses: readonly string[] | undefined): void {
  for (const a of addresses ?? []) {
    if (!a.includes("/")) throw new HostSpecError(`address ${JSON.stringify(a)} needs a prefix length`);
    normalizeCidr(a);
  }
}

export async function ensureBridge(ctx: HostContext, spec: BridgeSpec): Promise<void> {
  validateIfname(spec.name);
  ownLink(ctx, spec.name, spec.netns);
  checkAddresses(spec.addresses);
  const input = { kind: "link" as const, type: "bridge" as const, name: spec.name, ...(spec.netns ? { netns: spec.netns } : {}), ...ownedFields(spec) };
  await recorded(ctx, input, async () => {
    if (!(await linkExists(ctx.exec, spec.name, spec.netns))) {
      await ctx.exec.run("ip", [...ipNs(spec.netns), "link", "add", "name", spec.name, "type", "bridge"]);
    }
    await configure(ctx.exec, { name: spec.name, ...(spec.netns ? { netns: spec.netns } : {}), addresses: spec.addresses ?? [] });
  });
  // Machines' ports on the bridge send only as themselves (guard.ts).
  await ensureGuard(ctx, spec.netns, spec.name);
}

/** Creates both ends directly in their namespaces (one `ip link add`), then addresses, masters, up. */
export async function ensureVeth(ctx: HostContext, spec: VethSpec): Promise<void> {
  for (const end of [spec, spec.peer]) {
    validateIfname(end.name);
    ownLink(ctx, end.name, end.netns);
    checkAddresses(end.addresses);
  }
  const peer = { name: spec.peer.name, ...(spec.peer.netns ? { netns: spec.peer.netns } : {}) };
  const input = { kind: "link" as const, type: "veth" as const, name: spec.name, ...(spec.netns ? { netns: spec.netns } : {}), peer, ...ownedFields(spec) };
  await recorded(ctx, input, async () => {
    if (!(await linkExists(ctx.exec, spec.name, spec.netns))) {
      // A lone peer name is a leftover of ours (it carries the prefix or sits in our namespace): replace it.
      if (await linkExists(ctx.exec, spec.peer.name, spec.peer.netns)) {
        await ctx.exec.run("ip", [...ipNs(spec.peer.netns), "link", "del", "dev", spec.peer.name]);
      }
      const nsArg = (ns: string | undefined) => (ns === undefined ? [] : ["netns", ns]);
      const macArg = (mac: string | undefined) => (mac === undefined ? [] : ["address", mac]);
      await ctx.exec.run("ip", [
        "link", "add", "name", spec.name, ...nsArg(spec.netns), ...macArg(spec.mac), "type", "veth", "peer", "name", spec.peer.name, ...nsArg(spec.peer.netns), ...macArg(spec.peer.mac),
      ]);
    }
    // The peer (usually the bridge side) first: a link announces its addresses when it comes up,
    // which only reaches the neighbours once the other end is up.
    await configure(ctx.exec, spec.peer);
    await configure(ctx.exec, spec);
  });
}

/**
 * Deletes a link (a veth takes its peer along); absent is fine. `forget` false leaves its record to the
 * caller (a machine deletes its parts' records at once).
 */
export async function deleteLink(ctx: HostContext, name: string, netns?: string, forget = true): Promise<void> {
  ownLink(ctx, name, netns);
  // "Cannot find device" (exit 1): absent already.
  await ctx.exec.run("ip", [...ipNs(netns), "link", "del", "dev", name], { okExitCodes: [0, 1] });
  if (!forget) return;
  await deleteRecords(
    ctx,
    (r) =>
      r.kind === "link" &&
      ((r.name === name && r.netns === netns) || (r.peer !== undefined && r.peer.name === name && r.peer.netns === netns)),
  );
}

function routeArgs(spec: RouteSpec): string[] {
  const dest = spec.destination === "default" ? "default" : normalizeCidr(spec.destination);
  const args = [dest];
  if (spec.via !== undefined) args.push("via", spec.via);
  if (spec.dev !== undefined) args.push("dev", validateIfname(spec.dev));
  if (spec.via === undefined && spec.dev === undefined) throw new HostSpecError("a route needs via or dev");
  return args;
}

function routeFamily(spec: RouteSpec): string[] {
  const probe = spec.destination === "default" ? spec.via : spec.destination;
  return probe !== undefined && familyOf(probe) === 6 ? ["-6"] : [];
}

export async function ensureRoute(ctx: HostContext, spec: RouteSpec): Promise<void> {
  ownNetns(ctx, spec.netns);
  if (spec.netns === undefined && (spec.dev === undefined || !ctx.names.owns(spec.dev))) {
    throw new HostSpecError(`a route in the host namespace must name one of our links as dev (prefix ${ctx.names.prefix})`);
  }
  const args = routeArgs(spec);
  const input = {
    kind: "route" as const,
    destination: spec.destination,
    ...(spec.netns ? { netns: spec.netns } : {}),
    ...(spec.via ? { via: spec.via } : {}),
    ...(spec.dev ? { dev: spec.dev } : {}),
    ...ownedFields(spec),
  };
  await recorded(ctx, input, async () => {
    await ctx.exec.run("ip", [...routeFamily(spec), ...ipNs(spec.netns), "route", "replace", ...args]);
  });
}

export async function deleteRoute(ctx: HostContext, spec: RouteSpec): Promise<void> {
  const args = routeArgs(spec);
  // exit code 2 with "No such process": the route is gone already.
  await ctx.exec.run("ip", [...routeFamily(spec), ...ipNs(spec.netns), "route", "del", ...args], { okExitCodes: [0, 2] });
  await ctx.records.delete(recordId({ kind: "route", ...(spec.netns ? { netns: spec.netns } : {}), destination: spec.destination }));
}
