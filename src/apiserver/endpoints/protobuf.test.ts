import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isStatusError } from "../../apimachinery/errors.ts";
import { decodeProtobufObject } from "./protobuf.ts";
import { pb } from "./testing.ts";

const { ld, s, v, entry, k8sProtobuf } = pb;

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return isStatusError(e) ? e.code : -1;
  }
  return 0;
};

void describe("decodeProtobufObject", () => {
  void it("decodes a ConfigMap as kubectl create configmap sends it", () => {
    const meta = ld(1, s(1, "c1"), s(2, ""), s(3, "dev"), ld(8), entry(11, "app", "x"), s(14, "f1"), v(99, 5));
    const body = k8sProtobuf("v1", "ConfigMap", meta, entry(2, "a", "1"), entry(2, "empty", ""), ld(3, s(1, "bin"), ld(2, Buffer.from([0, 1, 2]))), v(4, 0));
    assert.deepEqual(decodeProtobufObject(body), {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c1", namespace: "dev", labels: { app: "x" }, finalizers: ["f1"] },
      data: { a: "1", empty: "" },
      binaryData: { bin: "AAEC" },
      immutable: false,
    });
  });

  void it("decodes a SelfSubjectAccessReview, omitting the empty core group", () => {
    const attrs = ld(1, s(1, "default"), s(2, "create"), s(3, ""), s(5, "configmaps"));
    const body = k8sProtobuf("authorization.k8s.io/v1", "SelfSubjectAccessReview", ld(1), ld(2, attrs));
    assert.deepEqual(decodeProtobufObject(body), {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      metadata: {},
      spec: { resourceAttributes: { namespace: "default", verb: "create", resource: "configmaps" } },
    });
  });

  void it("decodes a TokenRequest with int64 and a SubjectAccessReview's extra", () => {
    const tr = decodeProtobufObject(k8sProtobuf("authentication.k8s.io/v1", "TokenRequest", ld(1, s(1, "default")), ld(2, s(1, "https://a"), s(1, "b"), v(4, 3600))));
    assert.deepEqual(tr.spec, { audiences: ["https://a", "b"], expirationSeconds: 3600 });
    const sar = decodeProtobufObject(k8sProtobuf("authorization.k8s.io/v1", "SubjectAccessReview", ld(2, s(3, "u"), entry(5, "scopes", Buffer.concat([s(1, "x"), s(1, "y")])))));
    assert.deepEqual(sar.spec, { user: "u", extra: { scopes: ["x", "y"] } });
  });

  void it("keeps empty strings inside lists (the core API group in RBAC rules) and decodes times", () => {
    const rule = ld(2, s(1, "get"), s(2, ""), s(3, "pods"));
    const meta = ld(1, s(1, "r"), ld(8, v(1, 1704067200)));
    const obj = decodeProtobufObject(k8sProtobuf("rbac.authorization.k8s.io/v1", "ClusterRole", meta, rule));
    assert.deepEqual(obj.rules, [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }]);
    assert.deepEqual(obj.metadata, { name: "r", creationTimestamp: "2024-01-01T00:00:00Z" });
    const lease = decodeProtobufObject(k8sProtobuf("coordination.k8s.io/v1", "Lease", ld(2, ld(4, v(1, 1704067200), v(2, 123456000)), v(2, -1))));
    assert.deepEqual(lease.spec, { renewTime: "2024-01-01T00:00:00.123456Z", leaseDurationSeconds: -1 });
  });

  void it("answers 415 for kinds without a layout and 400 for malformed bodies", () => {
    assert.equal(code(() => decodeProtobufObject(k8sProtobuf("apps/v1", "Deployment", ld(1)))), 415);
    assert.equal(code(() => decodeProtobufObject(Buffer.from("{}"))), 400);
    const truncated = k8sProtobuf("v1", "ConfigMap", ld(1, s(1, "c")));
    assert.equal(code(() => decodeProtobufObject(truncated.subarray(0, truncated.length - 2))), 400);
  });
});
