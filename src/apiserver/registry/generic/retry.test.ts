import assert from "node:assert/strict";
import { it } from "node:test";
import { ConflictRetry, IMMEDIATE_RETRIES } from "./retry.ts";

void it("retries at once with the reported version, then after pauses without it (it is stale by then)", async () => {
  const retry = new ConflictRetry();
  const kept: (string | undefined)[] = [];
  for (let i = 0; i < IMMEDIATE_RETRIES + 2; i++) kept.push(await retry.next(`v${i}`));
  assert.deepEqual(kept, [...Array.from({ length: IMMEDIATE_RETRIES }, (_, i) => `v${i}`), undefined, undefined]);
});

void it("ends with 504 Timeout once its budget is spent", async () => {
  const retry = new ConflictRetry(-1);
  await assert.rejects(retry.next(), (err: { code?: number; message: string }) => err.code === 504 && /1 attempts lost to concurrent writers/.test(err.message));
});
