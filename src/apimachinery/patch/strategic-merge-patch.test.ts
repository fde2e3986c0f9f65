import { test } from "node:test";
import assert from "node:assert/strict";
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { StatusError } from "../errors.ts";
import { strategicMergePatch } from "./strategic-merge-patch.ts";

// A slice of the Deployment schema with the patch tags of k8s.io/api.
const mergeBy = (key: string, items: JSONSchemaProps, extra = ""): JSONSchemaProps => ({
  type: "array",
  items,
  "x-kubernetes-patch-strategy": extra ? `merge,${extra}` : "merge",
  "x-kubernetes-patch-merge-key": key,
});
const container: JSONSchemaProps = {
  type: "object",
  properties: {
    name: { type: "string" },
    image: { type: "string" },
    args: { type: "array", items: { type: "string" } },
    env: mergeBy("name", { type: "object", properties: { name: { type: "string" }, value: { type: "string" } } }),
    ports: mergeBy("containerPort", { type: "object" }),
  },
};
const podSpec: JSONSchemaProps = {
  type: "object",
  properties: {
    containers: mergeBy("name", container),
    volumes: mergeBy("name", { type: "object" }, "retainKeys"),
    tolerations: { type: "array", items: { type: "object" } },
    nodeSelector: { type: "object", additionalProperties: { type: "string" } },
    securityContext: { type: "object", "x-kubernetes-patch-strategy": "replace" },
  },
};
const deployment: JSONSchemaProps = {
  type: "object",
  properties: {
    metadata: { type: "object" },
    spec: {
      type: "object",
      properties: {
        replicas: { type: "integer" },
        strategy: { type: "object", "x-kubernetes-patch-strategy": "retainKeys" },
        template: { type: "object", properties: { metadata: { type: "object" }, spec: podSpec } },
      },
    },
  },
};

type Obj = Record<string, unknown>;
const deploy = (podSpecValue: Obj, extra: Obj = {}): Obj => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default", labels: { app: "web" } },
  spec: { replicas: 1, template: { metadata: { labels: { app: "web" } }, spec: podSpecValue }, ...extra },
});
const smp = (original: unknown, patch: unknown): Obj => strategicMergePatch(original, patch, deployment) as Obj;
const podSpecOf = (o: Obj): Obj => ((o["spec"] as Obj)["template"] as Obj)["spec"] as Obj;
const names = (list: unknown): unknown[] => (list as Obj[]).map((e) => e["name"]);
const patchPodSpec = (p: Obj): Obj => ({ spec: { template: { spec: p } } });

function fails(fn: () => unknown, code: number, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof StatusError, String(err));
    assert.equal(err.code, code);
    assert.match(err.message, message);
    return true;
  });
}

void test("containers merge by name; fields inside merge; untouched containers stay", () => {
  const orig = deploy({ containers: [{ name: "web", image: "nginx:1.24", args: ["-a"] }, { name: "log", image: "fluent" }] });
  const out = smp(orig, patchPodSpec({ containers: [{ name: "web", image: "nginx:1.25" }] }));
  assert.deepEqual(podSpecOf(out)["containers"], [
    { name: "web", image: "nginx:1.25", args: ["-a"] },
    { name: "log", image: "fluent" },
  ]);
  assert.equal((out["metadata"] as Obj)["name"], "web");
});

void test("a new list element goes before the server's elements (as kube-apiserver does)", () => {
  const out = smp(deploy({ containers: [{ name: "web", image: "a" }] }), patchPodSpec({ containers: [{ name: "sidecar", image: "b" }] }));
  assert.deepEqual(names(podSpecOf(out)["containers"]), ["sidecar", "web"]);
});

void test("env merges by name inside a container; $patch: delete removes an element", () => {
  const orig = deploy({ containers: [{ name: "web", env: [{ name: "A", value: "1" }, { name: "B", value: "2" }, { name: "C", value: "3" }] }] });
  const out = smp(
    orig,
    patchPodSpec({ containers: [{ name: "web", env: [{ name: "B", value: "20" }, { name: "C", $patch: "delete" }] }] }),
  );
  assert.deepEqual((podSpecOf(out)["containers"] as Obj[])[0]!["env"], [
    { name: "A", value: "1" },
    { name: "B", value: "20" },
  ]);
});

void test("$patch: replace in a list replaces the whole list", () => {
  const orig = deploy({ containers: [{ name: "a", image: "1" }, { name: "b", image: "2" }] });
  const out = smp(orig, patchPodSpec({ containers: [{ name: "c", image: "3" }, { $patch: "replace" }] }));
  assert.deepEqual(podSpecOf(out)["containers"], [{ name: "c", image: "3" }]);
});

void test("$patch: replace and delete in maps; the replace strategy on a map field", () => {
  const orig = deploy({ nodeSelector: { a: "1", b: "2" }, securityContext: { runAsUser: 1, fsGroup: 2 } });
  let out = smp(orig, patchPodSpec({ nodeSelector: { c: "3", $patch: "replace" } }));
  assert.deepEqual(podSpecOf(out)["nodeSelector"], { c: "3" });
  out = smp(orig, patchPodSpec({ nodeSelector: { $patch: "delete" } }));
  assert.deepEqual(podSpecOf(out)["nodeSelector"], {});
  out = smp(orig, patchPodSpec({ nodeSelector: { $patch: "merge", c: "3" } }));
  assert.deepEqual(podSpecOf(out)["nodeSelector"], { a: "1", b: "2", c: "3" });
  out = smp(orig, patchPodSpec({ securityContext: { runAsUser: 5 } }));
  assert.deepEqual(podSpecOf(out)["securityContext"], { runAsUser: 5 });
});

void test("lists without a merge strategy are replaced; null deletes", () => {
  const orig = deploy({ tolerations: [{ key: "a" }, { key: "b" }], containers: [{ name: "web", args: ["x", "y"] }] });
  const out = smp(
    orig,
    patchPodSpec({ tolerations: [{ key: "c" }], containers: [{ name: "web", args: ["z"] }], nodeSelector: null }),
  );
  assert.deepEqual(podSpecOf(out)["tolerations"], [{ key: "c" }]);
  assert.deepEqual((podSpecOf(out)["containers"] as Obj[])[0]!["args"], ["z"]);
  const out2 = smp(orig, { spec: { template: null } });
  assert.equal((out2["spec"] as Obj)["template"], undefined);
});

void test("$setElementOrder orders merged lists; server-only items keep their place", () => {
  const orig = deploy({ containers: [{ name: "a" }, { name: "b" }, { name: "c" }] });
  let out = smp(orig, patchPodSpec({ "$setElementOrder/containers": [{ name: "c" }, { name: "a" }, { name: "b" }] }));
  assert.deepEqual(names(podSpecOf(out)["containers"]), ["c", "a", "b"]);

  const orig2 = deploy({ containers: [{ name: "web" }] });
  out = smp(
    orig2,
    patchPodSpec({ "$setElementOrder/containers": [{ name: "web" }, { name: "sidecar" }], containers: [{ name: "sidecar", image: "s" }] }),
  );
  assert.deepEqual(podSpecOf(out)["containers"], [{ name: "web" }, { name: "sidecar", image: "s" }]);

  const orig3 = deploy({ containers: [{ name: "a" }, { name: "x" }, { name: "b" }] });
  out = smp(orig3, patchPodSpec({ "$setElementOrder/containers": [{ name: "b" }, { name: "a" }], containers: [{ name: "b", image: "n" }] }));
  assert.deepEqual(names(podSpecOf(out)["containers"]), ["x", "b", "a"]);
});

void test("a patch list that contradicts $setElementOrder is 400", () => {
  const orig = deploy({ containers: [{ name: "a" }, { name: "b" }] });
  fails(
    () => smp(orig, patchPodSpec({ "$setElementOrder/containers": [{ name: "a" }, { name: "b" }], containers: [{ name: "b" }, { name: "a" }] })),
    400,
    /doesn't match \$setElementOrder list/,
  );
});

void test("kubectl apply-like patch: image bump, env change and removal, order preserved", () => {
  const orig = deploy({
    containers: [
      { name: "web", image: "nginx:1.24", env: [{ name: "A", value: "1" }, { name: "B", value: "2" }, { name: "C", value: "0" }] },
      { name: "sidecar", image: "envoy" },
    ],
  });
  const patch = {
    metadata: { annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" } },
    spec: {
      template: {
        spec: {
          "$setElementOrder/containers": [{ name: "web" }, { name: "sidecar" }],
          containers: [
            {
              "$setElementOrder/env": [{ name: "A" }, { name: "C" }],
              env: [{ name: "C", value: "3" }, { $patch: "delete", name: "B" }],
              image: "nginx:1.25",
              name: "web",
            },
          ],
        },
      },
    },
  };
  const out = smp(orig, patch);
  assert.deepEqual(podSpecOf(out)["containers"], [
    { name: "web", image: "nginx:1.25", env: [{ name: "A", value: "1" }, { name: "C", value: "3" }] },
    { name: "sidecar", image: "envoy" },
  ]);
  assert.deepEqual(out["metadata"], {
    name: "web",
    namespace: "default",
    labels: { app: "web" },
    annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" },
  });
});

void test("$retainKeys clears unlisted keys (volume source switch, deployment strategy)", () => {
  const orig = deploy(
    { volumes: [{ name: "v", configMap: { name: "c" } }, { name: "w", emptyDir: {} }] },
    { strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } } },
  );
  const out = smp(orig, {
    spec: {
      strategy: { $retainKeys: ["type"], type: "Recreate" },
      template: { spec: { volumes: [{ $retainKeys: ["name", "secret"], name: "v", secret: { secretName: "s" } }] } },
    },
  });
  assert.deepEqual((out["spec"] as Obj)["strategy"], { type: "Recreate" });
  assert.deepEqual(podSpecOf(out)["volumes"], [{ name: "v", secret: { secretName: "s" } }, { name: "w", emptyDir: {} }]);
  fails(() => smp(orig, { spec: { strategy: { $retainKeys: ["type"], rollingUpdate: {} } } }), 422, /retainKeys/);
  fails(() => smp(orig, { spec: { strategy: { $retainKeys: "type" } } }), 400, /invalid patch format of retainKeys/);
});

void test("finalizers merge as a set and ownerReferences by uid, even without schema tags", () => {
  const orig = { metadata: { name: "x", finalizers: ["a", "b"], ownerReferences: [{ uid: "1", name: "o1", kind: "K", apiVersion: "v1" }] } };
  for (const schema of [undefined, { type: "object", properties: { metadata: { type: "object" } } } as JSONSchemaProps]) {
    const out = strategicMergePatch(
      orig,
      { metadata: { finalizers: ["c", "a"], ownerReferences: [{ uid: "2", name: "o2", kind: "K", apiVersion: "v1" }, { uid: "1", name: "o1b" }] } },
      schema,
    ) as Obj;
    const meta = out["metadata"] as Obj;
    assert.deepEqual(meta["finalizers"], ["c", "a", "b"]);
    assert.deepEqual(meta["ownerReferences"], [
      { uid: "2", name: "o2", kind: "K", apiVersion: "v1" },
      { uid: "1", name: "o1b", kind: "K", apiVersion: "v1" },
    ]);
  }
});

void test("$deleteFromPrimitiveList with $setElementOrder (kubectl removing a finalizer)", () => {
  const orig = { metadata: { finalizers: ["a", "b", "c"] } };
  const out = strategicMergePatch(
    orig,
    { metadata: { "$setElementOrder/finalizers": ["a", "c"], "$deleteFromPrimitiveList/finalizers": ["b"] } },
    undefined,
  ) as Obj;
  assert.deepEqual((out["metadata"] as Obj)["finalizers"], ["a", "c"]);
  const out2 = strategicMergePatch(orig, { metadata: { "$deleteFromPrimitiveList/missing": ["b"] } }, undefined) as Obj;
  assert.deepEqual(out2, orig);
  fails(() => strategicMergePatch(orig, { metadata: { "$deleteFromPrimitiveList/finalizers": "b" } }, undefined), 400, /primitive list/);
  fails(() => strategicMergePatch(orig, { metadata: { $deleteFromPrimitiveList: ["b"] } }, undefined), 400, /primitive list/);
});

void test("new fields are merged into nothing: no nulls or directives leak into the object", () => {
  const out = smp(deploy({}), {
    spec: {
      template: {
        spec: {
          containers: [{ name: "web", env: [{ name: "A", value: "1" }, { name: "B", $patch: "delete" }], image: null }],
          nodeSelector: { a: "1", b: null },
        },
      },
    },
  });
  assert.deepEqual(podSpecOf(out), { containers: [{ name: "web", env: [{ name: "A", value: "1" }] }], nodeSelector: { a: "1" } });
});

void test("type changes replace the value", () => {
  const out = smp({ spec: { replicas: "x", strategy: ["odd"] } }, { spec: { replicas: 3, strategy: { type: "Recreate" } } });
  assert.deepEqual(out, { spec: { replicas: 3, strategy: { type: "Recreate" } } });
});

void test("malformed patches", () => {
  const orig = deploy({ containers: [{ name: "web" }] });
  fails(() => smp(orig, [1]), 400, /must be a JSON object, got array/);
  fails(() => smp(orig, { $patch: "frobnicate" }), 400, /unknown patch type: "frobnicate"/);
  fails(() => smp(orig, patchPodSpec({ containers: [{ image: "x" }] })), 400, /does not contain declared merge key: name/);
  fails(() => smp(orig, patchPodSpec({ containers: [{ $patch: "delete" }] })), 400, /merge key/);
  fails(() => smp(orig, patchPodSpec({ containers: [{ name: "x", $patch: "bogus" }] })), 400, /unknown patch type/);
  fails(() => smp(orig, patchPodSpec({ containers: [["x"]] })), 422, /lists of lists/);
  fails(() => smp(orig, patchPodSpec({ containers: ["web"] })), 400, /not identical/);
});

void test("inputs are not modified", () => {
  const orig = deploy({ containers: [{ name: "web", env: [{ name: "A", value: "1" }] }] });
  const patch = patchPodSpec({ containers: [{ name: "web", env: [{ name: "A", $patch: "delete" }] }], $retainKeys: ["containers"] });
  const origCopy = structuredClone(orig);
  const patchCopy = structuredClone(patch);
  smp(orig, patch);
  assert.deepEqual(orig, origCopy);
  assert.deepEqual(patch, patchCopy);
});

void test("a top-level $patch: replace replaces the object; a missing original is empty", () => {
  assert.deepEqual(smp({ a: 1, b: 2 }, { $patch: "replace", c: 3 }), { c: 3 });
  assert.deepEqual(smp(undefined, { metadata: { name: "n" } }), { metadata: { name: "n" } });
});

// Results kube-apiserver's strategicpatch package produces for the same inputs (its test vectors).
void test("ordering and directive results match kube-apiserver", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: {
      mergingList: mergeBy("name", { type: "object" }),
      mergingIntList: { type: "array", items: { type: "integer" }, "x-kubernetes-patch-strategy": "merge" },
    },
  };
  const n = (...xs: (number | Obj)[]): Obj[] => xs.map((x) => (typeof x === "number" ? { name: x } : x));
  const cases: [string, Obj, Obj, Obj][] = [
    ["unique scalars", { mergingIntList: [1, 2] }, { mergingIntList: [2, 3] }, { mergingIntList: [1, 2, 3] }],
    ["scalar patch order wins", { mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1] }, { mergingIntList: [2, 3, 1] }],
    [
      "patch order wins for named items",
      { mergingList: n(1, { name: 2, value: "b" }, 3) },
      { mergingList: n({ name: 3, value: "c" }, { name: 1, value: "a" }) },
      { mergingList: n({ name: 2, value: "b" }, { name: 3, value: "c" }, { name: 1, value: "a" }) },
    ],
    [
      "delete removes every duplicate",
      { mergingList: n(1, 1, { name: 2, value: "a" }, 3, 3) },
      { mergingList: [{ name: 1, $patch: "delete" }, { name: 3, $patch: "delete" }] },
      { mergingList: n({ name: 2, value: "a" }) },
    ],
    ["replace with nothing", { mergingList: n(1, 2) }, { mergingList: [{ $patch: "replace" }] }, { mergingList: [] }],
    [
      "$setElementOrder with server-only items",
      { mergingList: n({ name: 1, other: "a" }, { name: 2, value: 2 }, 7, 9, 8, { name: 3, value: 3 }, { name: 4, value: 4 }) },
      { "$setElementOrder/mergingList": n(2, 1, 4, 3) },
      { mergingList: n({ name: 2, value: 2 }, { name: 1, other: "a" }, 7, 9, 8, { name: 4, value: 4 }, { name: 3, value: 3 }) },
    ],
    [
      "$setElementOrder with additions",
      { mergingList: n({ name: 1, other: "a" }, { name: 2, value: 2, other: "b" }) },
      { "$setElementOrder/mergingList": n(1, 4, 2, 3), mergingList: n({ name: 4, value: 4 }, { name: 3, value: 3 }) },
      { mergingList: n({ name: 1, other: "a" }, { name: 4, value: 4 }, { name: 2, value: 2, other: "b" }, { name: 3, value: 3 }) },
    ],
    [
      "$setElementOrder naming an absent item",
      { mergingIntList: [1, 3] },
      { "$setElementOrder/mergingIntList": [3, 2, 1] },
      { mergingIntList: [3, 1] },
    ],
    [
      "scalar add and delete with order",
      { mergingIntList: [1, 2, 3] },
      { "$setElementOrder/mergingIntList": [4, 2, 1], mergingIntList: [4], "$deleteFromPrimitiveList/mergingIntList": [3] },
      { mergingIntList: [4, 2, 1] },
    ],
    [
      "duplicates keep together",
      { mergingIntList: [1, 2, 3, 2, 4] },
      { "$setElementOrder/mergingIntList": [2, 1, 4, 3, 2] },
      { mergingIntList: [2, 2, 1, 4, 3] },
    ],
  ];
  for (const [name, original, patch, want] of cases) {
    assert.deepEqual(strategicMergePatch(original, patch, schema), want, name);
  }
});
