// clientSettled: output and the exit status of an exec wait for the client's first frame, its going,
// or the settle time, whichever comes first (a fake socket and mocked timers).
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { afterEach, beforeEach, describe, mock, test } from "node:test";
import type { WebSocket } from "ws";
import { clientSettled } from "./streams.ts";

/** Lets every promise callback that can run without I/O or timers run. */
const drain = () => new Promise<void>((r) => setImmediate(r));

describe("clientSettled", () => {
  beforeEach(() => mock.timers.enable({ apis: ["setTimeout"] }));
  afterEach(() => mock.timers.reset());

  const watch = (ws: EventEmitter) => {
    let done = false;
    const p = clientSettled(ws as unknown as WebSocket, 50).then(() => (done = true));
    return { p, done: () => done };
  };

  test("waits for the client's first frame, then lets go of its listeners", async () => {
    const ws = new EventEmitter();
    const w = watch(ws);
    mock.timers.tick(49);
    await drain();
    assert.equal(w.done(), false, "not before a frame or the settle time");
    ws.emit("message", Buffer.from([4]));
    await w.p;
    assert.equal(ws.listenerCount("message") + ws.listenerCount("close"), 0);
  });

  test("a client that sends nothing is settled after the settle time", async () => {
    const ws = new EventEmitter();
    const w = watch(ws);
    mock.timers.tick(49);
    await drain();
    assert.equal(w.done(), false);
    mock.timers.tick(1);
    await w.p;
    assert.equal(ws.listenerCount("message") + ws.listenerCount("close"), 0);
  });

  test("a client that goes away is settled at once", async () => {
    const ws = new EventEmitter();
    const w = watch(ws);
    ws.emit("close", 1006);
    await w.p;
    assert.equal(ws.listenerCount("message"), 0);
  });
});
