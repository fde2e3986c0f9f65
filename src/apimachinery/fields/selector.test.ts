import { test } from "node:test";
import assert from "node:assert/strict";
import { StatusError } from "../errors.ts";
import {
  checkKnownFields,
  escapeValue,
  fieldSelectorFromSet,
  fieldSelectorToString,
  isEverythingFields,
  matchesFields,
  objectFieldGetter,
  parseFieldSelector,
  requirementsOf,
  singleNameOf,
  unescapeValue,
} from "./selector.ts";

function badRequest(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 400);
    assert.equal(err.reason, "BadRequest");
    assert.equal(err.message, message);
    return true;
  });
}

const pod = { metadata: { name: "web-1", namespace: "default" }, spec: { nodeName: "n1", replicas: 3 }, status: { phase: "Running" } };
const get = objectFieldGetter(pod);

void test("=, == and != with AND semantics", () => {
  assert.equal(matchesFields(parseFieldSelector("metadata.name=web-1"), get), true);
  assert.equal(matchesFields(parseFieldSelector("metadata.name==web-1"), get), true);
  assert.equal(matchesFields(parseFieldSelector("metadata.name!=web-1"), get), false);
  assert.equal(matchesFields(parseFieldSelector("metadata.name=web-1,metadata.namespace=default"), get), true);
  assert.equal(matchesFields(parseFieldSelector("metadata.name=web-1,metadata.namespace=kube-system"), get), false);
  assert.equal(matchesFields(parseFieldSelector("spec.replicas=3"), get), true);
});

void test("missing fields compare as the empty string", () => {
  assert.equal(matchesFields(parseFieldSelector("spec.missing="), get), true);
  assert.equal(matchesFields(parseFieldSelector("spec.missing!=x"), get), true);
  assert.equal(matchesFields(parseFieldSelector("spec.missing=x"), get), false);
  assert.equal(matchesFields(parseFieldSelector("metadata.constructor="), get), true);
});

void test("empty selector and empty terms", () => {
  assert.ok(isEverythingFields(parseFieldSelector("")));
  assert.ok(isEverythingFields(parseFieldSelector(",")));
  assert.equal(requirementsOf(parseFieldSelector("a=b,,c=d")).length, 2);
});

void test("escaped commas, equals and backslashes in values", () => {
  const s = parseFieldSelector("metadata.name=a\\,b\\=c\\\\d,metadata.namespace=x");
  assert.deepEqual(requirementsOf(s), [
    { field: "metadata.name", operator: "=", value: "a,b=c\\d" },
    { field: "metadata.namespace", operator: "=", value: "x" },
  ]);
  assert.equal(matchesFields(s, objectFieldGetter({ metadata: { name: "a,b=c\\d", namespace: "x" } })), true);
  assert.equal(fieldSelectorToString(s), "metadata.name=a\\,b\\=c\\\\d,metadata.namespace=x");
  assert.equal(escapeValue("a,b=c\\"), "a\\,b\\=c\\\\");
  assert.equal(unescapeValue(escapeValue("x=,\\y")), "x=,\\y");
});

void test("the first operator splits the term; == leaves no = in the value", () => {
  assert.deepEqual(requirementsOf(parseFieldSelector("a==b")), [{ field: "a", operator: "==", value: "b" }]);
  assert.deepEqual(requirementsOf(parseFieldSelector("a!=b")), [{ field: "a", operator: "!=", value: "b" }]);
  assert.deepEqual(requirementsOf(parseFieldSelector("a!b=c")), [{ field: "a!b", operator: "=", value: "c" }]);
});

void test("malformed selectors are 400 with Go's messages", () => {
  badRequest(() => parseFieldSelector("metadata.name"), "invalid selector: 'metadata.name'; can't understand 'metadata.name'");
  badRequest(() => parseFieldSelector("a=b,c"), "invalid selector: 'a=b,c'; can't understand 'c'");
  badRequest(() => parseFieldSelector("a=b=c"), "invalid field selector: unescaped character in value: =");
  badRequest(() => parseFieldSelector("a=b\\x"), "invalid field selector: invalid escape sequence: \\x");
  badRequest(() => parseFieldSelector("a=b\\"), "invalid field selector: invalid escape sequence: \\");
});

void test("terms are sorted; toString is canonical", () => {
  const s = parseFieldSelector("z=1,a==2,m!=3");
  assert.equal(fieldSelectorToString(s), "a=2,m!=3,z=1");
  assert.equal(fieldSelectorToString(fieldSelectorFromSet({ b: "x,y", a: "1" })), "a=1,b=x\\,y");
});

void test("singleNameOf finds metadata.name=n only", () => {
  assert.equal(singleNameOf(parseFieldSelector("metadata.name=foo")), "foo");
  assert.equal(singleNameOf(parseFieldSelector("metadata.namespace=ns,metadata.name==foo")), "foo");
  assert.equal(singleNameOf(parseFieldSelector("metadata.name!=foo")), undefined);
  assert.equal(singleNameOf(parseFieldSelector("")), undefined);
});

void test("checkKnownFields rejects unknown fields with Kubernetes' message", () => {
  const known = ["metadata.name", "metadata.namespace"];
  checkKnownFields(parseFieldSelector("metadata.name=a,metadata.namespace!=b"), known);
  badRequest(
    () => checkKnownFields(parseFieldSelector("spec.nodeName=n1"), known),
    '"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"',
  );
});

void test("objectFieldGetter walks own properties only", () => {
  assert.equal(get("metadata.name"), "web-1");
  assert.equal(get("status.phase"), "Running");
  assert.equal(get("metadata"), JSON.stringify(pod.metadata));
  assert.equal(get("metadata.name.length"), undefined);
  assert.equal(get("toString"), undefined);
});
