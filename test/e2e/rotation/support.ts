// Helpers of the rotation e2e tests on the local landscape: the Shoot's rotation state, requesting a
// rotation and waiting for its completion, the current key pair on disk, a Bastion for direct SSH
// with a chosen node key, and `gardenctl ssh`.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sshKeypairRotation } from "../../../src/api/gardencore/rotation.ts";
import type { Shoot } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { Secrets } from "../../../src/client/builtins.ts";
import { Bastions, Shoots } from "../../../src/client/garden.ts";
import { LinuxHost } from "../../../src/host/index.ts";
import { listeningTcp } from "../../../src/host/procs.ts";
import { REPO } from "../../../src/landscape/components.ts";
import { PROJECT_NAMESPACE, SHOOT, SHOOT_TECHNICAL_ID } from "../../../src/landscape/layout.ts";
import { Nodes } from "../../../src/nodeagent/node.ts";
import { eventually } from "../../support/http.ts";
import { gardenBastion, sshThroughBastion } from "../bastion-chaos/support.ts";
import type { Landscape } from "../support/landscape.ts";

export const SHOOT_KEY = { namespace: PROJECT_NAMESPACE, name: SHOOT };

export const getShoot = (l: Landscape): Promise<Shoot> => l.garden.get(Shoots, SHOOT_KEY);

/** Requests a rotation as the project member and waits until it completed; returns its lastInitiationTime. */
export async function rotate(l: Landscape, timeoutMs = 60_000): Promise<string> {
  const before = sshKeypairRotation(await getShoot(l))?.lastInitiationTime;
  await l.member.patch(Shoots, SHOOT_KEY, { type: "merge", body: { metadata: { annotations: { "gardener.cloud/operation": "rotate-ssh-keypair" } } } });
  return completedAfter(l, before, timeoutMs);
}

/** Waits until a rotation started after `before` (a lastInitiationTime, or none) completed. */
export function completedAfter(l: Landscape, before: string | undefined, timeoutMs = 60_000): Promise<string> {
  return eventually("rotation completed", async () => {
    const r = sshKeypairRotation(await getShoot(l));
    const started = r?.lastInitiationTime;
    if (!started || started === before || !r.lastCompletionTime) return undefined;
    return Date.parse(r.lastCompletionTime) >= Date.parse(started) ? started : undefined;
  }, timeoutMs, 100);
}

/** The member's current (or .old) node private key, written to `path` (0600). */
export async function saveKey(l: Landscape, path: string, old = false): Promise<string> {
  const s = await l.member.get(Secrets, { namespace: PROJECT_NAMESPACE, name: `${SHOOT}.ssh-keypair${old ? ".old" : ""}` });
  writeFileSync(path, Buffer.from(s.data!.id_rsa!, "base64"), { mode: 0o600 });
  return Buffer.from(s.data!["id_rsa.pub"]!, "base64").toString();
}

export async function nodeAddresses(l: Landscape): Promise<{ name: string; address: string }[]> {
  return (await l.shoot.list(Nodes)).items.map((n) => ({ name: n.metadata.name!, address: n.status!.addresses!.find((a) => a.type === "InternalIP")!.address })).sort((a, b) => a.name.localeCompare(b.name));
}

/** A ready Bastion of the member for direct SSH (its ingress admits the host). */
export async function readyBastion(l: Landscape, name: string, userPub: string): Promise<string> {
  await l.member.create(Bastions, gardenBastion(name, userPub, `${l.hostAddress}/32`));
  return eventually("bastion ready", async () => {
    const b = await l.member.get(Bastions, { namespace: PROJECT_NAMESPACE, name });
    return b.status?.ingress?.ip && b.status.conditions?.some((c) => c.type === "BastionReady" && c.status === "True") ? b.status.ingress.ip : undefined;
  }, 90_000, 250);
}

/** Runs `hostname` on every node with `nodeKey`; the exit codes by node. */
export async function sshAll(l: Landscape, o: { bastionIp: string; bastionKey: string; nodeKey: string }): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const n of await nodeAddresses(l)) out[n.name] = (await sshThroughBastion({ ...o, nodeAddress: n.address, command: "hostname" })).code;
  return out;
}

/** `gardenctl ssh <node> -- <command>` with the landscape's gardenctl configuration. */
export function gardenctlSsh(l: Landscape, node: string, command: string[]): Promise<{ code: number; out: string }> {
  const argv = [join(REPO, "bin", "gardenctl.js"), "ssh", "--garden", "local", "--project", "local", "--shoot", "local", node, "--", ...command];
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { env: { ...process.env, GCTL_HOME: join(l.dir, "gardenctl") }, timeout: 180_000, encoding: "utf8" }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, out: stdout + stderr });
    });
  });
}

/**
 * For every worker machine of the shoot: whether anything in its network namespace listens on its sshd
 * port (TCP LISTEN sockets of the machine's init, from /proc). Nothing listening: sshd accepts nobody.
 */
export async function sshdListening(l: Landscape): Promise<Record<string, boolean>> {
  const host = new LinuxHost({ stateDir: l.layout.hostState, prefix: l.prefix });
  const workers = (await host.listMachines()).filter((m) => m.name.startsWith(`${SHOOT_TECHNICAL_ID}.worker-`));
  if (workers.length === 0) throw new Error("the host records no worker machines");
  return Object.fromEntries(workers.map((m) => {
    if (!m.init) throw new Error(`worker machine ${m.name} is not running`);
    return [m.name, listeningTcp(m.init.pid).some((s) => s.port === m.sshd.port)];
  }));
}
