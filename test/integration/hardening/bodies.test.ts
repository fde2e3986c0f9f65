// Request bodies and patches against the real server over HTTPS, sent by an ordinary user who may
// create and patch ConfigMaps and Bastions in one namespace: a JSON patch copy bomb, deep nesting
// in every body format and patch type, and objects over their kind's size limit. Each is answered
// with a clear 4xx Status, and a bystander is served within 1 s throughout.
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
const configmaps = `/api/v1/namespaces/${NS}/configmaps`;
const bastions = `/apis/operations.gardener.cloud/v1alpha1/namespaces/${NS}/bastions`;
const JSON_TYPE = { "content-type": "application/json" };
const PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"];

function expectStatus(r: RawResponse, code: number, reason: string, message?: RegExp): void {
  assert.equal(r.status, code, r.body.slice(0, 1000));
  const st = r.json<{ kind: string; code: number; reason: string; message: string }>();
  assert.deepEqual([st.kind, st.code, st.reason], ["Status", code, reason], r.body.slice(0, 1000));
  if (message) assert.match(st.message, message);
}

void describe("request bodies and patches bounded in size and work", { timeout: 240_000 }, () => {
  let server: ApiServerProcess;
  let admin: RawClient;
  let mallory: RawClient;
  let dir = "";

  /** Runs the attack while a bystander probes; asserts the bystander was served within 1 s throughout. */
  const served = async (attack: () => Promise<void>): Promise<void> => {
    const bystander = startBystander(server.kubeconfig);
    try {
      await attack();
    } finally {
      assertServedThroughout(await bystander.stop());
    }
  };
  const send = (method: string, path: string, body: string | Buffer, headers: Record<string, string> = JSON_TYPE) =>
    mallory.request({ method, path, body, headers, timeoutMs: 30_000 });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "bodies-hardening-"));
    const tokens = writeTokenAuthFile(join(dir, "tokens.csv"), [{ token: "mallory-token", user: "mallory", uid: "1" }]);
    server = await startApiServerProcess({ storage: "sqlite", tokenAuthFile: tokens, extraArgs: ["--enable-gardener-apis", "--log-level", "warn"] });
    admin = rawClient(server.kubeconfig);
    mallory = rawClient(writeTokenKubeconfig(server.kubeconfig, join(server.dataDir, "mallory.kubeconfig"), "mallory", "mallory-token"));
    const post = async (path: string, body: unknown) => {
      const r = await admin.request({ method: "POST", path, body: JSON.stringify(body), headers: JSON_TYPE });
      assert.equal(r.status, 201, `POST ${path}: ${r.body}`);
    };
    await post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
    await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "writer" },
      rules: [
        { apiGroups: [""], resources: ["configmaps"], verbs: ["create", "get", "patch", "update"] },
        { apiGroups: ["operations.gardener.cloud"], resources: ["bastions", "bastions/status"], verbs: ["create", "get", "patch", "update"] },
      ],
    });
    await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "writer" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "writer" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "mallory" }],
    });
    await post(configmaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "target" }, data: { a: "1" } });
    // RBAC is served from a cache: wait until mallory's binding is in effect.
    await eventually("mallory's binding in effect", async () => {
      const r = await mallory.request({ path: `${configmaps}/target` });
      assert.equal(r.status, 200, `mallory cannot read yet: ${r.body}`);
      return true;
    });
  });
  after(async () => {
    admin?.close();
    mallory?.close();
    await server?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  void it("a JSON patch copy bomb is a 422 at the accumulated copy limit, and so are shifting and deepening bombs", async () => {
    const copyBomb = [{ op: "add", path: "/x", value: new Array(16).fill(0) }, ...Array.from({ length: 40 }, () => ({ op: "copy", from: "/x", path: "/x/-" }))];
    const shiftBomb = [{ op: "add", path: "/x", value: new Array(300_000).fill(0) }, ...Array.from({ length: 9_999 }, () => ({ op: "add", path: "/x/0", value: 1 }))];
    const deepCopy = [{ op: "add", path: "/x", value: JSON.parse("[".repeat(100) + "]".repeat(100)) as unknown }, ...[99, 199, 399].map((n) => ({ op: "copy", from: "/x", path: `/x${"/0".repeat(n)}` }))];
    await served(async () => {
      const started = performance.now();
      expectStatus(await send("PATCH", `${configmaps}/target`, JSON.stringify(copyBomb), { "content-type": PATCH_TYPES[0]! }), 422, "Invalid", /Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728/);
      assert.ok(performance.now() - started < 5_000, `the copy bomb took ${Math.round(performance.now() - started)} ms`);
      // inserting at the front of a long list again and again: a work bound, not minutes of shifting
      expectStatus(await send("PATCH", `${configmaps}/target`, JSON.stringify(shiftBomb), { "content-type": PATCH_TYPES[0]! }), 422, "Invalid", /units of work/);
      expectStatus(await send("PATCH", `${configmaps}/target`, JSON.stringify(deepCopy), { "content-type": PATCH_TYPES[0]! }), 422, "Invalid", /nested too deeply: exceeded max depth of 500/);
    });
    const after = (await mallory.request({ path: `${configmaps}/target` })).json<{ data: Record<string, string> }>();
    assert.equal(after.data.a, "1");
  });

  void it("100,000 nested brackets are a 400 in JSON and YAML bodies, strict or not, and in every patch type", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const deepObject = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${"{\"a\":".repeat(100_000)}1${"}".repeat(100_000)}}`;
    await served(async () => {
      for (const query of ["", "?fieldValidation=Strict"]) {
        expectStatus(await send("POST", configmaps + query, deep), 400, "BadRequest", /exceeded max depth of 500/);
        expectStatus(await send("POST", configmaps + query, deepObject), 400, "BadRequest", /exceeded max depth of 500/);
        expectStatus(await send("POST", configmaps + query, "[".repeat(100_000), { "content-type": "application/yaml" }), 400, "BadRequest", /exceeded max depth of 500/);
        expectStatus(await send("POST", configmaps + query, "- ".repeat(100_000) + "x", { "content-type": "application/yaml" }), 400, "BadRequest", /exceeded max depth of 500/);
        expectStatus(await send("PUT", `${configmaps}/target${query}`, deepObject), 400, "BadRequest", /exceeded max depth of 500/);
      }
      for (const type of PATCH_TYPES) {
        const body = type === PATCH_TYPES[0] ? `[{"op":"add","path":"/data/x","value":${deep}}]` : `{"metadata":{"labels":${"{\"a\":".repeat(100_000)}1${"}".repeat(100_000)}}}`;
        expectStatus(await send("PATCH", `${configmaps}/target`, body, { "content-type": type }), 400, "BadRequest", /exceeded max depth of 500/);
      }
      // at the bound the server still answers cleanly (the object is then invalid or stored, never a 500)
      const atBound = `{"data":{"x":${"{\"a\":".repeat(497)}"x"${"}".repeat(497)}}}`;
      const r = await send("PATCH", `${configmaps}/target`, atBound, { "content-type": PATCH_TYPES[1]! });
      assert.ok(r.status === 400 || r.status === 422, `${r.status} ${r.body.slice(0, 300)}`);
      const bastion = `{"apiVersion":"operations.gardener.cloud/v1alpha1","kind":"Bastion","metadata":{"name":"deep"},"spec":{"x":${deep}}}`;
      expectStatus(await send("POST", bastions, bastion), 400, "BadRequest", /exceeded max depth of 500/);
    });
  });

  void it("objects over their kind's limit are a 413 naming the limit, on create, update and patch", async () => {
    const ingress = Array.from({ length: 75_000 }, (_, i) => ({ ipBlock: { cidr: `10.${(i >> 8) & 255}.${i & 255}.0/24` } }));
    const bastion = JSON.stringify({
      apiVersion: "operations.gardener.cloud/v1alpha1",
      kind: "Bastion",
      metadata: { name: "huge" },
      spec: { shootRef: { name: "s1" }, sshPublicKey: ed25519AuthorizedKey("mallory@example"), ingress },
    });
    assert.ok(bastion.length > 2_800_000 && bastion.length < 3_145_728, `the Bastion is ${bastion.length} bytes`);
    const bigData = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v".repeat(1000)]));
    const tooLarge = /is too large to store: limit is 1572864 bytes/;
    await served(async () => {
      expectStatus(await send("POST", bastions, bastion), 413, "RequestEntityTooLarge", /Bastion "huge" is too large to store: limit is 262144 bytes/);
      expectStatus(await send("POST", `${bastions}?dryRun=All`, bastion), 413, "RequestEntityTooLarge", /limit is 262144 bytes/);
      const cm = (name: string, n: number) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: bigData(n) });
      expectStatus(await send("POST", configmaps, cm("big", 2_000)), 413, "RequestEntityTooLarge", tooLarge);
      expectStatus(await send("PUT", `${configmaps}/target`, cm("target", 2_000)), 413, "RequestEntityTooLarge", tooLarge);
      // two patches that each fit the body limit, growing the object past the kind's limit
      const grow = (from: number) => JSON.stringify({ data: Object.fromEntries(Object.entries(bigData(900)).map(([k, v]) => [`${k}-${from}`, v])) });
      for (const type of PATCH_TYPES.slice(1)) {
        const first = await send("PATCH", `${configmaps}/target`, grow(1), { "content-type": type });
        assert.ok(first.status === 200, `${first.status} ${first.body.slice(0, 300)}`);
        expectStatus(await send("PATCH", `${configmaps}/target`, grow(2), { "content-type": type }), 413, "RequestEntityTooLarge", tooLarge);
      }
      const jsonGrow = JSON.stringify([{ op: "add", path: "/data/x", value: "y".repeat(700_000) }, { op: "copy", from: "/data/x", path: "/data/z" }]);
      expectStatus(await send("PATCH", `${configmaps}/target`, jsonGrow, { "content-type": PATCH_TYPES[0]! }), 413, "RequestEntityTooLarge", tooLarge);
    });
  });
});
