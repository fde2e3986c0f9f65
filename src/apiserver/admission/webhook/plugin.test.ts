import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ResourceDefinition } from "../../registry/types.ts";
import type { AdmissionAttributes } from "../types.ts";
import { applyWebhookPatch } from "./patch.ts";
import { denied, failedCalling, reviewRequest } from "./plugin.ts";

const attrs = (operation: AdmissionAttributes["operation"] = "CREATE"): AdmissionAttributes => ({
  operation,
  resource: { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true } as ResourceDefinition,
  subresource: "",
  namespace: "ns",
  name: "c",
  user: { username: "u", uid: "1", groups: ["g"], extra: { k: ["v"] } },
  dryRun: true,
  object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "ns" }, data: { a: "1" } },
});
const patch = (ops: unknown) => ({ uid: "x", allowed: true, patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(ops)).toString("base64") });

describe("webhook answers", () => {
  it("denials carry the webhook's code (at least 400) and upstream's message", () => {
    const e = denied("a.b.c", { code: 403, reason: "Forbidden", message: "nope" });
    assert.equal(e.code, 403);
    assert.equal(e.reason, "Forbidden");
    assert.equal(e.message, 'admission webhook "a.b.c" denied the request: nope');
    assert.equal(denied("a.b.c", { code: 200 }).code, 400);
    assert.equal(denied("a.b.c", undefined).message, 'admission webhook "a.b.c" denied the request without explanation');
    assert.equal(denied("a.b.c", { reason: "Forbidden" }).message, 'admission webhook "a.b.c" denied the request: Forbidden');
    assert.equal(denied("a.b.c", { message: "x".repeat(10_000) }).message.length < 5000, true);
  });

  it("failed calls are 500 with upstream's message", () => {
    const e = failedCalling("a.b.c", new Error("boom"));
    assert.equal(e.code, 500);
    assert.equal(e.message, 'Internal error occurred: failed calling webhook "a.b.c": boom');
  });

  it("the review request carries the standard fields", () => {
    const r = reviewRequest(attrs());
    assert.deepEqual(r.userInfo, { username: "u", uid: "1", groups: ["g"], extra: { k: ["v"] } });
    assert.equal(r.dryRun, true);
    assert.equal(r.namespace, "ns");
    assert.deepEqual(r.kind, { group: "", version: "v1", kind: "ConfigMap" });
    assert.equal(r.oldObject, null);
    assert.match(r.uid, /^[0-9a-f-]{36}$/);
  });
});

describe("webhook patches", () => {
  it("are applied to a copy", () => {
    const a = attrs();
    const out = applyWebhookPatch(a, patch([{ op: "add", path: "/data/b", value: "2" }]));
    assert.deepEqual(out.data, { a: "1", b: "2" });
    assert.deepEqual(a.object!.data, { a: "1" });
  });

  it("refuse other patch types, junk, too many operations, and changed identity", () => {
    const a = attrs("UPDATE");
    assert.throws(() => applyWebhookPatch(a, { ...patch([]), patchType: "MergePatch" }), /unsupported patch type/);
    assert.throws(() => applyWebhookPatch(a, { ...patch([]), patch: "!!" }), /not JSON/);
    const many = Array.from({ length: 10_001 }, () => ({ op: "test", path: "/kind", value: "ConfigMap" }));
    assert.throws(() => applyWebhookPatch(a, patch(many)), /could not be applied/);
    assert.throws(() => applyWebhookPatch(a, patch([{ op: "replace", path: "/kind", value: "Secret" }])), /apiVersion or kind/);
    assert.throws(() => applyWebhookPatch(a, patch([{ op: "replace", path: "/metadata/namespace", value: "kube-system" }])), /namespace/);
    assert.throws(() => applyWebhookPatch(a, patch([{ op: "replace", path: "/metadata/name", value: "d" }])), /metadata.name/);
    assert.throws(() => applyWebhookPatch(a, patch([{ op: "remove", path: "/metadata" }])), /no metadata/);
    assert.equal(applyWebhookPatch(attrs("CREATE"), patch([{ op: "replace", path: "/metadata/name", value: "d" }])).metadata.name, "d");
  });
});
