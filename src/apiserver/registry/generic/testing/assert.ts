// Test support: assert that a promise rejects with a StatusError of the given code and reason.
import assert from "node:assert/strict";
import { StatusError } from "../../../../apimachinery/errors.ts";

export async function rejects(p: Promise<unknown>, code: number, reason: string, message?: string | RegExp): Promise<StatusError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof StatusError, `expected a StatusError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  assert.equal(caught.reason, reason, caught.message);
  if (typeof message === "string") assert.equal(caught.message, message);
  else if (message) assert.match(caught.message, message);
  return caught;
}
