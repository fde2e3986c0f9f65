import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { pino } from "pino";
import { FakeClock } from "../../../utils/clock.ts";
import type { KeyPair } from "./keypair.ts";
import { KeyPool, MAX_URGENT, RETRY_MIN_MS } from "./keypool.ts";

/** A generator whose calls the test settles one by one. */
function controlled(prefix: string) {
  const calls: { resolve: () => void; reject: (err: Error) => void }[] = [];
  let n = 0;
  const fn = (): Promise<KeyPair> =>
    new Promise<KeyPair>((resolve, reject) => {
      const i = ++n;
      calls.push({ resolve: () => resolve({ privateKey: `${prefix}-private-${i}`, publicKey: `${prefix}-public-${i}` }), reject });
    });
  return {
    fn,
    calls,
    /** Settles the oldest unsettled call. */
    next(): void {
      const c = calls.shift();
      if (!c) throw new Error(`no ${prefix} generation in flight`);
      c.resolve();
    },
    get started(): number {
      return n;
    },
  };
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe("KeyPool", () => {
  it("fills up to its size, one background generation at a time, and refills the moment a pair is handed out", async () => {
    const bg = controlled("bg");
    const urgent = controlled("urgent");
    const pool = new KeyPool({ background: bg.fn, urgent: urgent.fn, clock: new FakeClock(), size: 3 });
    assert.equal(bg.started, 1, "one generation at a time");
    for (let i = 0; i < 3; i++) {
      bg.next();
      await settle();
    }
    assert.equal(pool.available, 3);
    assert.equal(bg.started, 3, "bounded: no generation once full");
    assert.equal(bg.calls.length, 0);

    const a = await pool.take();
    assert.equal(a.privateKey, "bg-private-1");
    assert.equal(bg.started, 4, "refilling started on the hand-out");
    const b = await pool.take();
    assert.equal(b.privateKey, "bg-private-2", "each pair handed out once");
    assert.equal(bg.started, 4, "still one generation at a time");
    bg.next();
    await settle();
    assert.equal(bg.started, 5);
    assert.equal(pool.available, 2);
    assert.equal(urgent.started, 0, "no urgent generation while pairs are ready");
    pool.stop();
  });

  it("an empty pool serves a caller with whichever pair comes first; the other one goes into the pool", async () => {
    const bg = controlled("bg");
    const urgent = controlled("urgent");
    const pool = new KeyPool({ background: bg.fn, urgent: urgent.fn, clock: new FakeClock(), size: 2 });
    const first = pool.take();
    assert.equal(urgent.started, 1, "an urgent generation for the waiting caller");
    urgent.next();
    assert.equal((await first).privateKey, "urgent-private-1");
    bg.next();
    await settle();
    assert.equal(pool.available, 1, "the background pair was not thrown away");

    // Now the background pair wins.
    await pool.take();
    const second = pool.take();
    const third = pool.take();
    assert.equal(urgent.started, 1 + MAX_URGENT, "urgent generations bounded");
    bg.next();
    assert.equal((await second).privateKey, "bg-private-2", "the first pair to arrive serves the longest-waiting caller");
    urgent.next();
    assert.equal((await third).privateKey, "urgent-private-2");
    urgent.next();
    await settle();
    assert.equal(pool.available, 1, "the late urgent pair fills the pool");
    assert.equal((await pool.take()).privateKey, "urgent-private-3");
    pool.stop();
  });

  it("retries a failed background generation after a growing delay of the clock", async () => {
    const clock = new FakeClock();
    const bg = controlled("bg");
    const pool = new KeyPool({ background: bg.fn, urgent: controlled("urgent").fn, clock, size: 1 });
    bg.calls.shift()!.reject(new Error("no entropy"));
    await settle();
    clock.step(RETRY_MIN_MS - 1);
    assert.equal(bg.started, 1, "no retry before the delay");
    clock.step(1);
    assert.equal(bg.started, 2);
    bg.calls.shift()!.reject(new Error("no entropy"));
    await settle();
    clock.step(RETRY_MIN_MS);
    assert.equal(bg.started, 2, "the delay doubled");
    clock.step(RETRY_MIN_MS);
    assert.equal(bg.started, 3);
    bg.next();
    await settle();
    assert.equal(pool.available, 1);
    pool.stop();
  });

  it("a failed urgent generation fails the caller waiting longest; the next call gets a pair", async () => {
    const bg = controlled("bg");
    const urgent = controlled("urgent");
    const pool = new KeyPool({ background: bg.fn, urgent: urgent.fn, clock: new FakeClock(), size: 1 });
    const p = pool.take();
    urgent.calls.shift()!.reject(new Error("no entropy"));
    await assert.rejects(p, /no entropy/);
    bg.next();
    await settle();
    assert.equal((await pool.take()).privateKey, "bg-private-1");
    pool.stop();
  });

  it("stop drops the ready pairs and fails waiting callers; pairs generated afterwards are discarded", async () => {
    const bg = controlled("bg");
    const urgent = controlled("urgent");
    const pool = new KeyPool({ background: bg.fn, urgent: urgent.fn, clock: new FakeClock(), size: 2 });
    const waiting = pool.take();
    pool.stop();
    await assert.rejects(waiting, /stopped/);
    bg.next();
    urgent.next();
    await settle();
    assert.equal(pool.available, 0);
    await assert.rejects(pool.take(), /stopped/);
  });

  it("logs no key material", async () => {
    let out = "";
    const sink = new Writable({ write: (chunk: Buffer, _enc, cb) => ((out += chunk.toString()), cb()) });
    const clock = new FakeClock();
    const bg = controlled("bg");
    const urgent = controlled("urgent");
    const pool = new KeyPool({ background: bg.fn, urgent: urgent.fn, clock, size: 2, logger: pino({ level: "trace" }, sink) });
    bg.next();
    await settle();
    bg.calls.shift()!.reject(new Error("no entropy"));
    await settle();
    await pool.take();
    clock.step(RETRY_MIN_MS);
    bg.next();
    await settle();
    pool.stop();
    assert.match(out, /background generation failed/, "the failure is logged");
    assert.doesNotMatch(out, /private|public-/);
  });
  it("signals when it is first full: whenFilled, one log line and every level change", async () => {
    const bg = controlled("bg");
    const urgent = controlled("urgent");
    const lines: string[] = [];
    const logger = pino({ level: "info" }, new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString()), cb()) }));
    const levels: number[] = [];
    const pool = new KeyPool({ background: bg.fn, urgent: urgent.fn, clock: new FakeClock(), size: 2, logger, onLevel: (n, size) => (assert.equal(size, 2), levels.push(n)) });
    let filled = false;
    void pool.whenFilled().then(() => (filled = true));
    bg.next();
    await settle();
    assert.equal(filled, false, "one of two pairs is not full");
    assert.equal(pool.filled, false);
    bg.next();
    await settle();
    assert.equal(filled, true);
    assert.equal(pool.filled, true);
    assert.equal(pool.capacity, 2);
    await pool.take();
    bg.next();
    await settle();
    assert.deepEqual(levels, [0, 1, 2, 1, 2]);
    assert.equal(lines.filter((l) => l.includes("SSH key pair pool full")).length, 1, "logged the first time only");
    await pool.whenFilled();
    pool.stop();
    assert.equal(levels.at(-1), 0, "a stopped pool holds nothing");
  });
});
