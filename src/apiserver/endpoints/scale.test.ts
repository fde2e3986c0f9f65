import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { newOptimisticLockConflict } from "../../apimachinery/errors.ts";
import { SCALE_KIND } from "../registry/apiextensions/scale.ts";
import { type FakeStore, type TestServer, startTestServer, widgetDef } from "./testing.ts";

const def = widgetDef({
  scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" },
  subresources: { scale: { verbs: ["get", "patch", "update"], responseKind: SCALE_KIND } },
});
const path = "/apis/demo.io/v1/namespaces/ns/widgets/w/scale";

describe("the scale subresource", () => {
  let s: TestServer;
  let store: FakeStore;
  before(async () => {
    s = await startTestServer([def]);
    store = s.store(def);
  });
  after(() => s.close());
  const seed = () =>
    store.objects.set("ns/w", { apiVersion: "demo.io/v1", kind: "Widget", metadata: { name: "w", namespace: "ns", uid: "u", resourceVersion: "5" }, spec: { replicas: 2, color: "red" }, status: { replicas: 1, selector: "a=b" } });

  it("GET answers the autoscaling/v1 Scale; discovery lists widgets/scale as Scale", async () => {
    seed();
    const res = await s.fetch(path);
    assert.equal(res.status, 200);
    const scale = (await res.json()) as Record<string, unknown>;
    assert.deepEqual([scale.apiVersion, scale.kind, scale.spec, scale.status], ["autoscaling/v1", "Scale", { replicas: 2 }, { replicas: 1, selector: "a=b" }]);
    const disc = (await (await s.fetch("/apis/demo.io/v1")).json()) as { resources: { name: string; group?: string; kind: string; verbs: string[] }[] };
    assert.deepEqual(disc.resources.find((r) => r.name === "widgets/scale"), { name: "widgets/scale", singularName: "", namespaced: true, group: "autoscaling", version: "v1", kind: "Scale", verbs: ["get", "patch", "update"] });
  });

  it("a merge patch sets the replicas path and retries on a conflict it did not ask for", async () => {
    seed();
    const update = store.update.bind(store);
    let calls = 0;
    store.update = (...args) => (++calls === 1 ? Promise.reject(newOptimisticLockConflict({ group: "demo.io", resource: "widgets" }, "w")) : update(...args));
    const res = await s.fetch(path, { method: "PATCH", headers: { "content-type": "application/merge-patch+json" }, body: JSON.stringify({ spec: { replicas: 4 } }) });
    store.update = update;
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { spec: { replicas: number } }).spec.replicas, 4);
    assert.equal(calls, 2);
    const written = store.lastCall("update")!.args[1] as { metadata: { resourceVersion: string }; spec: unknown };
    assert.deepEqual(written.spec, { replicas: 4, color: "red" });
    assert.equal(written.metadata.resourceVersion, "5", "written against the version read");
  });

  it("a PUT carrying a resourceVersion is conditional on it: a conflict is the client's answer", async () => {
    seed();
    const update = store.update.bind(store);
    store.update = () => Promise.reject(newOptimisticLockConflict({ group: "demo.io", resource: "widgets" }, "w"));
    const body = { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "w", namespace: "ns", resourceVersion: "3" }, spec: { replicas: 1 } };
    const res = await s.fetch(path, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    store.update = update;
    assert.equal(res.status, 409);
  });

  it("json patch works; negative replicas are 422; apply is 415", async () => {
    seed();
    const json = await s.fetch(path, { method: "PATCH", headers: { "content-type": "application/json-patch+json" }, body: JSON.stringify([{ op: "replace", path: "/spec/replicas", value: 7 }]) });
    assert.equal(json.status, 200);
    assert.equal((store.objects.get("ns/w")!.spec as { replicas: number }).replicas, 7);
    const neg = await s.fetch(path, { method: "PATCH", headers: { "content-type": "application/merge-patch+json" }, body: JSON.stringify({ spec: { replicas: -1 } }) });
    assert.equal(neg.status, 422);
    assert.match(((await neg.json()) as { message: string }).message, /Scale.autoscaling "w" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0/);
    const apply = await s.fetch(`${path}?fieldManager=x`, { method: "PATCH", headers: { "content-type": "application/apply-patch+yaml" }, body: "spec: {replicas: 1}" });
    assert.equal(apply.status, 415);
  });
});
