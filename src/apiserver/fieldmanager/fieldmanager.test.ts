import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject, ManagedFieldsEntry } from "../../apis/meta/v1/types.ts";
import { kindSchema } from "../schema/objectmeta.ts";
import { conflictError } from "./conflict.ts";
import { applyConfiguration, type FieldManagerScope, managedFieldsAfterUpdate } from "./fieldmanager.ts";
import { LAST_APPLIED } from "./lastapplied.ts";
import { managerFromUserAgent } from "./useragent.ts";

const schema = kindSchema({
  properties: {
    spec: { type: "object", properties: { replicas: { type: "integer" }, image: { type: "string" } } },
    status: { type: "object", properties: { phase: { type: "string" } } },
  },
});
const scope = (over: Partial<FieldManagerScope> = {}): FieldManagerScope => ({ schema, group: "demo.io", version: "v1", kind: "Thing", hasStatus: true, subresource: "", now: "2026-01-01T00:00:00Z", ...over });
const thing = (spec: Record<string, unknown>, meta: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "demo.io/v1",
  kind: "Thing",
  metadata: { name: "t", namespace: "ns", uid: "u1", resourceVersion: "5", creationTimestamp: "2026-01-01T00:00:00Z", generation: 1, ...meta },
  spec,
  ...extra,
});
const managers = (e: ManagedFieldsEntry[] | undefined) => (e ?? []).map((x) => `${x.manager}/${x.operation}${x.subresource ? `/${x.subresource}` : ""}`);

void describe("field manager (managedFields of whole objects)", () => {
  void it("system metadata is never owned; an update that changes nothing keeps the entry and its time", () => {
    const created = managedFieldsAfterUpdate(undefined, thing({ replicas: 1 }), "a", scope());
    assert.deepEqual(created, [
      { manager: "a", operation: "Update", apiVersion: "demo.io/v1", time: "2026-01-01T00:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { ".": {}, "f:replicas": {} } } },
    ]);
    const live = thing({ replicas: 1 }, { managedFields: created });
    const same = managedFieldsAfterUpdate(live, thing({ replicas: 1 }, { managedFields: created, resourceVersion: "6" }), "a", scope({ now: "2026-02-02T00:00:00Z" }));
    assert.deepEqual(same, created);
    const other = managedFieldsAfterUpdate(live, thing({ replicas: 1, image: "x" }, { managedFields: created }), "b", scope({ now: "2026-02-02T00:00:00Z" }));
    assert.deepEqual(managers(other), ["a/Update", "b/Update"]);
    assert.deepEqual(other?.[1]?.fieldsV1, { "f:spec": { "f:image": {} } });
  });

  void it("status writes are their own entry (subresource status) and the main resource never owns status", () => {
    const live = thing({ replicas: 1 }, {}, { status: { phase: "A" } });
    const viaMain = managedFieldsAfterUpdate(live, thing({ replicas: 2 }, {}, { status: { phase: "B" } }), "a", scope());
    assert.deepEqual(viaMain?.[0]?.fieldsV1, { "f:spec": { "f:replicas": {} } });
    const viaStatus = managedFieldsAfterUpdate(live, thing({ replicas: 9 }, {}, { status: { phase: "B" } }), "ctl", scope({ subresource: "status" }));
    assert.deepEqual(viaStatus, [
      { manager: "ctl", operation: "Update", apiVersion: "demo.io/v1", time: "2026-01-01T00:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:status": { "f:phase": {} } }, subresource: "status" },
    ]);
  });

  void it("at most 10 update entries: the oldest merge into ancient-changes", () => {
    let obj = thing({});
    for (let i = 0; i < 12; i++) {
      const next = thing({}, { managedFields: obj.metadata.managedFields, labels: { ...obj.metadata.labels, [`l${i}`]: "x" } });
      next.metadata.managedFields = managedFieldsAfterUpdate(obj, next, `m${i}`, scope({ now: `2026-01-01T00:00:${String(i).padStart(2, "0")}Z` }));
      obj = next;
    }
    const list = managers(obj.metadata.managedFields);
    assert.equal(list.length, 10);
    assert.deepEqual(list.slice(0, 2), ["ancient-changes/Update", "m3/Update"]);
    assert.deepEqual(obj.metadata.managedFields?.[0]?.fieldsV1, { "f:metadata": { "f:labels": { ".": {}, "f:l0": {}, "f:l1": {}, "f:l2": {} } } });
    assert.equal(obj.metadata.managedFields?.[0]?.time, "2026-01-01T00:00:02Z", "the bucket takes the time of the newest entry merged into it");
  });

  void it("apply keeps kubectl's last-applied annotation current when the object has one", () => {
    const live = thing({ replicas: 1 }, { annotations: { [LAST_APPLIED]: '{"apiVersion":"demo.io/v1","kind":"Thing","spec":{"replicas":1}}\n' } });
    const config: KubeObject = { apiVersion: "demo.io/v1", kind: "Thing", metadata: { name: "t" }, spec: { replicas: 2 } };
    // No conflict with before-first-apply: the annotation shows kubectl set replicas (client-side) before.
    const out = applyConfiguration(live, config, "kubectl", false, scope());
    assert.equal(out.metadata.annotations?.[LAST_APPLIED], '{"apiVersion":"demo.io/v1","kind":"Thing","metadata":{"name":"t"},"spec":{"replicas":2}}\n');
    const byOther = applyConfiguration(live, config, "helm", true, scope());
    assert.equal(byOther.metadata.annotations?.[LAST_APPLIED], live.metadata.annotations?.[LAST_APPLIED], "only kubectl's applies touch it");
  });

  void it("conflict messages list managers sorted, with subresource and API version of updaters", () => {
    const err = conflictError([
      { manager: '{"manager":"z","operation":"Apply"}', path: ["f:spec", "f:a"] },
      { manager: '{"manager":"ctl","operation":"Update","apiVersion":"v1","subresource":"status"}', path: ["f:status", "f:b"] },
      { manager: '{"manager":"z","operation":"Apply"}', path: ["f:spec", "f:c"] },
    ]);
    assert.equal(err.code, 409);
    assert.equal(err.message, 'Apply failed with 3 conflicts: conflicts with "ctl" with subresource "status" using v1:\n- .status.b\nconflicts with "z":\n- .spec.a\n- .spec.c');
  });

  void it("the manager of a request without ?fieldManager is the User-Agent's prefix, printable, at most 128 bytes", () => {
    assert.equal(managerFromUserAgent("kubectl/v1.33.0 (linux/amd64) kubernetes/abc"), "kubectl");
    assert.equal(managerFromUserAgent("my\u0001tool/1"), "mytool");
    assert.equal(managerFromUserAgent(undefined), "");
    assert.equal(managerFromUserAgent("é".repeat(100)), "é".repeat(64));
  });

  void it("an object without managedFields: its fields belong to before-first-apply, so an apply changing them conflicts", () => {
    const live = thing({ replicas: 1, image: "a" });
    const config: KubeObject = { apiVersion: "demo.io/v1", kind: "Thing", metadata: { name: "t" }, spec: { replicas: 2 } };
    assert.throws(() => applyConfiguration(live, config, "a", false, scope()), { code: 409, message: 'Apply failed with 1 conflict: conflict with "before-first-apply" using demo.io/v1: .spec.replicas' });
    const forced = applyConfiguration(live, config, "a", true, scope());
    assert.deepEqual(managers(forced.metadata.managedFields), ["a/Apply", "before-first-apply/Update"]);
    assert.deepEqual(forced.metadata.managedFields?.[1]?.fieldsV1, { "f:spec": { ".": {}, "f:image": {} } });
  });
});
