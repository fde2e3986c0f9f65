import assert from "node:assert/strict";
import { it } from "node:test";
import { isEmptyValue } from "./guards.ts";

void it("isEmptyValue: what a stored object drops (omitempty), and nothing else", () => {
  for (const v of [undefined, null, "", [], {}]) assert.equal(isEmptyValue(v), true, JSON.stringify(v));
  for (const v of [0, false, " ", [0], { a: undefined }, { a: 1 }, "x"]) assert.equal(isEmptyValue(v), false, JSON.stringify(v));
});
