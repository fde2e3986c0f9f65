import { test } from "node:test";
import assert from "node:assert/strict";
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
} from "./validation.ts";

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

void test("DNS-1123 subdomain: valid names", () => {
  for (const v of ["a", "example.com", "a-b.c-d", "0", "1.2.3", "x".repeat(253)]) assert.deepEqual(isDNS1123Subdomain(v), [], v);
});

void test("DNS-1123 subdomain: message is identical to Kubernetes'", () => {
  assert.deepEqual(isDNS1123Subdomain("Foo"), [SUBDOMAIN_MSG]);
  for (const v of ["", "-a", "a-", "a..b", ".a", "a_b", "a/b"]) assert.deepEqual(isDNS1123Subdomain(v), [SUBDOMAIN_MSG], v);
  assert.deepEqual(isDNS1123Subdomain("x".repeat(254)), ["must be no more than 253 characters"]);
});

void test("DNS-1123 label: dots get their own message", () => {
  assert.deepEqual(isDNS1123Label("my-ns"), []);
  assert.deepEqual(isDNS1123Label("a.b"), ["must not contain dots"]);
  assert.deepEqual(isDNS1123Label("A"), [
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
  assert.deepEqual(isDNS1123Label("x".repeat(64)), ["must be no more than 63 characters"]);
});

void test("DNS-1035 label must start with a letter", () => {
  assert.deepEqual(isDNS1035Label("abc-1"), []);
  assert.equal(isDNS1035Label("1abc").length, 1);
  assert.match(isDNS1035Label("1abc")[0]!, /^a DNS-1035 label must consist of .*\(e\.g\. 'my-name', or 'abc-123', regex/);
});

void test("qualified names: prefix and name parts", () => {
  for (const v of ["a", "MyName", "my.name", "123-abc", "example.com/MyName", "k8s.io/a_b", "x".repeat(63)]) {
    assert.deepEqual(isQualifiedName(v), [], v);
  }
  assert.deepEqual(isQualifiedName("/a"), ["prefix part must be non-empty"]);
  assert.deepEqual(isQualifiedName("a/"), [
    "name part must be non-empty",
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
  assert.deepEqual(isQualifiedName("Example.com/a"), [`prefix part ${SUBDOMAIN_MSG}`]);
  assert.deepEqual(isQualifiedName("x".repeat(64)), ["name part must be no more than 63 characters"]);
  const three = isQualifiedName("a/b/c");
  assert.equal(three.length, 1);
  assert.match(three[0]!, /^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/);
  assert.equal(isQualifiedName("-a").length, 1);
});

void test("label values: empty allowed, 63 characters max", () => {
  for (const v of ["", "a", "MyValue", "my_value", "12345", "a.b-c_d", "x".repeat(63)]) assert.deepEqual(isValidLabelValue(v), [], v);
  assert.deepEqual(isValidLabelValue("x".repeat(64)), ["must be no more than 63 characters"]);
  assert.deepEqual(isValidLabelValue("-a"), [
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  ]);
  assert.equal(isValidLabelValue("a b").length, 1);
  // Multi-byte characters count as bytes, as in Go.
  assert.deepEqual(isValidLabelValue("é".repeat(32)).includes("must be no more than 63 characters"), true);
});

void test("path segment names", () => {
  assert.deepEqual(isValidPathSegmentName("ok"), []);
  assert.deepEqual(isValidPathSegmentName(".."), ["may not be '..'"]);
  assert.deepEqual(isValidPathSegmentName("a/b%c"), ["may not contain '/'", "may not contain '%'"]);
});
