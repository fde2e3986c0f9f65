import { test } from "node:test";
import assert from "node:assert/strict";
import { StatusError } from "../errors.ts";
import { MAX_JSON_PATCH_OPERATIONS, applyJsonPatch, parsePointer } from "./json-patch.ts";

function fails(fn: () => unknown, code: number, reason: string, message?: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof StatusError, String(err));
    assert.equal(err.code, code);
    assert.equal(err.reason, reason);
    if (message) assert.match(err.message, message);
    return true;
  });
}

void test("RFC 6902 appendix A examples", () => {
  assert.deepEqual(applyJsonPatch({ foo: "bar" }, [{ op: "add", path: "/baz", value: "qux" }]), { foo: "bar", baz: "qux" });
  assert.deepEqual(applyJsonPatch({ foo: ["bar", "baz"] }, [{ op: "add", path: "/foo/1", value: "qux" }]), {
    foo: ["bar", "qux", "baz"],
  });
  assert.deepEqual(applyJsonPatch({ baz: "qux", foo: "bar" }, [{ op: "remove", path: "/baz" }]), { foo: "bar" });
  assert.deepEqual(applyJsonPatch({ foo: ["bar", "qux", "baz"] }, [{ op: "remove", path: "/foo/1" }]), { foo: ["bar", "baz"] });
  assert.deepEqual(applyJsonPatch({ baz: "qux", foo: "bar" }, [{ op: "replace", path: "/baz", value: "boo" }]), {
    baz: "boo",
    foo: "bar",
  });
  assert.deepEqual(
    applyJsonPatch({ foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } }, [
      { op: "move", from: "/foo/waldo", path: "/qux/thud" },
    ]),
    { foo: { bar: "baz" }, qux: { corge: "grault", thud: "fred" } },
  );
  assert.deepEqual(applyJsonPatch({ foo: ["all", "grass", "cows", "eat"] }, [{ op: "move", from: "/foo/1", path: "/foo/3" }]), {
    foo: ["all", "cows", "eat", "grass"],
  });
  assert.deepEqual(applyJsonPatch({ foo: ["bar"] }, [{ op: "add", path: "/foo/-", value: ["abc", "def"] }]), {
    foo: ["bar", ["abc", "def"]],
  });
  assert.deepEqual(applyJsonPatch({ "/": 9, "~1": 10 }, [{ op: "test", path: "/~01", value: 10 }]), { "/": 9, "~1": 10 });
});

void test("test compares structurally", () => {
  const doc = { baz: "qux", foo: ["a", 2, "c"], o: { x: 1, y: [1] } };
  assert.deepEqual(
    applyJsonPatch(doc, [
      { op: "test", path: "/baz", value: "qux" },
      { op: "test", path: "/foo/1", value: 2 },
      { op: "test", path: "/o", value: { y: [1], x: 1 } },
    ]),
    doc,
  );
  fails(() => applyJsonPatch(doc, [{ op: "test", path: "/baz", value: "bar" }]), 422, "Invalid", /test failed/);
  fails(() => applyJsonPatch(doc, [{ op: "test", path: "/foo/1", value: "2" }]), 422, "Invalid");
  fails(() => applyJsonPatch(doc, [{ op: "test", path: "/o", value: { x: 1 } }]), 422, "Invalid");
});

void test("test with null on a missing member passes, as in kube-apiserver", () => {
  assert.deepEqual(applyJsonPatch({ a: {} }, [{ op: "test", path: "/a/b", value: null }]), { a: {} });
  fails(() => applyJsonPatch({ a: {} }, [{ op: "test", path: "/x/b", value: null }]), 422, "Invalid");
  fails(() => applyJsonPatch({ a: {} }, [{ op: "test", path: "/a/b", value: 1 }]), 422, "Invalid", /does not exist/);
});

void test("copy, and the document root", () => {
  assert.deepEqual(applyJsonPatch({ a: { b: [1] } }, [{ op: "copy", from: "/a", path: "/c" }]), { a: { b: [1] }, c: { b: [1] } });
  assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: "replace", path: "", value: { b: 2 } }]), { b: 2 });
  assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: "add", path: "", value: [1] }]), [1]);
  fails(() => applyJsonPatch({ a: 1 }, [{ op: "remove", path: "" }]), 422, "Invalid");
});

void test("copies are independent of the source and of the patch", () => {
  const doc = { a: { b: 1 } };
  const value = { deep: { x: 1 } };
  const patch = [
    { op: "add", path: "/v", value },
    { op: "copy", from: "/a", path: "/c" },
    { op: "replace", path: "/c/b", value: 2 },
    { op: "replace", path: "/v/deep/x", value: 5 },
  ];
  const out = applyJsonPatch(doc, patch);
  assert.deepEqual(out, { a: { b: 1 }, c: { b: 2 }, v: { deep: { x: 5 } } });
  assert.deepEqual(doc, { a: { b: 1 } });
  assert.deepEqual(value, { deep: { x: 1 } });
});

void test("operations are atomic: a failure leaves the input untouched", () => {
  const doc = { a: 1 };
  fails(() => applyJsonPatch(doc, [{ op: "add", path: "/b", value: 2 }, { op: "remove", path: "/zzz" }]), 422, "Invalid");
  assert.deepEqual(doc, { a: 1 });
});

void test("missing paths and bad indices are 422", () => {
  fails(() => applyJsonPatch({}, [{ op: "replace", path: "/spec/replicas", value: 3 }]), 422, "Invalid", /^JSON patch operation 0 \(replace "\/spec\/replicas"\) cannot be applied:/);
  fails(() => applyJsonPatch({ a: {} }, [{ op: "replace", path: "/a/b", value: 3 }]), 422, "Invalid", /does not exist/);
  fails(() => applyJsonPatch({}, [{ op: "add", path: "/a/b", value: 1 }]), 422, "Invalid", /parent/);
  fails(() => applyJsonPatch({ l: [1] }, [{ op: "add", path: "/l/2", value: 1 }]), 422, "Invalid", /out of bounds/);
  fails(() => applyJsonPatch({ l: [1] }, [{ op: "add", path: "/l/01", value: 1 }]), 422, "Invalid");
  fails(() => applyJsonPatch({ l: [1] }, [{ op: "remove", path: "/l/1" }]), 422, "Invalid");
  fails(() => applyJsonPatch({ l: [1] }, [{ op: "remove", path: "/l/-" }]), 422, "Invalid");
  fails(() => applyJsonPatch({ a: "s" }, [{ op: "add", path: "/a/b", value: 1 }]), 422, "Invalid");
  fails(() => applyJsonPatch({ a: { b: 1 } }, [{ op: "move", from: "/a", path: "/a/b/c" }]), 422, "Invalid", /children/);
  fails(() => applyJsonPatch({}, [{ op: "copy", from: "/x", path: "/y" }]), 422, "Invalid");
});

void test("malformed operations are 422; malformed bodies are 400", () => {
  fails(() => applyJsonPatch({}, [{ op: "frobnicate", path: "/a" }]), 422, "Invalid", /unknown op "frobnicate"/);
  fails(() => applyJsonPatch({}, [{ op: "add", value: 1 }]), 422, "Invalid", /"path" must be a string/);
  fails(() => applyJsonPatch({}, [{ op: "add", path: "/a" }]), 422, "Invalid", /"value" is required/);
  fails(() => applyJsonPatch({}, [{ op: "move", path: "/a" }]), 422, "Invalid", /"from"/);
  fails(() => applyJsonPatch({}, [{ op: "add", path: "a", value: 1 }]), 422, "Invalid", /JSON pointer/);
  fails(() => applyJsonPatch({}, { op: "add", path: "/a", value: 1 }), 400, "BadRequest", /JSON array of operations, got object/);
  fails(() => applyJsonPatch({}, ["add"]), 400, "BadRequest", /operation 0 must be a JSON object/);
  fails(() => applyJsonPatch({}, null), 400, "BadRequest");
});

void test("more than 10000 operations is 413", () => {
  const ok = Array.from({ length: MAX_JSON_PATCH_OPERATIONS }, () => ({ op: "test", path: "", value: {} }));
  assert.deepEqual(applyJsonPatch({}, ok), {});
  fails(
    () => applyJsonPatch({}, [...ok, { op: "test", path: "", value: {} }]),
    413,
    "RequestEntityTooLarge",
    /^The allowed maximum operations in a JSON patch is 10000, got 10001$/,
  );
});

void test("keys such as __proto__ are ordinary members", () => {
  const out = applyJsonPatch({}, [{ op: "add", path: "/__proto__", value: { polluted: true } }]) as Record<string, unknown>;
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  assert.ok(Object.hasOwn(out, "__proto__"));
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  fails(() => applyJsonPatch({}, [{ op: "replace", path: "/constructor", value: 1 }]), 422, "Invalid");
});

void test("pointer parsing", () => {
  assert.deepEqual(parsePointer(""), []);
  assert.deepEqual(parsePointer("/"), [""]);
  assert.deepEqual(parsePointer("/a~1b/c~0d/~01"), ["a/b", "c~d", "~1"]);
  assert.throws(() => parsePointer("/a~2"));
});
