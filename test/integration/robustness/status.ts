// Assertions on error answers: every failure must be a JSON `Status` with the right code.
import assert from "node:assert/strict";
import type { Status } from "../../../src/apis/meta/v1/types.ts";
import type { RawResponse } from "../../support/http.ts";

/** Asserts `res` is an error Status with HTTP `code` (and `reason` when given); returns it. */
export function expectStatus(res: RawResponse, code: number, reason?: string, what = ""): Status {
  const ctx = `${what} -> ${res.status} ${res.body.slice(0, 600)}`;
  assert.equal(res.status, code, `expected ${code}: ${ctx}`);
  return expectStatusBody(res, reason, ctx);
}

/** Asserts `res` is a 4xx error Status; returns it. */
export function expectClientError(res: RawResponse, what = ""): Status {
  const ctx = `${what} -> ${res.status} ${res.body.slice(0, 600)}`;
  assert.ok(res.status >= 400 && res.status < 500, `expected a 4xx answer: ${ctx}`);
  return expectStatusBody(res, undefined, ctx);
}

function expectStatusBody(res: RawResponse, reason: string | undefined, ctx: string): Status {
  const type = String(res.headers["content-type"] ?? "");
  assert.match(type, /^application\/json\b/, `Content-Type must be application/json: ${ctx}`);
  const body = res.json<Status>();
  assert.equal(body.kind, "Status", ctx);
  assert.equal(body.apiVersion, "v1", ctx);
  assert.equal(body.status, "Failure", ctx);
  assert.equal(body.code, res.status, ctx);
  assert.ok(typeof body.message === "string" && body.message.length > 0, `Status needs a message: ${ctx}`);
  assert.doesNotMatch(body.message ?? "", /\n\s+at .+:\d+:\d+/, `a stack trace leaked into the message: ${ctx}`);
  if (reason !== undefined) assert.equal(body.reason, reason, ctx);
  return body;
}
