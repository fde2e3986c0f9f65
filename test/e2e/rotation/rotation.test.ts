// Node SSH key pair rotation on the real local landscape (root), with real SSH through a bastion:
// after a rotation `gardenctl ssh` works (it uses the current key) and the previous key still works on
// every node; after a second rotation the first key is refused by every node; with SSH access disabled
// no key works (the open connection is ended, sshd listens nowhere, no bastion is admitted), and
// re-enabling brings access back. Then the same landscape goes through rotations under chaos (chaos.ts).
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Bastions, Shoots } from "../../../src/client/garden.ts";
import { PROJECT_NAMESPACE } from "../../../src/landscape/layout.ts";
import { eventually } from "../../support/http.ts";
import { type Landscape, skipUnlessRoot, startLandscape } from "../support/landscape.ts";
import { ROTATIONS, rotationChaos } from "./chaos.ts";
import { SHOOT_KEY, gardenctlSsh, nodeAddresses, readyBastion, rotate, saveKey, sshAll, sshdListening } from "./support.ts";

const PREFIX = "glr-";
const progress = (line: string): void => void process.stderr.write(`${new Date().toISOString()} ${line}\n`);

describe("SSH key pair rotation on the local landscape", { skip: skipUnlessRoot, timeout: 2_400_000 }, () => {
  let l: Landscape;
  let userKey: string;
  let bastionIp: string;
  let pub0: string;
  const key = (i: number): string => join(l.dir, `node-key-${i}`);
  const all = (code: number, r: Record<string, number>): boolean => Object.keys(r).length === 2 && Object.values(r).every((c) => c === code);

  before(async () => {
    // The chaos run kills the gardenlet about ten times within minutes: without a short cap the
    // supervisor's crash-loop backoff (up to 30 s) would be most of this file's wall time.
    l = await startLandscape({ prefix: PREFIX, ports: { garden: 28443, seed: 28444, shoot: 28445 }, out: progress, maxRestartBackoff: "1s" });
    userKey = join(l.dir, "id_user");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "e2e", "-f", userKey]);
    pub0 = await saveKey(l, key(0));
    bastionIp = await readyBastion(l, "rotation", readFileSync(`${userKey}.pub`, "utf8").trim());
  });
  after(async () => {
    if (l) await l.stop(progress);
  });

  test("after a rotation gardenctl ssh works and the previous key still works on every node", async () => {
    assert.ok(all(0, await sshAll(l, { bastionIp, bastionKey: userKey, nodeKey: key(0) })), "the first key works before the rotation");
    await rotate(l);
    const pub1 = await saveKey(l, key(1));
    assert.equal(await saveKey(l, join(l.dir, "old"), true), pub0, "the garden .old copy holds the previous key");
    assert.ok(all(0, await sshAll(l, { bastionIp, bastionKey: userKey, nodeKey: join(l.dir, "old") })), "the private key of the .old copy works on every node");
    const r = await gardenctlSsh(l, "shoot--local--local-worker-w1", ["hostname"]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /^worker-w1\n/, "the command ran on the node");
    assert.ok(pub1.startsWith("ssh-rsa "));
    assert.deepEqual(await sshAll(l, { bastionIp, bastionKey: userKey, nodeKey: key(1) }), Object.fromEntries((await nodeAddresses(l)).map((n) => [n.name, 0])), "the current key");
    assert.ok(all(0, await sshAll(l, { bastionIp, bastionKey: userKey, nodeKey: key(0) })), "the previous key");
  });

  test("after a second rotation the first key is refused by every node, the second still works", async () => {
    await rotate(l);
    await saveKey(l, key(2));
    assert.ok(all(255, await sshAll(l, { bastionIp, bastionKey: userKey, nodeKey: key(0) })), "the key of two rotations ago");
    assert.ok(all(0, await sshAll(l, { bastionIp, bastionKey: userKey, nodeKey: key(1) })), "the previous key");
    assert.ok(all(0, await sshAll(l, { bastionIp, bastionKey: userKey, nodeKey: key(2) })), "the current key");
  });

  test("with SSH access disabled no key works; re-enabling brings access back", async () => {
    const nodes = await nodeAddresses(l);
    const common = ["-oBatchMode=yes", "-oIdentitiesOnly=yes", "-oStrictHostKeyChecking=no", "-oUserKnownHostsFile=/dev/null", "-oLogLevel=ERROR"];
    const proxy = ["ssh", ...common, `-i${userKey}`, "-W%h:%p", `gardener@${bastionIp}`].join(" ");
    const open = spawn("ssh", [...common, `-i${key(2)}`, `-oProxyCommand=${proxy}`, `gardener@${nodes[0]!.address}`, "echo connected; sleep 600"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    open.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const closed = new Promise<void>((r) => open.once("close", () => r()));
    await eventually("connection open", () => (out.includes("connected") ? true : undefined), 30_000, 100);

    const shoot = await l.garden.get(Shoots, SHOOT_KEY);
    const provider = { ...shoot.spec.provider, workersSettings: { sshAccess: { enabled: false } } };
    await l.garden.patch(Shoots, SHOOT_KEY, { type: "merge", body: { spec: { provider } } });
    await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error("the open SSH connection was not ended")), 60_000).unref())]);
    // sshd is stopped on every node: nothing listens on its port, so no key (current, old or any other) gets in.
    await eventually("sshd stopped on every node", async () => (Object.values(await sshdListening(l)).every((x) => !x) ? true : undefined), 30_000, 250);
    await eventually("the bastion is gone", async () => ((await l.garden.list(Bastions, { namespace: PROJECT_NAMESPACE })).items.length === 0 ? true : undefined), 60_000, 250);
    await assert.rejects(l.member.create(Bastions, { metadata: { name: "refused", namespace: PROJECT_NAMESPACE }, spec: { shootRef: { name: "local" }, sshPublicKey: readFileSync(`${userKey}.pub`, "utf8").trim(), ingress: [{ ipBlock: { cidr: `${l.hostAddress}/32` } }] } }), /ssh access is disabled for worker nodes/);

    await l.garden.patch(Shoots, SHOOT_KEY, { type: "merge", body: { spec: { provider: { ...provider, workersSettings: { sshAccess: { enabled: true } } } } } });
    const fresh = await eventually("a fresh key pair", async () => saveKey(l, key(3)).catch(() => undefined), 60_000, 250);
    assert.ok(fresh.startsWith("ssh-rsa "));
    bastionIp = await readyBastion(l, "again", readFileSync(`${userKey}.pub`, "utf8").trim());
    await eventually("the fresh key works on every node", async () => (all(0, await sshAll(l, { bastionIp, bastionKey: userKey, nodeKey: key(3) })) ? true : undefined), 60_000, 1000);
    assert.ok(all(255, await sshAll(l, { bastionIp, bastionKey: userKey, nodeKey: key(2) })), "keys from before are gone");
    assert.ok(Object.values(await sshdListening(l)).every((x) => x), "sshd listens again on every node");
  });

  test(`under chaos: ${ROTATIONS} rotations with the gardenlet and node agents SIGKILLed at random points`, () => rotationChaos(l, progress));
});
