// Rotation under chaos on the real local landscape (root; rotation.test.ts runs it on its landscape,
// after the plain rotation checks): during 20 rotations the gardenlet and a
// node agent are SIGKILLed at random points (seeded PRNG, seed printed; ROTATION_CHAOS_SEED=<n>
// replays). The supervisor restarts the gardenlet, the machine's loop its node agent. Every rotation
// completes, and in the end every node's authorized_keys holds exactly the current and the previous
// key (read over SSH with the current key; the previous key still works too), and each request made
// exactly one rotation (the key from before it is the previous key afterwards).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { rotationInProgress, sshKeypairRotation } from "../../../src/api/gardencore/rotation.ts";
import { Secrets } from "../../../src/client/builtins.ts";
import { Shoots } from "../../../src/client/garden.ts";
import { eventually } from "../../support/http.ts";
import { prng, sleep, sshThroughBastion } from "../bastion-chaos/support.ts";
import type { Landscape } from "../support/landscape.ts";
import { SHOOT_KEY, getShoot, nodeAddresses, readyBastion, saveKey } from "./support.ts";

export const ROTATIONS = 20;
const SEED = Number(process.env.ROTATION_CHAOS_SEED ?? Date.now() % 2 ** 31);

/** PIDs of the node agent of a node (its machine's restart loop starts a new one). */
function nodeAgentPids(node: string): number[] {
  return execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes("gardener-node-agent") && l.includes(`--node-name ${node}`) && !l.includes("sh -c"))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

/** The member's view of `<shoot>.ssh-keypair<suffix>`'s public key. */
async function publicKey(l: Landscape, suffix: "" | ".old"): Promise<string> {
  const s = await l.member.get(Secrets, { namespace: SHOOT_KEY.namespace, name: `${SHOOT_KEY.name}.ssh-keypair${suffix}` }).catch(() => undefined);
  return Buffer.from(s?.data?.["id_rsa.pub"] ?? "", "base64").toString();
}

const request = (l: Landscape) => l.member.patch(Shoots, SHOOT_KEY, { type: "merge", body: { metadata: { annotations: { "gardener.cloud/operation": "rotate-ssh-keypair" } } } });

/**
 * Waits until a rotation initiated at or after `since` (ms, second granularity) completed. The request
 * is made once: a gardenlet killed between starting a rotation and consuming the request recognises the
 * started one after its restart (docs/maintenance-and-rotation.md), so exactly one rotation follows.
 */
function completedSince(l: Landscape, since: number): Promise<string> {
  return eventually("rotation completed", async () => {
    const s = await getShoot(l);
    const r = sshKeypairRotation(s);
    const started = Date.parse(r?.lastInitiationTime ?? "");
    return started >= since && !rotationInProgress(s) && !(s.metadata.annotations?.["gardener.cloud/operation"] ?? "").includes("rotate-ssh-keypair") ? r!.lastInitiationTime : undefined;
  }, 180_000, 100);
}

/** The chaos run on landscape `l`; `progress` prints a line of progress. */
export async function rotationChaos(l: Landscape, progress: (line: string) => void): Promise<void> {
  progress(`ROTATION_CHAOS_SEED=${SEED}`);
  const random = prng(SEED);
  const nodes = (await nodeAddresses(l)).map((n) => n.name);
  const kills = { gardenlet: 0, nodeAgent: 0 };
  for (let i = 0; i < ROTATIONS; i++) {
    const requested = Math.floor(Date.now() / 1000) * 1000;
    const before = await publicKey(l, "");
    await request(l);
    const chaos = (async () => {
      if (random() < 0.5) {
        await sleep(Math.floor(random() * 1500));
        const pid = l.pidOf("gardenlet");
        if (pid) {
          process.kill(pid, "SIGKILL");
          kills.gardenlet++;
        }
      }
      if (random() < 0.5) {
        await sleep(Math.floor(random() * 1500));
        for (const pid of nodeAgentPids(nodes[Math.floor(random() * nodes.length)]!)) {
          process.kill(pid, "SIGKILL");
          kills.nodeAgent++;
        }
      }
    })();
    const started = await completedSince(l, requested);
    await chaos;
    // Exactly one rotation per request: the key from before the request is now the previous one.
    assert.equal(await publicKey(l, ".old"), before, `rotation ${i + 1}: the previous key is the one from before the request`);
    assert.notEqual(await publicKey(l, ""), before);
    progress(`rotation ${i + 1}/${ROTATIONS} (started ${started}) completed; kills so far ${JSON.stringify(kills)}`);
  }
  progress(`kills: ${JSON.stringify(kills)}`);

  // Settled: no request left, nothing in progress.
  await eventually("settled", async () => {
    const s = await getShoot(l);
    return !rotationInProgress(s) && !(s.metadata.annotations?.["gardener.cloud/operation"] ?? "").includes("rotate") ? true : undefined;
  }, 180_000, 500);
  const current = await saveKey(l, join(l.dir, "current"));
  const old = await saveKey(l, join(l.dir, "old"), true);
  const userKey = join(l.dir, "id_user_chaos");
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "e2e", "-f", userKey]);
  const bastionIp = await readyBastion(l, "chaos-check", readFileSync(`${userKey}.pub`, "utf8").trim());
  for (const n of await nodeAddresses(l)) {
    const r = await sshThroughBastion({ bastionIp, bastionKey: userKey, nodeKey: join(l.dir, "current"), nodeAddress: n.address, command: "cat /home/gardener/.ssh/authorized_keys" });
    assert.equal(r.code, 0, `${n.name}: ${r.out}`);
    assert.equal(r.out, `${current}\n${old}`, `${n.name}: exactly the current and the previous key`);
    const prev = await sshThroughBastion({ bastionIp, bastionKey: userKey, nodeKey: join(l.dir, "old"), nodeAddress: n.address, command: "true" });
    assert.equal(prev.code, 0, `${n.name}: the previous key works: ${prev.out}`);
  }
}
