// Attacks on garden Bastions by a project member (ordinary credentials) against the real
// `gardener-apiserver --enable-gardener-apis` process: claims about the object itself (a fake
// deletionTimestamp, another seed, another shoot, a creator annotation) decide nothing, since
// admission and strategy read the stored object; oversized SSH keys and nonsense ipBlock.except
// entries are refused with a 4xx at once. Other users are served within 1 s throughout.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ApiServerProcess, startApiServerProcess } from "../../support/apiserver.ts";
import { eventually, type RawClient, type RawResponse, rawClient } from "../../support/http.ts";
import { writeTokenAuthFile, writeTokenKubeconfig } from "../../support/kubeconfig.ts";
import { assertServedThroughout, startBystander } from "../../support/liveness.ts";
import { ed25519AuthorizedKey } from "../../../src/api/operations/testing.ts";

const NS = "garden-p";
const GARDENLET = "gardener.cloud:system:seed:a";
const KEY = ed25519AuthorizedKey("alice@example");
const json = { "content-type": "application/json" };
const mergePatch = { "content-type": "application/merge-patch+json" };
const bastions = `/apis/operations.gardener.cloud/v1alpha1/namespaces/${NS}/bastions`;
const shoots = `/apis/core.gardener.cloud/v1beta1/namespaces/${NS}/shoots`;

interface Bastion {
  metadata: { name: string; resourceVersion?: string; deletionTimestamp?: string; finalizers?: string[]; annotations?: Record<string, string> };
  spec: { seedName?: string; providerType?: string; shootRef: { name: string }; sshPublicKey: string };
  status?: { lastHeartbeatTimestamp?: string };
}
interface Status {
  kind: string;
  code: number;
  reason: string;
  message: string;
  details?: { causes?: { field: string; reason: string; message: string }[] };
}

function bastionBody(name: string, shoot: string, ingress: unknown[] = [{ ipBlock: { cidr: "203.0.113.0/24" } }], key = KEY): string {
  return JSON.stringify({ apiVersion: "operations.gardener.cloud/v1alpha1", kind: "Bastion", metadata: { name }, spec: { shootRef: { name: shoot }, sshPublicKey: key, ingress } });
}

function shootBody(name: string): string {
  return JSON.stringify({
    apiVersion: "core.gardener.cloud/v1beta1",
    kind: "Shoot",
    metadata: { name },
    spec: { seedName: "a", provider: { type: "local", workers: [{ name: "w", minimum: 1, maximum: 1 }] } },
  });
}

function expectStatus(r: RawResponse, code: number, message?: RegExp): Status {
  assert.equal(r.status, code, r.body.slice(0, 2000));
  const st = r.json<Status>();
  assert.deepEqual([st.kind, st.code], ["Status", code]);
  if (message) assert.match(st.message, message);
  return st;
}

/** A minimal ssh-rsa entry whose modulus has `bits` bits (only sizes and exponent are checked). */
function rsaKey(bits: number): string {
  const field = (b: Buffer) => Buffer.concat([Buffer.from([b.length >>> 24, (b.length >>> 16) & 255, (b.length >>> 8) & 255, b.length & 255]), b]);
  const n = Buffer.alloc(Math.ceil(bits / 8) + 1, 0xab);
  n[0] = 0;
  n[1] = 1 << (bits - 1) % 8;
  const blob = Buffer.concat([field(Buffer.from("ssh-rsa")), field(Buffer.from([1, 0, 1])), field(n[1]! & 0x80 ? n : n.subarray(1))]);
  return `ssh-rsa ${blob.toString("base64")} big@example`;
}

void describe("bastion hardening", { timeout: 240_000 }, () => {
  let server: ApiServerProcess;
  let admin: RawClient;
  let alice: RawClient;
  let carol: RawClient;
  let gardenlet: RawClient;
  let dir = "";

  const get = async (c: RawClient, name: string) => (await c.request({ path: `${bastions}/${name}` })).json<Bastion>();
  const patch = (c: RawClient, name: string, body: unknown) => c.request({ method: "PATCH", path: `${bastions}/${name}`, body: JSON.stringify(body), headers: mergePatch });
  const ok = (r: RawResponse, what: string) => assert.ok(r.status >= 200 && r.status < 300, `${what}: ${r.status} ${r.body.slice(0, 1000)}`);
  /** Runs the attack while a bystander probes; asserts the bystander was served within 1 s throughout. */
  const served = async <T>(attack: () => Promise<T>): Promise<T> => {
    const bystander = startBystander(server.kubeconfig);
    try {
      return await attack();
    } finally {
      assertServedThroughout(await bystander.stop());
    }
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "bastion-hardening-"));
    const tokens = writeTokenAuthFile(join(dir, "tokens.csv"), [
      { token: "alice-token", user: "alice", uid: "1" },
      { token: "carol-token", user: "carol", uid: "2" },
      { token: "gardenlet-token", user: GARDENLET, uid: "3", groups: ["gardener.cloud:system:seeds"] },
    ]);
    server = await startApiServerProcess({
      storage: "sqlite",
      tokenAuthFile: tokens,
      extraArgs: ["--enable-gardener-apis", "--authorization-mode", "Seed,RBAC", "--log-level", "warn"],
    });
    admin = rawClient(server.kubeconfig);
    alice = rawClient(writeTokenKubeconfig(server.kubeconfig, join(server.dataDir, "alice.kubeconfig"), "alice", "alice-token"));
    carol = rawClient(writeTokenKubeconfig(server.kubeconfig, join(server.dataDir, "carol.kubeconfig"), "carol", "carol-token"));
    gardenlet = rawClient(writeTokenKubeconfig(server.kubeconfig, join(server.dataDir, "gardenlet.kubeconfig"), GARDENLET, "gardenlet-token"));

    const post = async (path: string, body: string) => ok(await admin.request({ method: "POST", path, body, headers: json }), `POST ${path}`);
    for (const seed of ["a", "b"]) await post("/apis/core.gardener.cloud/v1beta1/seeds", JSON.stringify({ apiVersion: "core.gardener.cloud/v1beta1", kind: "Seed", metadata: { name: seed } }));
    await post("/api/v1/namespaces", JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } }));
    await post(
      "/apis/core.gardener.cloud/v1beta1/projects",
      JSON.stringify({ apiVersion: "core.gardener.cloud/v1beta1", kind: "Project", metadata: { name: "p" }, spec: { namespace: NS, owner: { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" } } }),
    );
    // What the project controller would bind: alice and carol are project members.
    await post(
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`,
      JSON.stringify({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "gardener.cloud:system:project-member" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "gardener.cloud:system:project-member" },
        subjects: ["alice", "carol"].map((name) => ({ apiGroup: "rbac.authorization.k8s.io", kind: "User", name })),
      }),
    );
    for (const s of ["s1", "s2", "s3"]) await post(shoots, shootBody(s));
    // RBAC is served from a cache: wait until alice's binding is in effect.
    await eventually("alice's membership in effect", async () => {
      const r = await alice.request({ path: bastions });
      assert.equal(r.status, 200, `alice is not a member yet: ${r.body}`);
      return true;
    });
  });
  after(async () => {
    for (const c of [admin, alice, carol, gardenlet]) c?.close();
    await server?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  void it("a fake deletionTimestamp does not let a heartbeat through when SSH access is disabled", async () => {
    ok(await alice.request({ method: "POST", path: bastions, body: bastionBody("hb", "s1"), headers: json }), "create");
    const disable = { spec: { provider: { workersSettings: { sshAccess: { enabled: false } } } } };
    ok(await admin.request({ method: "PATCH", path: `${shoots}/s1`, body: JSON.stringify(disable), headers: mergePatch }), "disable SSH");
    const before = await get(admin, "hb");
    await served(async () => {
      const keepalive = { metadata: { annotations: { "gardener.cloud/operation": "keepalive" } } };
      expectStatus(await patch(alice, "hb", keepalive), 422, /ssh access is disabled for worker nodes$/);
      const faked = { metadata: { deletionTimestamp: "2020-01-01T00:00:00Z", annotations: { "gardener.cloud/operation": "keepalive" } } };
      for (let i = 0; i < 20; i++) expectStatus(await patch(alice, "hb", faked), 422, /ssh access is disabled for worker nodes$/);
      // Nor does a PUT of the whole object with the claim.
      const put = { ...before, metadata: { ...before.metadata, deletionTimestamp: "2020-01-01T00:00:00Z", annotations: { ...before.metadata.annotations, "gardener.cloud/operation": "keepalive" } } };
      expectStatus(await alice.request({ method: "PUT", path: `${bastions}/hb`, body: JSON.stringify(put), headers: json }), 422, /ssh access is disabled/);
    });
    const after = await get(admin, "hb");
    assert.equal(after.status?.lastHeartbeatTimestamp, before.status?.lastHeartbeatTimestamp);
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, "nothing was written");
    assert.equal(after.metadata.deletionTimestamp, undefined);
  });

  void it("a Bastion of a deleted shoot cannot be moved to another seed; its seed's gardenlet keeps it until it is cleaned up", async () => {
    ok(await alice.request({ method: "POST", path: bastions, body: bastionBody("mv", "s2"), headers: json }), "create");
    // The gardenlet of seed a takes it over (finalizer), as in docs/bastion.md#reconcile.
    ok(await patch(gardenlet, "mv", { metadata: { finalizers: ["gardener"] } }), "gardenlet adds its finalizer");
    // Shoots are deleted only when confirmed (DeletionConfirmation, as on Gardener).
    const confirm = { metadata: { annotations: { "confirmation.gardener.cloud/deletion": "true" } } };
    ok(await admin.request({ method: "PATCH", path: `${shoots}/s2`, body: JSON.stringify(confirm), headers: mergePatch }), "confirm the shoot's deletion");
    ok(await admin.request({ method: "DELETE", path: `${shoots}/s2` }), "delete the shoot");
    // The Bastion's owner reference to its Shoot lets the garbage collector delete it at once; the
    // moment between (shoot gone, bastion not yet being deleted) is covered by the admission's unit tests.
    await eventually("the garbage collector deletes the shoot's bastion", async () => ((await get(admin, "mv")).metadata.deletionTimestamp ? true : undefined));
    await served(async () => {
      // A claimed deletionTimestamp or another shoot does not help: the stored shoot decides, and the reference is immutable.
      const st = expectStatus(await patch(alice, "mv", { spec: { shootRef: { name: "s3" }, seedName: "b" } }), 422);
      assert.match(st.message, /spec\.shootRef\.name: Invalid value: "s3": field is immutable/);
      // Being deleted: updates are allowed (finalizers), but the seed stays.
      ok(await alice.request({ method: "DELETE", path: `${bastions}/mv` }), "delete the bastion");
      ok(await patch(alice, "mv", { spec: { seedName: "b", providerType: "other" }, metadata: { ownerReferences: [] } }), "update while deleting");
      const kept = await get(admin, "mv");
      assert.deepEqual([kept.spec.seedName, kept.spec.providerType], ["a", "local"]);
      assert.ok(kept.metadata.deletionTimestamp);
      // Only seed a's gardenlet may let it go (after tearing its bastion host down).
      expectStatus(await patch(alice, "mv", { metadata: { finalizers: [] } }), 403, /only the gardenlet of seed a may remove finalizer gardener$/);
      expectStatus(await patch(carol, "mv", { metadata: { finalizers: null } }), 403, /only the gardenlet of seed a/);
    });
    const listed = (seed: string) => admin.request({ path: `${bastions}?fieldSelector=spec.seedName%3D${seed}` }).then((r) => r.json<{ items: Bastion[] }>().items.map((b) => b.metadata.name));
    assert.ok((await listed("a")).includes("mv"), "seed a's gardenlet still sees it");
    assert.deepEqual(await listed("b"), []);
    ok(await patch(gardenlet, "mv", { metadata: { finalizers: null } }), "gardenlet releases it");
    assert.equal((await admin.request({ path: `${bastions}/mv` })).status, 404);
  });

  void it("the creator annotation of a request does not make its sender the creator", async () => {
    ok(await alice.request({ method: "POST", path: bastions, body: bastionBody("own", "s3"), headers: json }), "create");
    await served(async () => {
      const takeover = { metadata: { annotations: { "gardener.cloud/created-by": "carol" } }, spec: { ingress: [{ ipBlock: { cidr: "0.0.0.0/0" } }] } };
      expectStatus(await patch(carol, "own", takeover), 403, /only the creator of this bastion \(alice\) may change spec\.ingress$/);
      expectStatus(await patch(carol, "own", { metadata: { annotations: { "gardener.cloud/created-by": "carol" } } }), 422, /metadata\.annotations: Invalid value: "carol": field is immutable/);
    });
    assert.equal((await get(admin, "own")).metadata.annotations?.["gardener.cloud/created-by"], "alice");
  });

  void it("an ssh-rsa key with a 17-megabit modulus is refused at once", async () => {
    const huge = rsaKey(17_000_000);
    const timings: string[] = [];
    await served(async () => {
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const r = await alice.request({ method: "POST", path: bastions, body: bastionBody(`huge-${i}`, "s3", undefined, huge), headers: json, timeoutMs: 30_000 });
        timings.push(`${r.status} in ${Math.round(performance.now() - started)} ms`);
        // Either the body limit (413) or validation (422) refuses it; never a 5xx or a stored key.
        if (r.status === 413) expectStatus(r, 413);
        else expectStatus(r, 422, /spec\.sshPublicKey: Too long: may not be more than 32768 bytes$/);
      }
      // Just above OpenSSH's 16384 bits, and the largest it accepts.
      expectStatus(await alice.request({ method: "POST", path: bastions, body: bastionBody("rsa-16385", "s3", undefined, rsaKey(16385)), headers: json }), 422, /spec\.sshPublicKey: Invalid value: .*: invalid sshPublicKey$/);
      ok(await alice.request({ method: "POST", path: bastions, body: bastionBody("rsa-16384", "s3", undefined, rsaKey(16384)), headers: json }), "a 16384-bit key");
    });
    assert.equal((await admin.request({ path: `${bastions}/huge-0` })).status, 404);
    console.log(`# 17-megabit RSA key (${(huge.length / 1e6).toFixed(1)} MB): answered ${timings.join(", ")}`);
  });

  void it("nonsense ipBlock.except entries are refused on create and on update", async () => {
    const bad = [{ ipBlock: { cidr: "10.0.0.0/8", except: ["junk", "11.0.0.0/16", "10.0.0.0/8", "::/0", "10.1.0.0/16"] } }];
    await served(async () => {
      const st = expectStatus(await alice.request({ method: "POST", path: bastions, body: bastionBody("ex", "s3", bad), headers: json }), 422);
      assert.deepEqual(st.details?.causes?.map((c) => [c.field, c.message]), [
        ["spec.ingress[0].ipBlock.except[0]", 'Invalid value: "junk": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'],
        ["spec.ingress[0].ipBlock.except[1]", 'Invalid value: "11.0.0.0/16": must be a strict subset of `cidr`'],
        ["spec.ingress[0].ipBlock.except[2]", 'Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`'],
        ["spec.ingress[0].ipBlock.except[3]", 'Invalid value: "::/0": must be a strict subset of `cidr`'],
      ]);
      const good = [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }];
      ok(await alice.request({ method: "POST", path: bastions, body: bastionBody("ex", "s3", good), headers: json }), "valid except");
      expectStatus(await patch(alice, "ex", { spec: { ingress: bad } }), 422, /must be a strict subset of `cidr`/);
    });
    const stored = (await get(admin, "ex")) as unknown as { spec: { ingress: unknown } };
    assert.deepEqual(stored.spec.ingress, [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }]);
  });
});
