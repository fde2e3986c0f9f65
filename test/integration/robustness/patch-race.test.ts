// Writes without a resourceVersion precondition never answer 409 because another writer got in
// between their read and their write (docs/kubernetes-api.md#update): a test admission plugin makes
// a concurrent write land inside that window on each of the first LOSSES attempts of a request, so
// each attempt loses its compare-and-swap; every patch type, PUT without resourceVersion, the status
// and scale subresources and a delete must still succeed, on a built-in kind, a garden kind and a
// custom resource. A write that asks for a resourceVersion still gets its 409 at once.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CustomResourceDefinition } from "../../../src/apis/apiextensions/v1/types.ts";
import type { KubeObject } from "../../../src/apis/meta/v1/types.ts";
import { isConflict } from "../../../src/apimachinery/errors.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../../../src/apiserver/admission/types.ts";
import type { InternalClient } from "../../../src/apiserver/registry/client.ts";
import { SYSTEM_APISERVER_USER } from "../../../src/apiserver/registry/internal-client.ts";
import { ConfigMaps, ServiceAccounts } from "../../../src/client/builtins.ts";
import { Seeds, Shoots } from "../../../src/client/garden.ts";
import { resourceType } from "../../../src/client/resource.ts";
import { gardenAdmissionPlugins } from "../../../src/plugins/garden.ts";
import { gadgetCrd } from "../../support/crds.ts";
import { eventually } from "../../support/http.ts";
import { startInProcessApiServer, type InProcessServer } from "../../support/inprocess.ts";

/** More lost attempts than the old bound of 16 (and than IMMEDIATE_RETRIES, so the pauses are exercised too). */
const LOSSES = 24;
const NS = "default";
const BUMP = "race.example.com/bump";

/** On UPDATE of a main resource or a subresource by a client, writes the object itself first, so the client's attempt loses. */
class Interloper implements AdmissionPlugin {
  readonly name = "Interloper";
  /** `<resource>/<name>` -> how many more attempts must lose. */
  readonly pending = new Map<string, number>();

  async validate(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    if (attrs.user.username === SYSTEM_APISERVER_USER.username || (attrs.operation !== "UPDATE" && attrs.operation !== "DELETE")) return;
    const key = `${attrs.resource.plural}/${attrs.name}`;
    const left = this.pending.get(key) ?? 0;
    if (left <= 0) return;
    this.pending.set(key, left - 1);
    const gr = { group: attrs.resource.group, resource: attrs.resource.plural };
    const current = await client.get(gr, attrs.namespace, attrs.name);
    const n = Number(current?.metadata.annotations?.[BUMP] ?? 0) + 1;
    await client.patch(gr, attrs.namespace, attrs.name, "merge", { metadata: { annotations: { [BUMP]: String(n) } } });
  }
}

const crd: CustomResourceDefinition = structuredClone(gadgetCrd);
const version = crd.spec.versions[0]!;
version.subresources = { status: {}, scale: { specReplicasPath: ".spec.size", statusReplicasPath: ".status.size" } };
(version.schema!.openAPIV3Schema!.properties!.status!.properties as Record<string, unknown>).size = { type: "integer" };
const Gadgets = resourceType<KubeObject>({ group: "example.com", version: "v1", kind: "Gadget", plural: "gadgets", namespaced: true });
const CRDs = resourceType<CustomResourceDefinition>({ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false });

describe("unconditional writes retry lost compare-and-swaps instead of answering 409", { timeout: 120_000 }, () => {
  const interloper = new Interloper();
  let g: InProcessServer;

  before(async () => {
    g = await startInProcessApiServer({ flags: ["--enable-gardener-apis"], gardenAdmission: [...gardenAdmissionPlugins(), interloper] });
    await g.admin.create(CRDs, crd);
    await eventually("gadgets served", async () => (await g.admin.list(Gadgets, { namespace: NS, limit: 1 }).then(() => true, () => undefined)));
    await g.admin.create(Seeds, { metadata: { name: "local" } });
  });

  after(async () => g?.stop());

  /** Runs the write with LOSSES forced losses on the object; returns what it answered and the number of interloping writes. */
  async function race<T>(resource: string, name: string, write: () => Promise<T>, read: () => Promise<KubeObject>): Promise<{ out: T; bumps: number }> {
    interloper.pending.set(`${resource}/${name}`, LOSSES);
    const out = await write();
    const left = interloper.pending.get(`${resource}/${name}`);
    interloper.pending.delete(`${resource}/${name}`);
    assert.equal(left, 0, "every forced loss happened");
    return { out, bumps: Number((await read()).metadata.annotations?.[BUMP] ?? 0) };
  }

  test("every patch type and a PUT without resourceVersion on a ConfigMap", async () => {
    const key = { namespace: NS, name: "cm" };
    await g.admin.create(ConfigMaps, { metadata: key, data: {} });
    const read = () => g.admin.get(ConfigMaps, key);
    const writes: [string, () => Promise<KubeObject>][] = [
      ["merge", () => g.admin.patch(ConfigMaps, key, { type: "merge", body: { data: { merge: "1" } } })],
      ["json", () => g.admin.patch(ConfigMaps, key, { type: "json", body: [{ op: "add", path: "/data/json", value: "1" }] })],
      ["strategic", () => g.admin.patch(ConfigMaps, key, { type: "strategic", body: { data: { strategic: "1" } } })],
      ["apply", () => g.admin.patch(ConfigMaps, key, { type: "apply", body: { apiVersion: "v1", kind: "ConfigMap", metadata: key, data: { apply: "1" } } }, { fieldManager: "racer", force: true })],
      ["put", async () => {
        const cm = await read();
        delete cm.metadata.resourceVersion;
        return g.admin.update(ConfigMaps, { ...cm, data: { ...(cm as { data?: Record<string, string> }).data, put: "1" } } as never);
      }],
    ];
    for (const [what, write] of writes) {
      const before = Number((await read()).metadata.annotations?.[BUMP] ?? 0);
      const r = await race("configmaps", "cm", write, read);
      // a PUT writes the whole object it read, so it sets the annotation back to what it saw
      if (what !== "put") assert.equal(r.bumps, before + LOSSES, `${what}: kept what the ${LOSSES} other writes wrote`);
      assert.equal((r.out as { data?: Record<string, string> }).data?.[what], "1", `${what} applied`);
    }
  });

  test("the dashboard's merge patch of a ServiceAccount (labels, finalizers, owner references) and a delete", async () => {
    const key = { namespace: NS, name: "dashboard-webterminal" };
    await g.admin.create(ServiceAccounts, { metadata: key });
    const read = () => g.admin.get(ServiceAccounts, key);
    const body = { metadata: { labels: { "reference.dashboard.gardener.cloud/terminal": "true" }, finalizers: ["gardener.cloud/terminal"], ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "cm", uid: "0c0c0c0c-0000-4000-8000-000000000000", blockOwnerDeletion: false }] } };
    const { out } = await race("serviceaccounts", key.name, () => g.admin.patch(ServiceAccounts, key, { type: "merge", body }), read);
    assert.deepEqual(out.metadata.finalizers, ["gardener.cloud/terminal"]);
    // a delete without preconditions (admitted once, so one forced loss): marked for deletion (the finalizer), not refused
    interloper.pending.set(`serviceaccounts/${key.name}`, 1);
    await g.admin.delete(ServiceAccounts, key);
    assert.equal(interloper.pending.get(`serviceaccounts/${key.name}`), 0);
    assert.ok((await read()).metadata.deletionTimestamp);
    await g.admin.patch(ServiceAccounts, key, { type: "merge", body: { metadata: { finalizers: null } } });
  });

  test("a garden kind's status, and a custom resource's main resource, status and scale", async () => {
    const shoot = { namespace: NS, name: "s" };
    await g.admin.create(Shoots, { metadata: shoot, spec: { seedName: "local", provider: { type: "local" }, kubernetes: { version: "1.31.1" } } });
    const s = await race("shoots", "s", () => g.admin.patchStatus(Shoots, shoot, { type: "merge", body: { status: { lastOperation: { type: "Reconcile", state: "Succeeded", progress: 100 } } } }), () => g.admin.get(Shoots, shoot));
    assert.equal((s.out.status?.lastOperation as { state?: string }).state, "Succeeded");

    const gadget = { namespace: NS, name: "gd" };
    await g.admin.create(Gadgets, { apiVersion: "example.com/v1", kind: "Gadget", metadata: gadget, spec: { size: 1 } });
    const read = () => g.admin.get(Gadgets, gadget);
    const main = await race("gadgets", "gd", () => g.admin.patch(Gadgets, gadget, { type: "merge", body: { spec: { size: 2 } } }), read);
    assert.equal((main.out.spec as { size: number }).size, 2);
    const status = await race("gadgets", "gd", () => g.admin.patchStatus(Gadgets, gadget, { type: "merge", body: { status: { phase: "Ready" } } }), read);
    assert.equal((status.out.status as { phase: string }).phase, "Ready");
    const scale = await race("gadgets", "gd", () => g.admin.transport.request<{ spec: { replicas: number } }>({ method: "PATCH", path: `/apis/example.com/v1/namespaces/${NS}/gadgets/gd/scale`, body: { spec: { replicas: 5 } }, contentType: "application/merge-patch+json" }), read);
    assert.equal(scale.out.spec.replicas, 5);
    assert.equal(((await read()).spec as { size: number }).size, 5);
  });

  test("a write that asks for a resourceVersion still answers 409 when another write came first", async () => {
    const key = { namespace: NS, name: "conditional" };
    const cm = await g.admin.create(ConfigMaps, { metadata: key, data: {} });
    interloper.pending.set("configmaps/conditional", 1);
    const err = await g.admin.patch(ConfigMaps, key, { type: "merge", body: { metadata: { resourceVersion: cm.metadata.resourceVersion }, data: { a: "1" } } }).then(() => undefined, (e: unknown) => e);
    assert.ok(isConflict(err), `409 Conflict, got ${String(err)}`);
    interloper.pending.delete("configmaps/conditional");
  });

  test("many unconditional patches at once beside a loop of conditional updates all succeed", async () => {
    const key = { namespace: NS, name: "hot" };
    await g.admin.create(ConfigMaps, { metadata: key, data: {} });
    let stop = false;
    const updater = (async () => {
      for (let i = 0; !stop; i++) {
        const cm = await g.admin.get(ConfigMaps, key);
        await g.admin.update(ConfigMaps, { ...cm, metadata: { ...cm.metadata, annotations: { n: String(i) } } }).catch((e: unknown) => {
          if (!isConflict(e)) throw e;
        });
      }
    })();
    const kinds = ["merge", "json", "strategic"] as const;
    const results = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => {
      const type = kinds[i % kinds.length]!;
      return g.admin.patch(ConfigMaps, key, type === "json" ? { type, body: [{ op: "add", path: `/data/k${i}`, value: "v" }] } : { type, body: { data: { [`k${i}`]: "v" } } });
    }));
    stop = true;
    await updater;
    assert.deepEqual(results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason)), []);
    assert.equal(Object.keys((await g.admin.get(ConfigMaps, key)).data ?? {}).length, 60);
  });
});
