import { test } from "node:test";
import assert from "node:assert/strict";
import type { ObjectMeta } from "../../apis/meta/v1/types.ts";
import { formatFieldErrors } from "../field/errors.ts";
import { newInvalid } from "../errors.ts";
import {
  TOTAL_ANNOTATION_SIZE_LIMIT_B,
  validateFieldManager,
  validateObjectMetaCreate,
  validateObjectMetaUpdate,
} from "./objectmeta.ts";
import { nameIsDNSLabel } from "./names.ts";
import { Path } from "../field/errors.ts";

const ns = { namespaced: true };
const cluster = { namespaced: false };
const text = (meta: ObjectMeta, opts = ns): string => formatFieldErrors(validateObjectMetaCreate(meta, opts));

void test("a valid object has no errors", () => {
  assert.deepEqual(
    validateObjectMetaCreate(
      {
        name: "web-1.example",
        namespace: "default",
        labels: { app: "web", "example.com/tier": "" },
        annotations: { "Example.com/Note": "anything at all" },
        finalizers: ["example.com/cleanup"],
        ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u1", controller: true }],
        managedFields: [{ manager: "kubectl-client-side-apply", operation: "Update", fieldsType: "FieldsV1" }],
      },
      ns,
    ),
    [],
  );
});

void test("name or generateName is required", () => {
  assert.equal(text({ namespace: "default" }), "metadata.name: Required value: name or generateName is required");
  assert.deepEqual(validateObjectMetaCreate({ generateName: "web-", namespace: "default" }, ns), []);
});

void test("names use Kubernetes' messages; the kind's validator is pluggable", () => {
  assert.equal(
    text({ name: "Web", namespace: "default" }),
    `metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  );
  assert.equal(validateObjectMetaCreate({ name: "a.b" }, { namespaced: false, nameValidator: nameIsDNSLabel })[0]!.detail, "must not contain dots");
  const errs = validateObjectMetaCreate({ generateName: "Bad-" }, cluster);
  assert.equal(errs.length, 1);
  assert.equal(errs[0]!.field, "metadata.generateName");
  const permissive = validateObjectMetaCreate({ name: ".." }, { namespaced: false, nameValidator: () => [] });
  assert.equal(formatFieldErrors(permissive), `metadata.name: Invalid value: "..": may not be '..'`);
});

void test("namespace rules depend on the scope", () => {
  assert.equal(text({ name: "a" }), "metadata.namespace: Required value");
  assert.equal(text({ name: "a", namespace: "x" }, cluster), "metadata.namespace: Forbidden: not allowed on this type");
  assert.equal(text({ name: "a", namespace: "a.b" }), `metadata.namespace: Invalid value: "a.b": must not contain dots`);
  assert.deepEqual(validateObjectMetaCreate({ name: "a" }, cluster), []);
});

void test("labels: keys are qualified names, values label values", () => {
  const errs = validateObjectMetaCreate({ name: "a", labels: { "bad key": "v", ok: "-bad" } }, cluster);
  assert.deepEqual(
    errs.map((e) => [e.field, e.value]),
    [
      ["metadata.labels", "bad key"],
      ["metadata.labels", "-bad"],
    ],
  );
  const typed = validateObjectMetaCreate({ name: "a", labels: { n: 5 as unknown as string } }, cluster);
  assert.equal(typed[0]!.type, "FieldValueTypeInvalid");
  assert.equal(typed[0]!.field, "metadata.labels[n]");
});

void test("annotations: case-insensitive keys, 256 KiB total", () => {
  assert.deepEqual(validateObjectMetaCreate({ name: "a", annotations: { "A.B/C": "x" } }, cluster), []);
  const big = "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT_B);
  const errs = validateObjectMetaCreate({ name: "a", annotations: { k: big } }, cluster);
  assert.equal(formatFieldErrors(errs), "metadata.annotations: Too long: may not be more than 262144 bytes");
  // Keys count too: 1 + 262143 bytes is exactly the limit.
  assert.deepEqual(validateObjectMetaCreate({ name: "a", annotations: { k: big.slice(1) } }, cluster), []);
});

void test("finalizers and owner references", () => {
  assert.equal(
    text({ name: "a", finalizers: ["orphan", "foregroundDeletion"] }, cluster),
    `metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set`,
  );
  assert.match(text({ name: "a", finalizers: ["a/b/c"] }, cluster), /^metadata\.finalizers: Invalid value: "a\/b\/c": a qualified name/);
  const refs = validateObjectMetaCreate(
    {
      name: "a",
      ownerReferences: [
        { apiVersion: "", kind: "", name: "", uid: "" },
        { apiVersion: "v1", kind: "Event", name: "e", uid: "1" },
        { apiVersion: "v1", kind: "A", name: "a", uid: "2", controller: true },
        { apiVersion: "v1", kind: "B", name: "b", uid: "3", controller: true },
      ],
    },
    cluster,
  );
  assert.deepEqual(
    refs.map((e) => `${e.field}: ${e.detail}`),
    [
      "metadata.ownerReferences.apiVersion: version must not be empty",
      "metadata.ownerReferences.kind: kind must not be empty",
      "metadata.ownerReferences.name: name must not be empty",
      "metadata.ownerReferences.uid: uid must not be empty",
      "metadata.ownerReferences: /v1, Kind=Event is disallowed from being an owner",
      'metadata.ownerReferences: Only one reference can have Controller set to true. Found "true" in references for A/a and B/b',
    ],
  );
});

void test("negative generation and bad managedFields", () => {
  assert.equal(text({ name: "a", generation: -1 }, cluster), "metadata.generation: Invalid value: -1: must be greater than or equal to 0");
  const errs = validateObjectMetaCreate({ name: "a", managedFields: [{ manager: "m", operation: "Patch", fieldsType: "FieldsV2" }] }, cluster);
  assert.deepEqual(
    errs.map((e) => `${e.field}: ${e.detail}`),
    ["metadata.managedFields[0].operation: must be `Apply` or `Update`", "metadata.managedFields[0].fieldsType: must be `FieldsV1`"],
  );
  assert.deepEqual(validateFieldManager("kubectl-edit", Path.root("fieldManager")), []);
  assert.equal(validateFieldManager("a\u0007", Path.root("f"))[0]!.detail, "invalid character U+0007 (at position 1)");
  assert.equal(validateFieldManager("x".repeat(129), Path.root("f"))[0]!.type, "FieldValueTooLong");
  // The limit is in UTF-8 bytes: 64 two-byte or 32 four-byte characters fit, one more does not.
  assert.deepEqual(validateFieldManager("é".repeat(64), Path.root("f")), []);
  assert.equal(validateFieldManager("é".repeat(65), Path.root("f"))[0]!.type, "FieldValueTooLong");
  assert.deepEqual(validateFieldManager("😀".repeat(32), Path.root("f")), []);
  assert.equal(validateFieldManager("😀".repeat(33), Path.root("f"))[0]!.type, "FieldValueTooLong");
});

const stored: ObjectMeta = {
  name: "a",
  namespace: "default",
  uid: "u1",
  resourceVersion: "5",
  generation: 2,
  creationTimestamp: "2024-01-01T00:00:00Z",
  finalizers: ["example.com/f"],
};

void test("update: identity and timestamps are immutable", () => {
  const errs = validateObjectMetaUpdate(
    { ...stored, name: "b", namespace: "other", uid: "u2", creationTimestamp: "2025-01-01T00:00:00Z" },
    stored,
    ns,
  );
  assert.deepEqual(
    errs.map((e) => `${e.field}: ${String(e.value)}: ${e.detail}`),
    [
      "metadata.name: b: field is immutable",
      "metadata.namespace: other: field is immutable",
      "metadata.uid: u2: field is immutable",
      "metadata.creationTimestamp: 2025-01-01T00:00:00Z: field is immutable",
    ],
  );
  assert.deepEqual(validateObjectMetaUpdate({ ...stored, creationTimestamp: "2024-01-01T00:00:00.000Z" }, stored, ns), []);
  assert.equal(validateObjectMetaUpdate({ ...stored, deletionTimestamp: "2024-02-01T00:00:00Z" }, stored, ns)[0]!.field, "metadata.deletionTimestamp");
  assert.equal(
    validateObjectMetaUpdate({ ...stored, deletionGracePeriodSeconds: 0 }, stored, ns)[0]!.field,
    "metadata.deletionGracePeriodSeconds",
  );
});

void test("update: no new finalizers while the object is being deleted", () => {
  const deleting = { ...stored, deletionTimestamp: "2024-02-01T00:00:00Z", deletionGracePeriodSeconds: 0 };
  const errs = validateObjectMetaUpdate({ ...deleting, finalizers: ["example.com/f", "b.io/x", "a.io/y"] }, deleting, ns);
  assert.equal(
    formatFieldErrors(errs),
    'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a.io/y", "b.io/x"}',
  );
  assert.deepEqual(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting, ns), []);
  assert.deepEqual(validateObjectMetaUpdate({ ...stored, finalizers: ["example.com/f", "b.io/x"] }, stored, ns), []);
});

void test("update: generation, resourceVersion and mutable fields", () => {
  assert.equal(validateObjectMetaUpdate({ ...stored, generation: 1 }, stored, ns)[0]!.detail, "must not be decremented");
  assert.deepEqual(validateObjectMetaUpdate({ ...stored, resourceVersion: undefined }, stored, ns), []);
  assert.equal(
    formatFieldErrors(validateObjectMetaUpdate({ ...stored, resourceVersion: "" }, stored, { ...ns, requireResourceVersion: true })),
    'metadata.resourceVersion: Invalid value: "": must be specified for an update',
  );
  assert.equal(validateObjectMetaUpdate({ ...stored, labels: { a: "-" } }, stored, ns)[0]!.field, "metadata.labels");
  assert.equal(validateObjectMetaUpdate({ ...stored, finalizers: ["a/b/c"] }, stored, ns)[0]!.field, "metadata.finalizers");
});

void test("errors turn into a 422 Invalid Status", () => {
  const err = newInvalid({ group: "", kind: "ConfigMap" }, "", validateObjectMetaCreate({ namespace: "default" }, ns));
  assert.equal(err.code, 422);
  assert.equal(err.message, 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
});
