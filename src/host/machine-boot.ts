// The steps of a machine's boot the host takes (docs/machines.md): host keys, control files, the wait for the
// supervisor's namespaces and the release of stage 1 through the control directory's pipe. Shared by a
// machine's start (machine.ts) and a held machine's claim (machine-claim.ts, docs/adr/0015-bastion-machine-pool.md).
import { closeSync, constants as fsConstants, existsSync, openSync, writeSync } from "node:fs";
import { chmod, chown, copyFile, mkdir, readdir, readlink, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { HostContext } from "./context.ts";
import { INIT, STAGE1, SYSTEMCTL, hostKeyFile, renderSshdConfig, type HostKeyType, type SshdOptionValue } from "./machine-files.ts";
import { generateHostKey } from "./host-keys.ts";
import { isAlive, type ProcessRef } from "./procs.ts";
import type { MachineRecord } from "./records.ts";

/** Stage 1 waits on this pipe of the control directory until the host has wired the machine's network. */
export const NETWORK_FIFO = "network";

/** What of a machine's spec its control files hold. */
export interface ControlInput {
  userData?: string;
  sshdOptions?: Readonly<Record<string, SshdOptionValue>>;
  /** Held (a pool machine): init runs `prepare`, reports `held` and waits for a claim. */
  hold?: boolean;
  prepare?: string;
}

/**
 * The machine's host keys, kept on the host; each boot copies them into the control directory for its root.
 * Ed25519 and ECDSA keys are made in this process (host-keys.ts), RSA keys by ssh-keygen.
 */
export async function ensureHostKeys(ctx: HostContext, dir: string, types: readonly HostKeyType[]): Promise<void> {
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

export async function chownTree(path: string, id: number): Promise<void> {
  await chown(path, id, id);
  for (const e of await readdir(path, { withFileTypes: true }).catch(() => [])) {
    if (e.isDirectory()) await chownTree(join(path, e.name), id);
    else await chown(join(path, e.name), id, id);
  }
}

/** The sshd configuration of the machine as its record describes it (listen addresses, host keys). */
export function sshdConfigOf(rec: MachineRecord, options: Readonly<Record<string, SshdOptionValue>> = {}): string {
  const types = rec.sshd.hostKeyFiles.map((f) => f.replace(/^ssh_host_(.*)_key$/, "$1") as HostKeyType);
  return renderSshdConfig({ machine: rec.name, port: rec.sshd.port, listenAddresses: rec.sshd.listenAddresses, hostKeyTypes: types, options });
}

export async function writeControlFiles(ctx: HostContext, rec: MachineRecord, input: ControlInput, ctl: string): Promise<void> {
  await rm(ctl, { recursive: true, force: true });
  await mkdir(join(ctl, "bin"), { recursive: true });
  await mkdir(join(ctl, "host-keys"), { mode: 0o700 });
  for (const f of rec.sshd.hostKeyFiles) {
    for (const file of [f, `${f}.pub`]) await copyFile(join(rec.hostKeysDir, file), join(ctl, "host-keys", file));
  }
  await writeFile(join(ctl, "stage1"), STAGE1, { mode: 0o755 });
  await writeFile(join(ctl, "init"), INIT, { mode: 0o755 });
  await writeFile(join(ctl, "bin", "systemctl"), SYSTEMCTL, { mode: 0o755 });
  await writeFile(join(ctl, "sshd_config"), sshdConfigOf(rec, input.sshdOptions), { mode: 0o644 });
  if (input.userData !== undefined) await writeFile(join(ctl, "user-data"), input.userData, { mode: 0o700 });
  if (input.hold) await writeFile(join(ctl, "hold"), "", { mode: 0o644 });
  if (input.hold && input.prepare !== undefined) await writeFile(join(ctl, "prepare"), input.prepare, { mode: 0o700 });
  // Stage 1 waits on this pipe until the host has wired the machine's network.
  await ctx.exec.run("mkfifo", ["-m", "0600", join(ctl, NETWORK_FIFO)]);
  await chmod(ctl, 0o755);
  // The machine's root writes its status files here and runs its user-data.
  await chownTree(ctl, ctx.ids.base);
}

/** Waits until the process has left the host's network namespace (the supervisor has unshared). */
export async function waitUnshared(pid: number, timeoutMs: number): Promise<void> {
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

/**
 * Tells stage 1 that the network is wired (it blocks reading the pipe); for a held machine, tells its init
 * that it was claimed (init reads the pipe again after it reported `held`).
 */
export async function releaseStage1(ctl: string, supervisor: ProcessRef, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      // Non-blocking: the open fails at once (ENXIO) while stage 1 does not read yet.
      const fd = openSync(join(ctl, NETWORK_FIFO), fsConstants.O_WRONLY | fsConstants.O_NONBLOCK);
      try {
        writeSync(fd, "up\n");
      } finally {
        closeSync(fd);
      }
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
export async function settled(all: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(all)).find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}
