import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../utils/clock.ts";
import { SecretFollower, waitForSecrets } from "./vpnfollow.ts";

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

/** A fake clock whose sleeps pass at once, so a poll loop runs through its fake minutes without a driver. */
class InstantClock extends FakeClock {
  override sleep(ms: number): Promise<void> {
    this.step(ms);
    return Promise.resolve();
  }
}

test("waitForSecrets reports what is missing every 10 s and returns the value once it is complete", async () => {
  const clock = new InstantClock(0);
  const lines: string[] = [];
  const value = await waitForSecrets<string>("the VPN Secrets", async () => (clock.nowMs() < 25_000 ? { missing: ["ca-vpn"] } : { value: "set" }), { log: (l) => lines.push(l), clock });
  assert.equal(value, "set");
  assert.deepEqual(lines, ["waiting for the VPN Secrets (10 s): missing ca-vpn", "waiting for the VPN Secrets (20 s): missing ca-vpn"]);
});

test("waitForSecrets gives up after its timeout naming the last reason, a read error included", async () => {
  const clock = new InstantClock(0);
  const wait = waitForSecrets<string>("the VPN Secrets", () => Promise.reject(new Error("connection refused")), { log: () => undefined, clock, timeoutMs: 30_000 });
  await assert.rejects(wait, { message: "the VPN Secrets: not there within 30 s (connection refused)" });
});
