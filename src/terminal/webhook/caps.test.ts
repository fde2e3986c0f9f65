import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Terminal } from "../../apis/dashboard/v1alpha1/types.ts";
import { FakeClock } from "../../utils/clock.ts";
import { Caps } from "./caps.ts";

const term = (name: string, user: string, deleting = false): Terminal =>
  ({ metadata: { name, namespace: "p", annotations: { "gardener.cloud/created-by": user }, ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) }, spec: {} }) as unknown as Terminal;

describe("terminal caps (docs/terminals.md#caps)", () => {
  it("counts the cache's live Terminals per user and in all", async () => {
    const cached = [term("a1", "alice"), term("a2", "alice", true), term("b1", "bob")];
    const caps = new Caps(async () => cached, new FakeClock(), { maxTerminalsPerUser: 2, maxTerminals: 3 });
    assert.equal(await caps.admit("p/a3", "alice"), undefined, "a2 is being deleted: alice has 1");
    cached.push(term("a3", "alice"));
    assert.equal(await caps.admit("p/a4", "alice"), "terminal limit reached: user alice already has 2 terminals (maximum 2)");
    assert.equal(await caps.admit("p/c1", "carol"), "terminal limit reached: 3 terminals exist (maximum 3)");
  });

  it("counts creates it admitted that the cache does not show yet, for 10 s", async () => {
    const clock = new FakeClock();
    const caps = new Caps(async () => [], clock, { maxTerminalsPerUser: 2, maxTerminals: 0 });
    assert.equal(await caps.admit("p/x", "alice"), undefined);
    assert.equal(await caps.admit("p/y", "alice"), undefined);
    assert.equal(await caps.admit("p/z", "alice"), "terminal limit reached: user alice already has 2 terminals (maximum 2)");
    clock.step(10_001);
    assert.equal(await caps.admit("p/z", "alice"), undefined, "after 10 s only the cache counts");
  });

  it("a create the cache has shown no longer counts once it is gone, even within 10 s (open ten, close them, open one)", async () => {
    const clock = new FakeClock();
    let cached: Terminal[] = [];
    const caps = new Caps(async () => cached, clock, { maxTerminalsPerUser: 2, maxTerminals: 0 });
    assert.equal(await caps.admit("p/x", "alice"), undefined);
    assert.equal(await caps.admit("p/y", "alice"), undefined);
    cached = [term("x", "alice")];
    assert.equal(await caps.admit("p/z", "alice"), "terminal limit reached: user alice already has 2 terminals (maximum 2)", "x in the cache, y still pending");
    cached = [term("x", "alice"), term("y", "alice")];
    assert.equal(await caps.admit("p/z", "alice"), "terminal limit reached: user alice already has 2 terminals (maximum 2)", "both in the cache");
    cached = [];
    clock.step(1_000);
    assert.equal(await caps.admit("p/z", "alice"), undefined, "both seen and gone: none counts");
  });

  it("0 disables a cap", async () => {
    const caps = new Caps(async () => [term("a", "alice"), term("b", "alice")], new FakeClock(), { maxTerminalsPerUser: 0, maxTerminals: 0 });
    assert.equal(await caps.admit("p/c", "alice"), undefined);
  });
});
