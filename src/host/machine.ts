// Machines (docs/machines.md): a user namespace whose root is an unprivileged range of host ids, owning the
// machine's network, mount, PID, UTS, IPC and cgroup namespaces, over a root file system made from the
// machine image (image.ts) and read-only idmapped binds of the host's system directories. The supervisor is
// `nsutil userns-exec <base> <count> -- unshare --fork --kill-child --pid --mount --net ...`; its child is
// the machine's PID 1, which the kernel kills when the supervisor dies (kill-child), and with PID 1 every
// process of the machine. The host names the machine's network namespace (`ip netns attach`), wires it while
// stage 1 completes the root, then lets the machine boot: user-data, then its own sshd (fresh host keys of
// its own, never the host's).
import { existsSync } from "node:fs";
import { chown, mkdir, rm } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { deleteRecords, ownedFields, type HostContext, type Owned } from "./context.ts";
import { addressOf, familyOf, normalizeCidr } from "./cidr.ts";
import { deleteLink } from "./links.ts";
import { type MachineNetwork, wireMachine } from "./machine-net.ts";
import { DEFAULT_HOST_KEY_TYPES, hostKeyFile, type HostKeyType, type SshdOptionValue } from "./machine-files.ts";
import { ensureHostKeys, releaseStage1, settled, waitUnshared, writeControlFiles } from "./machine-boot.ts";
import { handOver, incompleteClaim, machinePartIds } from "./machine-handover.ts";
import { getMachineRecord, statusOf, supervisorExits, waitMachineHeld, waitMachineReady, type MachineInfo } from "./machine-status.ts";
import { macFor, routedOf, unguardPort } from "./guard.ts";
import { ensureImage, systemBinds } from "./image.ts";
import { bindIdmapped, bindReadOnly, isBelow, mountOverlay, unmount } from "./mounts.ts";
import { HostSpecError, validateIfname, validateLogicalName } from "./names.ts";
import { nsutil } from "./native.ts";
import { attachNetns, deleteNetns, killProcesses } from "./netns.ts";
import type { NftTable } from "./nft-render.ts";
import { childrenOf, isAlive, ref, supervisorsOf, type ProcessRef } from "./procs.ts";
import type { MachineRecord } from "./records.ts";

/** Declared beside the code that wires it (machine-net.ts). */
export type { MachineNetwork };
export { machinePartIds };

export interface SshdSpec {
  port?: number;
  /** Addresses sshd listens on (default: every network address of the machine). */
  listenAddresses?: readonly string[];
  /** Where the host keys live (default <machineDir>/host-keys); missing keys are generated there. */
  hostKeysDir?: string;
  hostKeyTypes?: readonly HostKeyType[];
  /** sshd_config keywords on top of the defaults (public key only, no root login, PAM). */
  options?: Readonly<Record<string, SshdOptionValue>>;
}

export interface MachineSpec extends Owned {
  name: string;
  /** Default: the name (must then be at most 64 characters). */
  hostname?: string;
  networks: readonly MachineNetwork[];
  /** Run as root at boot, like cloud-init (a script with "#!" runs as such, otherwise with /bin/sh). */
  userData?: string;
  sshd?: SshdSpec;
  /** nftables tables applied in the machine's namespace before it boots. */
  nftTables?: readonly NftTable[];
  /** Wait for readiness before returning (default true). */
  wait?: boolean;
  readyTimeoutMs?: number;
  /**
   * Absolute host directories or files visible read-only at the same path inside the machine, with
   * their host owners (e.g. the code of a node agent): the machine sees nothing else of the host's
   * files beyond its image. Not below /proc, /sys, /dev or /run, which the machine mounts itself, and
   * never a directory that holds the state directory.
   */
  readOnlyBinds?: readonly string[];
  /**
   * A pool machine (docs/adr/0015-bastion-machine-pool.md): booted without networks up to its user-data,
   * then held until `claimMachine` gives it a name, networks, tables and user-data. Its processes run at a
   * lower priority until then. With `wait`, returns once it is held.
   */
  hold?: boolean;
  /** Run as root by a held machine's init before it reports `held` (e.g. creating a user the claim will find). */
  prepare?: string;
}

export function machinePaths(ctx: Pick<HostContext, "stateDir">, name: string) {
  const dir = join(ctx.stateDir, "machines", name);
  return { dir, ctl: join(dir, "ctl"), root: join(dir, "root"), upper: join(dir, "upper"), work: join(dir, "work"), console: join(dir, "console.log") };
}

/** The record a machine spec will have: validated names, interfaces, sshd listen addresses, paths. */
export function planMachine(ctx: Pick<HostContext, "names" | "stateDir">, spec: MachineSpec): MachineRecord {
  const name = validateLogicalName("machine name", spec.name);
  const hostname = spec.hostname ?? name;
  if (hostname.length > 64 || !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(hostname)) throw new HostSpecError(`invalid hostname ${hostname}`);
  const paths = machinePaths(ctx, name);
  const inner = new Set<string>();
  const interfaces = spec.networks.map((n, i) => {
    const ifname = validateIfname(n.interface ?? `eth${i}`);
    if (inner.has(ifname)) throw new HostSpecError(`machine ${name}: interface ${ifname} twice`);
    inner.add(ifname);
    if (!n.address.includes("/")) throw new HostSpecError(`machine ${name}: address ${n.address} needs a prefix length`);
    familyOf(n.address);
    const routed = (n.routed ?? []).map((r) => {
      if (familyOf(r) !== familyOf(n.address)) throw new HostSpecError(`machine ${name}: routed range ${r} is not of its address's family`);
      return normalizeCidr(r);
    });
    return {
      name: ifname, address: n.address, hostLink: ctx.names.machineLink(name, i), bridge: validateIfname(n.bridge),
      ...(n.bridgeNetns ? { bridgeNetns: n.bridgeNetns } : {}), ...(routed.length > 0 ? { routed } : {}),
    };
  });
  if (spec.hold && spec.networks.length > 0) throw new HostSpecError(`machine ${name}: a held machine gets its networks when it is claimed`);
  const sshd = spec.sshd ?? {};
  const types = sshd.hostKeyTypes ?? DEFAULT_HOST_KEY_TYPES;
  return {
    kind: "machine",
    name,
    hostname,
    netns: ctx.names.machineNetns(name),
    dir: paths.dir,
    hostKeysDir: resolve(sshd.hostKeysDir ?? join(paths.dir, "host-keys")),
    interfaces,
    readOnlyBinds: (spec.readOnlyBinds ?? []).map((b) => {
      if (!isAbsolute(b) || b.includes("\n")) throw new HostSpecError(`machine ${name}: bind ${JSON.stringify(b)} must be an absolute path`);
      const dir = resolve(b);
      if (dir === "/" || /^\/(proc|sys|dev|run)(\/|$)/.test(dir)) throw new HostSpecError(`machine ${name}: cannot bind ${dir} into a machine`);
      if (isBelow(dir, ctx.stateDir)) throw new HostSpecError(`machine ${name}: binding ${dir} would show the machine the state directory ${ctx.stateDir}`);
      return dir;
    }),
    sshd: {
      port: sshd.port ?? 22,
      listenAddresses: [...(sshd.listenAddresses ?? interfaces.map((i) => addressOf(i.address)))],
      hostKeyFiles: types.map(hostKeyFile),
    },
    ...ownedFields(spec),
    ...(spec.hold ? { hold: true } : {}),
    state: "creating",
    createdAt: new Date().toISOString(),
  };
}

/**
 * Starts the machine unless it already runs (then only waits for it, if asked): a running machine is never
 * rebuilt; stop it first to change it. Leftovers of a dead one are removed first.
 */
export async function startMachine(ctx: HostContext, spec: MachineSpec): Promise<MachineInfo> {
  const planned = planMachine(ctx, spec);
  const id = `machine/${planned.name}`;
  const existing = await getMachineRecord(ctx, planned.name);
  if (existing?.supervisor && isAlive(existing.supervisor) && !incompleteClaim(existing)) {
    if (spec.wait === false) return statusOf(existing);
    return existing.hold ? waitMachineHeld(ctx, planned.name, spec.readyTimeoutMs) : waitMachineReady(ctx, planned.name, spec.readyTimeoutMs);
  }
  if (existing || existsSync(planned.dir)) await stopMachine(ctx, planned.name);
  const { state: _s, createdAt: _c, ...input } = planned;
  await ctx.records.put(input, "creating");
  const paths = machinePaths(ctx, planned.name);
  await mkdir(paths.dir, { recursive: true, mode: 0o755 });
  const child = { parent: id };
  const image = await ensureImage(ctx);
  // The control files (with the host keys) and the root (overlay, then its binds) are independent: made at once.
  await settled([
    (async () => {
      await ensureHostKeys(ctx, planned.hostKeysDir, spec.sshd?.hostKeyTypes ?? DEFAULT_HOST_KEY_TYPES);
      const input = { ...(spec.userData !== undefined ? { userData: spec.userData } : {}), ...(spec.sshd?.options ? { sshdOptions: spec.sshd.options } : {}) };
      await writeControlFiles(ctx, planned, { ...input, ...(spec.hold ? { hold: true } : {}), ...(spec.prepare !== undefined ? { prepare: spec.prepare } : {}) }, paths.ctl);
    })(),
    (async () => {
      await mkdir(paths.upper, { recursive: true, mode: 0o755 });
      await chown(paths.upper, ctx.ids.base, ctx.ids.base);
      await mountOverlay(ctx, { target: paths.root, lower: image, upper: paths.upper, work: paths.work, ...child });
      // Distinct mount points below the root: made at once.
      await Promise.all((await systemBinds()).map((d) => bindIdmapped(ctx, { source: `/${d}`, target: join(paths.root, d), ...child })));
      for (const b of planned.readOnlyBinds ?? []) await bindReadOnly(ctx, { source: b, target: join(paths.root, b), ...child });
    })(),
  ]);
  const namespaces = ["--fork", "--kill-child", "--pid", "--mount", "--uts", "--ipc", "--net", "--cgroup", "--propagation", "private"];
  // A held machine boots at a lower priority (nice 10): it must not slow a claim; the claim raises it.
  const nice = spec.hold ? ["-n", "10", await nsutil(ctx.exec)] : [];
  const supervisor = await ctx.exec.spawnDetached(
    spec.hold ? "nice" : await nsutil(ctx.exec),
    [...nice, "userns-exec", String(ctx.ids.base), String(ctx.ids.count), "--", "unshare", ...namespaces, "--", "/bin/bash", "ctl/stage1", join(paths.ctl, "stage1"), planned.hostname],
    { logFile: paths.console, cwd: paths.dir },
  );
  const sup: ProcessRef = { pid: supervisor.pid, startTime: supervisor.startTime };
  if (supervisor.exited) supervisorExits.set(`${sup.pid}:${sup.startTime}`, supervisor.exited);
  const rec = (await ctx.records.put({ ...input, supervisor: sup }, "created")) as MachineRecord;
  await waitUnshared(sup.pid, 10_000);
  await attachNetns(ctx, planned.netns, sup.pid, child);
  await wireMachine(ctx, rec, spec.networks, spec.nftTables ?? [], child);
  await releaseStage1(paths.ctl, sup, 10_000);
  if (spec.wait === false) return statusOf(rec);
  return spec.hold ? waitMachineHeld(ctx, planned.name, spec.readyTimeoutMs) : waitMachineReady(ctx, planned.name, spec.readyTimeoutMs);
}

/**
 * Kills every process of the machine (its PID namespace dies with PID 1), unmounts its root, deletes its
 * links and namespace, removes its directory (host keys outside it are kept) and its records. Idempotent;
 * also cleans up a machine whose record was lost, by name.
 */
export async function stopMachine(ctx: HostContext, name: string): Promise<void> {
  validateLogicalName("machine name", name);
  const rec = await getMachineRecord(ctx, name);
  // A held machine claimed by another name is that machine's now: only its record goes.
  if (rec && (await handOver(ctx, rec))) return;
  // A claimed machine keeps the directory (and namespace) of the held machine it was.
  const paths = rec ? { dir: rec.dir } : machinePaths(ctx, name);
  const id = `machine/${name}`;
  const refs: ProcessRef[] = [];
  if (rec?.supervisor && isAlive(rec.supervisor)) {
    refs.push(rec.supervisor);
    for (const c of childrenOf(rec.supervisor.pid)) {
      const r = ref(c);
      if (r) refs.push(r);
    }
  }
  if (rec?.init) refs.push(rec.init);
  // Also a supervisor no record names (its starter was killed before recording it).
  for (const s of supervisorsOf(join(ctx.stateDir, "machines"), [paths.dir])) if (!refs.some((r) => r.pid === s.pid)) refs.push(s);
  await killProcesses(ctx.exec, refs);
  if (rec?.supervisor) supervisorExits.delete(`${rec.supervisor.pid}:${rec.supervisor.startTime}`);
  await unmount(ctx, paths.dir);
  for (const i of rec?.interfaces ?? []) {
    await unguardPort(ctx, i.bridgeNetns, { bridge: i.bridge, port: i.hostLink, mac: macFor(i.hostLink), addresses: [i.address], ...routedOf(i) });
    // Its record (the veth, recorded from the machine's end) goes with the machine's below.
    await deleteLink(ctx, i.hostLink, i.bridgeNetns, false);
  }
  const netns = rec?.netns ?? ctx.names.machineNetns(name);
  await deleteNetns(ctx, netns, true);
  // Host keys in a caller's directory outside the machine directory survive; the default ones do not.
  await rm(paths.dir, { recursive: true, force: true });
  await deleteRecords(ctx, (r) => r.parent === id || (r.kind === "machine" && r.name === name), machinePartIds(id, netns, paths.dir));
}
