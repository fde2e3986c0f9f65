// Named network namespaces (/run/netns/<name>, as `ip netns` makes them). Creation is idempotent; deletion
// first kills the processes still inside and deletes the links, so veth peers elsewhere vanish at once
// rather than whenever the kernel frees the namespace.
import { deleteRecords, ipNs, ownNetns, ownedFields, recorded, type HostContext, type Owned } from "./context.ts";
import { parseNetnsList, type Exec, type RunOptions, type RunResult } from "./exec.ts";
import { isAlive, ref, waitGone, type ProcessRef } from "./procs.ts";

/** The named network namespaces: from the Exec without a process where it can, else `ip netns list`. */
export async function listNetns(exec: Exec): Promise<string[]> {
  if (exec.netnsNames) return exec.netnsNames();
  return parseNetnsList((await exec.run("ip", ["netns", "list"])).stdout);
}

export async function netnsExists(exec: Exec, name: string): Promise<boolean> {
  return (await listNetns(exec)).includes(name);
}

/** Creates the namespace (with loopback up) unless it exists. */
export async function ensureNetns(ctx: HostContext, name: string, owned: Owned = {}): Promise<void> {
  ownNetns(ctx, name);
  await recorded(ctx, { kind: "netns", name, ...ownedFields(owned) }, async () => {
    if (!(await netnsExists(ctx.exec, name))) await ctx.exec.run("ip", ["netns", "add", name]);
    await ctx.exec.run("ip", ["-n", name, "link", "set", "dev", "lo", "up"]);
  });
}

/**
 * Names the network namespace of a running process (`ip netns attach`), so the host configures it like any
 * named one. A machine's namespace is made by the machine (owned by its user namespace); this is how the host
 * finds it. Its loopback stays down: the machine's wiring brings it up with the rest (machine-net.ts).
 */
export async function attachNetns(ctx: HostContext, name: string, pid: number, owned: Owned = {}): Promise<void> {
  ownNetns(ctx, name);
  await recorded(ctx, { kind: "netns", name, ...ownedFields(owned) }, async () => {
    if (await netnsExists(ctx.exec, name)) await ctx.exec.run("ip", ["netns", "del", name]);
    await ctx.exec.run("ip", ["netns", "attach", name, String(pid)]);
  });
}

/** Names of the links in a namespace (or the host), without "@peer" suffixes. */
export async function listLinks(exec: Exec, netns?: string): Promise<string[]> {
  const r = await exec.run("ip", [...ipNs(netns), "-o", "link", "show"]);
  const names: string[] = [];
  for (const line of r.stdout.split("\n")) {
    const m = /^\d+:\s+([^:@\s]+)/.exec(line);
    if (m?.[1]) names.push(m[1]);
  }
  return names;
}

/** Processes whose network namespace is this one. */
export async function netnsPids(exec: Exec, name: string): Promise<number[]> {
  const r = await exec.run("ip", ["netns", "pids", name], { okExitCodes: [0, 1] });
  return r.stdout.split(/\s+/).filter(Boolean).map(Number);
}

/** Kills the processes that are still the recorded ones; with graceMs, SIGTERM first and SIGKILL after. */
export async function killProcesses(exec: Exec, refs: readonly ProcessRef[], graceMs = 0): Promise<void> {
  let alive = refs.filter(isAlive);
  if (alive.length === 0) return;
  if (graceMs > 0) {
    await exec.run("kill", ["-TERM", ...alive.map((r) => String(r.pid))], { okExitCodes: [0, 1] });
    if (await waitGone(alive, graceMs)) return;
    alive = alive.filter(isAlive);
  }
  // kill exits 1 when some pid is gone already; whatever is still alive is checked below.
  await exec.run("kill", ["-KILL", ...alive.map((r) => String(r.pid))], { okExitCodes: [0, 1] });
  if (!(await waitGone(alive))) {
    throw new Error(`processes ${alive.map((r) => r.pid).join(", ")} did not exit after SIGKILL`);
  }
}

/**
 * Kills what runs inside, deletes its links (one `ip -batch`), deletes the namespace and every record that
 * lived in it. `onlyOwnIds`: every such record's id names the namespace (true of a machine's), so only those
 * records are read.
 */
export async function deleteNetns(ctx: HostContext, name: string, onlyOwnIds = false): Promise<void> {
  ownNetns(ctx, name);
  if (await netnsExists(ctx.exec, name)) {
    const refs = (await netnsPids(ctx.exec, name)).map(ref).filter((r): r is ProcessRef => r !== undefined);
    await killProcesses(ctx.exec, refs);
    const links = (await listLinks(ctx.exec, name)).filter((l) => l !== "lo");
    // A veth deleted from its other end takes this one with it: -force goes on past "Cannot find device".
    if (links.length > 0) await ctx.exec.run("ip", ["-n", name, "-force", "-batch", "-"], { input: links.map((l) => `link del dev ${l}\n`).join(""), okExitCodes: [0, 1] });
    // Another deleter (a supervisor stopping beside `down`) may have removed it meanwhile: gone is the goal.
    const del = await ctx.exec.run("ip", ["netns", "del", name], { okExitCodes: [0, 1] });
    if (del.exitCode !== 0 && (await netnsExists(ctx.exec, name))) throw new Error(`ip netns del ${name}: ${del.stderr.trim() || `exit code ${del.exitCode}`}`);
  }
  const own = (id: string): boolean => id === `netns/${name}` || ["link", "route", "nftTable"].some((k) => id.startsWith(`${k}/${name}/`));
  await deleteRecords(ctx, (r) => {
    switch (r.kind) {
      case "netns":
        return r.name === name;
      case "link":
        return r.netns === name || r.peer?.netns === name;
      case "route":
      case "nftTable":
        return r.netns === name;
      default:
        return false;
    }
  }, onlyOwnIds ? own : undefined);
}

/** Runs a command inside a namespace. */
export function execInNetns(exec: Exec, netns: string, command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return exec.run(command, args, { ...options, netns });
}
