import assert from "node:assert/strict";
import { test } from "node:test";
import { labelHash } from "./service.ts";

test("the Terminal label hashes are upstream's: npm object-hash of the string (values computed with object-hash 3)", () => {
  assert.equal(labelHash("local-member"), "24b4d780fd5cf0a176f358055340b808bf7c54e3");
  // The length is counted in UTF-16 code units, as JavaScript's String length.
  assert.equal(labelHash("système:é"), "b8b65b8216deeb97b367503e160b095d3ab724d6");
});
