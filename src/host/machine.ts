// Machines (docs/machines.md): a user namespace whose root is an unprivileged range of host ids, owning the
// machine's network, mount, PID, UTS, IPC and cgroup namespaces, over a root file system made from the
// machine image (image.ts) and read-only idmapped binds of the host's system directories. The supervisor is
// `nsutil userns-exec <base> <count> -- unshare --fork --kill-child --pid --mount --net ...`; its child is
// the machine's PID 1, which the kernel kills when the supervisor dies (kill-child), and with PID 1 every
// process of the machine. The host names the machine's network namespace (`ip netns attach`), wires it while
// stage 1 completes the root, then lets the machine boot: user-data, then its own sshd (fresh host keys of
// its own, never the host's).
import { constants as fsConstants, existsSync } from "node:fs";
import { chmod, chown, copyFile, mkdir, open, readdir, readlink, rm, writeFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { deleteRecords, ownedFields, type HostContext, type Owned } from "./context.ts";
import { addressOf, familyOf, normalizeCidr } from "./cidr.ts";
import { deleteLink } from "./links.ts";
import { type MachineNetwork, wireMachine } from "./machine-net.ts";
import { DEFAULT_HOST_KEY_TYPES, INIT, STAGE1, SYSTEMCTL, hostKeyFile, renderSshdConfig, type HostKeyType, type SshdOptionValue } from "./machine-files.ts";
import { getMachineRecord, statusOf, supervisorExits, waitMachineReady, type MachineInfo } from "./machine-status.ts";
import { macFor, routedOf, unguardPort } from "./guard.ts";
import { generateHostKey } from "./host-keys.ts";
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
}

function machinePaths(ctx: Pick<HostContext, "stateDir">, name: string) {
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
    state: "creating",
    createdAt: new Date().toISOString(),
  };
}

/**
 * The machine's host keys, kept on the host; each boot copies them into the control directory for its root.
 * Ed25519 and ECDSA keys are made in this process (host-keys.ts), RSA keys by ssh-keygen.
 */
async function ensureHostKeys(ctx: HostContext, dir: string, types: readonly HostKeyType[]): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await Promise.all(
    types.map(async (t) => {
      const file = join(dir, hostKeyFile(t));
      if (existsSync(file) && existsSync(`${file}.pub`)) return;
      await rm(file, { force: true });
      await rm(`${file}.pub`, { force: true });
      if (t === "rsa") {
        await ctx.exec.run("ssh-keygen", ["-q", "-t", t, "-N", "", "-C", "", "-f", file]);
        return;
      }
      const key = generateHostKey(t);
      // The public half last: a key pair counts as present once both files exist.
      await writeFile(file, key.privateKey, { mode: 0o600 });
      await writeFile(`${file}.pub`, `${key.publicKey}\n`, { mode: 0o644 });
    }),
  );
}

async function chownTree(path: string, id: number): Promise<void> {
  await chown(path, id, id);
  for (const e of await readdir(path, { withFileTypes: true }).catch(() => [])) {
    if (e.isDirectory()) await chownTree(join(path, e.name), id);
    else await chown(join(path, e.name), id, id);
  }
}

async function writeControlFiles(ctx: HostContext, rec: MachineRecord, spec: MachineSpec, ctl: string): Promise<void> {
  await rm(ctl, { recursive: true, force: true });
  await mkdir(join(ctl, "bin"), { recursive: true });
  await mkdir(join(ctl, "host-keys"), { mode: 0o700 });
  for (const f of rec.sshd.hostKeyFiles) {
    for (const file of [f, `${f}.pub`]) await copyFile(join(rec.hostKeysDir, file), join(ctl, "host-keys", file));
  }
  await writeFile(join(ctl, "stage1"), STAGE1, { mode: 0o755 });
  await writeFile(join(ctl, "init"), INIT, { mode: 0o755 });
  await writeFile(join(ctl, "bin", "systemctl"), SYSTEMCTL, { mode: 0o755 });
  const types = rec.sshd.hostKeyFiles.map((f) => f.replace(/^ssh_host_(.*)_key$/, "$1") as HostKeyType);
  const config = renderSshdConfig({ machine: rec.name, port: rec.sshd.port, listenAddresses: rec.sshd.listenAddresses, hostKeyTypes: types, options: spec.sshd?.options ?? {} });
  await writeFile(join(ctl, "sshd_config"), config, { mode: 0o644 });
  if (spec.userData !== undefined) await writeFile(join(ctl, "user-data"), spec.userData, { mode: 0o700 });
  // Stage 1 waits on this pipe until the host has wired the machine's network.
  await ctx.exec.run("mkfifo", ["-m", "0600", join(ctl, NETWORK_FIFO)]);
  await chmod(ctl, 0o755);
  // The machine's root writes its status files here and runs its user-data.
  await chownTree(ctl, ctx.ids.base);
}

const NETWORK_FIFO = "network";

/** Waits until the process has left the host's network namespace (the supervisor has unshared). */
async function waitUnshared(pid: number, timeoutMs: number): Promise<void> {
  const own = await readlink("/proc/self/ns/net");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const theirs = await readlink(`/proc/${pid}/ns/net`).catch(() => undefined);
    if (theirs === undefined) throw new Error(`machine supervisor ${pid} exited before it made its namespaces`);
    if (theirs !== own) return;
    if (Date.now() > deadline) throw new Error(`machine supervisor ${pid} made no namespaces within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Tells stage 1 that the network is wired (it blocks reading the pipe). */
async function releaseStage1(ctl: string, supervisor: ProcessRef, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fh = await open(join(ctl, NETWORK_FIFO), fsConstants.O_WRONLY | fsConstants.O_NONBLOCK);
      await fh.write("up\n");
      await fh.close();
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENXIO") throw err;
    }
    if (!isAlive(supervisor)) throw new Error(`machine supervisor ${supervisor.pid} exited during boot`);
    if (Date.now() > deadline) throw new Error(`machine stage 1 did not wait for its network within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Waits for every promise, then throws the first failure (nothing is left running behind a failure). */
async function settled(all: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(all)).find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}

/**
 * Starts the machine unless it already runs (then only waits for it, if asked): a running machine is never
 * rebuilt; stop it first to change it. Leftovers of a dead one are removed first.
 */
export async function startMachine(ctx: HostContext, spec: MachineSpec): Promise<MachineInfo> {
  const planned = planMachine(ctx, spec);
  const id = `machine/${planned.name}`;
  const existing = await getMachineRecord(ctx, planned.name);
  if (existing?.supervisor && isAlive(existing.supervisor)) {
    return spec.wait === false ? statusOf(existing) : waitMachineReady(ctx, planned.name, spec.readyTimeoutMs);
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
      await writeControlFiles(ctx, planned, spec, paths.ctl);
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
  const supervisor = await ctx.exec.spawnDetached(
    await nsutil(ctx.exec),
    ["userns-exec", String(ctx.ids.base), String(ctx.ids.count), "--", "unshare", ...namespaces, "--", "/bin/bash", "ctl/stage1", join(paths.ctl, "stage1"), planned.hostname],
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
  return waitMachineReady(ctx, planned.name, spec.readyTimeoutMs);
}

/**
 * Kills every process of the machine (its PID namespace dies with PID 1), unmounts its root, deletes its
 * links and namespace, removes its directory (host keys outside it are kept) and its records. Idempotent;
 * also cleans up a machine whose record was lost, by name.
 */
export async function stopMachine(ctx: HostContext, name: string): Promise<void> {
  validateLogicalName("machine name", name);
  const rec = await getMachineRecord(ctx, name);
  const paths = machinePaths(ctx, name);
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

/** Ids a machine's parts can have: its own, and those naming its namespace or directory. */
export function machinePartIds(id: string, netns: string, dir: string): (x: string) => boolean {
  return (x) =>
    x === id || x === `netns/${netns}` || ["link", "route", "nftTable"].some((k) => x.startsWith(`${k}/${netns}/`)) || x === `mount/${dir}` || x.startsWith(`mount/${dir}/`);
}
