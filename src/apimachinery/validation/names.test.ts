import { test } from "node:test";
import assert from "node:assert/strict";
import { maskTrailingDash, nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain, validateNamespaceName, validatePathSegmentName } from "./names.ts";

void test("prefixes may end with a dash", () => {
  assert.deepEqual(nameIsDNSSubdomain("web-", true), []);
  assert.equal(nameIsDNSSubdomain("web-", false).length, 1);
  assert.deepEqual(nameIsDNSLabel("ns-", true), []);
  assert.deepEqual(nameIsDNS1035Label("svc-", true), []);
  assert.equal(nameIsDNS1035Label("1svc", false).length, 1);
});

void test("maskTrailingDash keeps Go's quirk", () => {
  assert.equal(maskTrailingDash("abc-"), "aba");
  assert.equal(maskTrailingDash("-"), "-");
  assert.equal(maskTrailingDash("abc"), "abc");
  // "a.-" masks to "aa": the last two characters are replaced, so the dot disappears.
  assert.deepEqual(nameIsDNSSubdomain("a.-", true), []);
});

void test("namespaces are DNS-1123 labels", () => {
  assert.deepEqual(validateNamespaceName("kube-system", false), []);
  assert.deepEqual(validateNamespaceName("a.b", false), ["must not contain dots"]);
});

void test("path segment names", () => {
  assert.deepEqual(validatePathSegmentName("..", false), ["may not be '..'"]);
  assert.deepEqual(validatePathSegmentName("a%b", false), ["may not contain '%'"]);
  assert.deepEqual(validatePathSegmentName("a/", true), []);
});
