import { test } from "node:test";
import assert from "node:assert/strict";
import { duplicateFields } from "./duplicates.ts";

test("reports duplicate keys with their field paths, at any depth", () => {
  assert.deepEqual(duplicateFields('{"data":{"a":"1","a":"2"}}'), ["data.a"]);
  assert.deepEqual(duplicateFields('{"kind":"X","kind":"Y","spec":{"items":[{"n":1},{"n":2,"n":3}]}}'), ["kind", "spec.items[1].n"]);
});

test("finds nothing in JSON without duplicates, including escaped quotes and nested empties", () => {
  assert.deepEqual(duplicateFields('{"a":"x\\"}","b":[[],{}],"c":{"a":null,"b":-1.5e3},"d":true}'), []);
  assert.deepEqual(duplicateFields(' [1, {"a":1}, "s"] '), []);
});

test("keys that differ only after unescaping count as duplicates", () => {
  assert.deepEqual(duplicateFields('{"a":1,"\\u0061":2}'), ["a"]);
});
