import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../utils/clock.ts";
import { SecretFollower } from "./vpnfollow.ts";

test("a changed value is applied once two polls in a row read it, so half of a gardenlet pass is never applied", async () => {
  const reads = ["new-ca+old-cert", "new-ca+new-cert", "new-ca+new-cert", "new-ca+new-cert", "old-ca+old-cert"];
  const applied: string[] = [];
  const f = new SecretFollower<string>({
    what: "test Secrets",
    read: () => Promise.resolve({ value: reads.shift()! }),
    apply: (v) => Promise.resolve(void applied.push(v)),
    log: () => undefined,
    clock: new FakeClock(0), // never stepped: the test drives the polls
  });
  f.start("old-ca+old-cert");
  await f.poll(); // half a pass, seen once
  await f.poll(); // the whole pass, seen once
  assert.deepEqual(applied, []);
  await f.poll(); // the same again: applied
  await f.poll(); // unchanged since: nothing
  assert.deepEqual(applied, ["new-ca+new-cert"]);
  await f.poll(); // another value, seen once: nothing yet
  assert.deepEqual(applied, ["new-ca+new-cert"]);
  await f.stop();
});
