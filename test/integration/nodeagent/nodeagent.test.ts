// The node key pair from the gardenlet to the node: key pair Secrets in seed and garden, the pool's
// OSC Secret in the shoot, and node agents (roots in temp dirs) that install exactly those keys and
// report the applied checksum; SSH access disabled removes every key (docs/maintenance-and-rotation.md#key-pair-secrets, docs/maintenance-and-rotation.md#node-configuration, docs/maintenance-and-rotation.md#ssh-access-off).
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  ANNOTATION_CHECKSUM_CLOUD_CONFIG,
  ANNOTATION_CHECKSUM_DATA_SCRIPT,
  ANNOTATION_SSH_HOST_KEYS,
  LABEL_NODE_AGENT_SECRET_NAME,
  LABEL_WORKER_POOL,
  OSC_NAMESPACE,
  checksumOf,
  renderOSC,
} from "../../../src/api/gardencore/osc.ts";
import { type Secret, Secrets } from "../../../src/client/builtins.ts";
import { Shoots } from "../../../src/client/garden.ts";
import { generateRSAKeyPair, keyPairData, keyPairProblem } from "../../../src/gardenlet/controller/sshkeypair/keypair.ts";
import { FULL_RESYNC_MS, SSHD_CHECK_MS } from "../../../src/nodeagent/agent.ts";
import { Nodes } from "../../../src/nodeagent/node.ts";
import { FakeClock } from "../../../src/utils/clock.ts";
import { eventually } from "../../support/http.ts";
import { type Landscape, PROJECT_NS, SHOOT, TECHNICAL_ID, b64, createShoot, secretOrUndefined, startLandscape, unb64 } from "./landscape.ts";

const mode = (path: string): number => statSync(path).mode & 0o7777;

async function oscSecret(ls: Landscape): Promise<Secret | undefined> {
  const list = await ls.shoot.list(Secrets, { namespace: OSC_NAMESPACE, labelSelector: "gardener.cloud/role=operating-system-config" });
  assert.ok(list.items.length <= 1, "one OSC Secret per pool");
  return list.items[0];
}

describe("sshkeypair controller and node agent", { timeout: 120_000 }, () => {
  let ls: Landscape;
  let clock: FakeClock;
  let node: Awaited<ReturnType<Landscape["startAgent"]>>;
  let publicKey = "";

  before(async () => {
    ls = await startLandscape();
    clock = new FakeClock(Date.now());
  });
  after(() => ls?.stop());

  it("a Shoot with workers gets the seed key pair, its garden copy and the pool's OSC Secret", async () => {
    const shoot = await createShoot(ls);
    const seedSecret = await eventually("seed ssh-keypair", () => secretOrUndefined(ls.seed, { namespace: TECHNICAL_ID, name: "ssh-keypair" }), 30_000);
    assert.equal(seedSecret.type, "Opaque");
    assert.deepEqual(Object.keys(seedSecret.data ?? {}).sort(), ["id_rsa", "id_rsa.pub"]);
    assert.deepEqual(seedSecret.metadata.labels, { name: "ssh-keypair", "manager-identity": "gardenlet", "last-rotation-initiation-time": "" });
    publicKey = unb64(seedSecret.data?.["id_rsa.pub"]);
    assert.match(publicKey, /^ssh-rsa [A-Za-z0-9+/]+={0,2}$/);
    assert.equal(keyPairProblem({ privateKey: unb64(seedSecret.data?.id_rsa), publicKey }), undefined);
    assert.equal(await secretOrUndefined(ls.seed, { namespace: TECHNICAL_ID, name: "ssh-keypair.old" }), undefined);

    const copy = await eventually("garden copy", () => secretOrUndefined(ls.garden, { namespace: PROJECT_NS, name: `${SHOOT}.ssh-keypair` }));
    assert.deepEqual(copy.metadata.labels, { "gardener.cloud/role": "ssh-keypair" });
    assert.equal(copy.metadata.annotations, undefined);
    assert.equal(copy.type, "Opaque");
    assert.deepEqual(copy.data, seedSecret.data);
    assert.deepEqual(copy.metadata.ownerReferences, [
      { apiVersion: "core.gardener.cloud/v1beta1", kind: "Shoot", name: SHOOT, uid: shoot.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);

    const osc = await eventually("OSC Secret", () => oscSecret(ls));
    assert.match(osc.metadata.name ?? "", /^gardener-node-agent-worker-[0-9a-f]{8}$/);
    assert.deepEqual(osc.metadata.labels, { "gardener.cloud/role": "operating-system-config", [LABEL_WORKER_POOL]: "worker" });
    const yaml = unb64(osc.data?.["osc.yaml"]);
    assert.equal(yaml, renderOSC({ authorizedKeys: [publicKey] }));
    assert.equal(osc.metadata.annotations?.[ANNOTATION_CHECKSUM_DATA_SCRIPT], checksumOf(yaml));
  });

  it("the node agent registers its Node and installs exactly the shoot's key for user gardener", async () => {
    node = await ls.startAgent("node-0", { clock });
    const osc = (await oscSecret(ls))!;
    const applied = await eventually("checksum reported", async () => {
      const n = await ls.shoot.get(Nodes, { name: "node-0" });
      return n.metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG] ? n : undefined;
    });
    assert.equal(applied.metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG], osc.metadata.annotations?.[ANNOTATION_CHECKSUM_DATA_SCRIPT]);
    assert.equal(applied.metadata.labels?.[LABEL_WORKER_POOL], "worker");
    assert.equal(applied.metadata.labels?.["kubernetes.io/hostname"], "node-0");
    assert.equal(applied.metadata.labels?.[LABEL_NODE_AGENT_SECRET_NAME], osc.metadata.name);
    assert.deepEqual(applied.status?.addresses, [
      { type: "InternalIP", address: "10.250.0.10" },
      { type: "Hostname", address: "node-0" },
    ]);
    const expectedHostKeys = ["ecdsa", "ed25519"]
      .map((t) => readFileSync(join(node.root, `etc/ssh/ssh_host_${t}_key.pub`), "utf8").split(" ").slice(0, 2).join(" "))
      .sort()
      .join("\n");
    assert.equal(applied.metadata.annotations?.[ANNOTATION_SSH_HOST_KEYS], expectedHostKeys);

    const ak = join(node.root, "home/gardener/.ssh/authorized_keys");
    assert.equal(readFileSync(ak, "utf8"), publicKey);
    assert.equal(mode(ak), 0o600);
    assert.equal(mode(join(node.root, "home/gardener/.ssh")), 0o700);
    assert.equal(readFileSync(join(node.root, "var/lib/gardener-user-authorized-keys"), "utf8"), publicKey);
    assert.equal(mode(join(node.root, "var/lib/gardener-user-authorized-keys")), 0o644);
    assert.equal(readFileSync(join(node.root, "etc/sudoers.d/99-gardener-user"), "utf8"), "gardener ALL=(ALL) NOPASSWD:ALL\n");
    assert.equal(mode(join(node.root, "etc/sudoers.d/99-gardener-user")), 0o440);
    assert.equal(node.sshd.last, true);
  });

  it("a changed OSC Secret is applied and reported from the watch, long before the full resync", async (t) => {
    // The agent's clock does not move here, so no resync can have applied it (bench/rotation measures how fast).
    // The gardenlet would put its own OSC back (it watches the Secrets): it looks away meanwhile.
    t.after(ls.detachShoot());
    const other = (await generateRSAKeyPair(2048)).publicKey;
    const yaml = renderOSC({ authorizedKeys: [publicKey, other] });
    const osc = (await oscSecret(ls))!;
    const sshdCalls = node.sshd.calls.length;
    await ls.shoot.update(Secrets, { ...osc, metadata: { ...osc.metadata, annotations: { [ANNOTATION_CHECKSUM_DATA_SCRIPT]: checksumOf(yaml) } }, data: { "osc.yaml": b64(yaml) } });
    const ak = join(node.root, "home/gardener/.ssh/authorized_keys");
    await eventually("new keys installed and reported", async () => {
      const n = await ls.shoot.get(Nodes, { name: "node-0" });
      return readFileSync(ak, "utf8") === `${publicKey}\n${other}` && n.metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG] === checksumOf(yaml) ? true : undefined;
    }, 20_000, 10);
    assert.equal(mode(ak), 0o600);
    assert.equal(node.sshd.calls.length, sshdCalls, "only keys changed: sshd is not touched before the report");
  });

  it("a Secret whose checksum does not match osc.yaml is not applied", async (t) => {
    t.after(ls.detachShoot());
    const ak = join(node.root, "home/gardener/.ssh/authorized_keys");
    const before = readFileSync(ak, "utf8");
    const osc = (await oscSecret(ls))!;
    const reported = osc.metadata.annotations?.[ANNOTATION_CHECKSUM_DATA_SCRIPT];
    const good = renderOSC({ authorizedKeys: [publicKey] });
    const bad = await ls.shoot.update(Secrets, { ...osc, data: { "osc.yaml": b64(good) } });
    await eventually("bad version refused", () => (node.agent.applier.lastRejected === bad.metadata.resourceVersion ? true : undefined));
    assert.equal((await ls.shoot.get(Nodes, { name: "node-0" })).metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG], reported);
    assert.equal(readFileSync(ak, "utf8"), before);
    // The next valid version is applied as usual.
    await ls.shoot.update(Secrets, { ...bad, metadata: { ...bad.metadata, annotations: { [ANNOTATION_CHECKSUM_DATA_SCRIPT]: checksumOf(good) } } });
    await eventually("valid version applied", async () =>
      (await ls.shoot.get(Nodes, { name: "node-0" })).metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG] === checksumOf(good) ? true : undefined,
    );
    assert.equal(readFileSync(ak, "utf8"), publicKey);
  });

  it("the full resync repairs a hand-edited authorized_keys; sshd is re-checked every 15 s", async () => {
    const ak = join(node.root, "home/gardener/.ssh/authorized_keys");
    writeFileSync(ak, `${publicKey}\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGmBXj9jDWSGpeJtyBE4w5aC3Jx0m6wwpQpEPRpJdKQK intruder`);
    const checks = node.sshd.calls.length;
    clock.step(SSHD_CHECK_MS);
    await eventually("sshd re-checked", () => (node.sshd.calls.length > checks ? true : undefined));
    const reported = (await ls.shoot.get(Nodes, { name: "node-0" })).metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG];
    await ls.shoot.patch(Nodes, { name: "node-0" }, { type: "merge", body: { metadata: { annotations: { [ANNOTATION_CHECKSUM_CLOUD_CONFIG]: null } } } });
    clock.step(FULL_RESYNC_MS);
    await eventually("authorized_keys repaired", () => (readFileSync(ak, "utf8") === publicKey ? true : undefined));
    await eventually("removed checksum reported again", async () =>
      (await ls.shoot.get(Nodes, { name: "node-0" })).metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG] === reported ? true : undefined,
    );
    assert.equal(mode(ak), 0o600);
  });

  it("an old key pair in the seed is published after the current one, in the garden and on the nodes", async () => {
    const old = await generateRSAKeyPair(2048);
    await ls.seed.create(Secrets, { metadata: { namespace: TECHNICAL_ID, name: "ssh-keypair.old" }, type: "Opaque", data: keyPairData(old) });
    await ls.garden.patch(Shoots, { namespace: PROJECT_NS, name: SHOOT }, { type: "merge", body: { metadata: { annotations: { "gardener.cloud/operation": "reconcile" } } } });
    const ak = join(node.root, "home/gardener/.ssh/authorized_keys");
    await eventually("current then old installed", () => (readFileSync(ak, "utf8") === `${publicKey}\n${old.publicKey}` ? true : undefined));
    const oldCopy = await eventually("garden copy of .old", () => secretOrUndefined(ls.garden, { namespace: PROJECT_NS, name: `${SHOOT}.ssh-keypair.old` }));
    assert.equal(unb64(oldCopy.data?.["id_rsa.pub"]), old.publicKey);
  });

  it("an invalid key pair in the seed publishes nothing and fails the pass; deleting it drops it (docs/maintenance-and-rotation.md#key-validation)", async () => {
    const errors = async (): Promise<number> => {
      const metric = await ls.gardenlet.manager.registry.getSingleMetric("controller_runtime_reconcile_errors_total")?.get();
      return metric?.values.find((v) => v.labels.controller === "sshkeypair")?.value ?? 0;
    };
    const trigger = (value: string) =>
      ls.garden.patch(Shoots, { namespace: PROJECT_NS, name: SHOOT }, { type: "merge", body: { metadata: { annotations: { "gardener.cloud/operation": value } } } });
    const oscBefore = (await oscSecret(ls))!;
    const copyBefore = await secretOrUndefined(ls.garden, { namespace: PROJECT_NS, name: `${SHOOT}.ssh-keypair.old` });
    const oldSecret = (await secretOrUndefined(ls.seed, { namespace: TECHNICAL_ID, name: "ssh-keypair.old" }))!;
    const stranger = (await generateRSAKeyPair(2048)).publicKey;
    await ls.seed.update(Secrets, { ...oldSecret, data: { ...oldSecret.data, "id_rsa.pub": b64(stranger) } });
    const failed = await errors();
    await trigger("reconcile-invalid");
    await eventually("the pass failed", async () => ((await errors()) > failed ? true : undefined));
    assert.equal((await oscSecret(ls))!.metadata.resourceVersion, oscBefore.metadata.resourceVersion, "OSC not rewritten");
    assert.deepEqual((await secretOrUndefined(ls.garden, { namespace: PROJECT_NS, name: `${SHOOT}.ssh-keypair.old` }))?.data, copyBefore?.data, "garden copy kept");

    await ls.seed.delete(Secrets, { namespace: TECHNICAL_ID, name: "ssh-keypair.old" });
    await trigger("reconcile-dropped");
    const ak = join(node.root, "home/gardener/.ssh/authorized_keys");
    await eventually("only the current key again", () => (readFileSync(ak, "utf8") === publicKey ? true : undefined));
  });

  it("disabling SSH access removes key pairs, copies and the nodes' keys; re-enabling brings a fresh key", async () => {
    const set = (enabled: boolean) =>
      ls.garden.patch(Shoots, { namespace: PROJECT_NS, name: SHOOT }, { type: "merge", body: { spec: { provider: { workersSettings: { sshAccess: { enabled } } } } } });
    const oscName = (await oscSecret(ls))!.metadata.name;
    await set(false);
    const ak = join(node.root, "home/gardener/.ssh/authorized_keys");
    const keysFile = join(node.root, "var/lib/gardener-user-authorized-keys");
    const exists = (p: string) => { try { statSync(p); return true; } catch { return false; } };
    await eventually("keys removed on the node", () => (!exists(ak) && !exists(keysFile) ? true : undefined));
    for (const [client, ns, name] of [
      [ls.seed, TECHNICAL_ID, "ssh-keypair"],
      [ls.seed, TECHNICAL_ID, "ssh-keypair.old"],
      [ls.garden, PROJECT_NS, `${SHOOT}.ssh-keypair`],
      [ls.garden, PROJECT_NS, `${SHOOT}.ssh-keypair.old`],
    ] as const) {
      assert.equal(await secretOrUndefined(client, { namespace: ns, name }), undefined, `${ns}/${name} deleted`);
    }
    const osc = (await oscSecret(ls))!;
    assert.equal(osc.metadata.name, oscName, "toggling SSH never replaces machines");
    const yaml = renderOSC({});
    assert.equal(unb64(osc.data?.["osc.yaml"]), yaml);
    await eventually("disabled config reported", async () =>
      (await ls.shoot.get(Nodes, { name: "node-0" })).metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG] === checksumOf(yaml) ? true : undefined,
    );
    assert.equal(node.sshd.last, false, "sshd disabled");

    await set(true);
    const fresh = await eventually("fresh key installed", () => {
      const text = exists(ak) ? readFileSync(ak, "utf8") : "";
      return text && text !== publicKey ? text : undefined;
    }, 30_000);
    assert.match(fresh, /^ssh-rsa [A-Za-z0-9+/]+={0,2}$/, "a single fresh key, no old one");
    const seedSecret = await secretOrUndefined(ls.seed, { namespace: TECHNICAL_ID, name: "ssh-keypair" });
    assert.equal(unb64(seedSecret?.data?.["id_rsa.pub"]), fresh);
    await eventually("enabled config reported", async () =>
      (await ls.shoot.get(Nodes, { name: "node-0" })).metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG] === checksumOf(renderOSC({ authorizedKeys: [fresh] })) ? true : undefined,
    );
    assert.equal(node.sshd.last, true, "sshd enabled again");
  });
});
