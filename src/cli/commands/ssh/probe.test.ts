// The availability probe (docs/gardenctl-ssh.md#availability-probe) keeps its deadline and retry pause on
// the injected clock: a fake clock drives retries and the timeout without real waiting.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type AddressInfo, createServer } from "node:net";
import { PassThrough } from "node:stream";
import { FakeClock } from "../../../utils/clock.ts";
import { TimeoutError } from "./errors.ts";
import { Logger } from "./log.ts";
import { probeBastion } from "./probe.ts";

async function server(banner: string): Promise<{ port: number; accepted: () => number; close: () => Promise<void> }> {
  let accepted = 0;
  const srv = createServer((sock) => {
    accepted++;
    sock.end(banner);
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  return { port: (srv.address() as AddressInfo).port, accepted: () => accepted, close: () => new Promise((resolve) => srv.close(() => resolve())) };
}

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((resolve) => setImmediate(resolve));
}

describe("probeBastion", () => {
  test("an SSH banner ends the probe", async () => {
    const s = await server("SSH-2.0-test\r\n");
    try {
      const clock = new FakeClock();
      await probeBastion("127.0.0.1", s.port, clock.nowMs() + 60_000, new Logger(new PassThrough(), 0), new AbortController().signal, clock);
      assert.equal(s.accepted(), 1);
    } finally {
      await s.close();
    }
  });

  test("a wrong banner is retried after the pause, until the deadline of the injected clock", async () => {
    const s = await server("HTTP/1.1 400 Bad Request\r\n");
    try {
      const clock = new FakeClock();
      const probe = probeBastion("127.0.0.1", s.port, clock.nowMs() + 8_000, new Logger(new PassThrough(), 0), new AbortController().signal, clock, 10_000, 5_000);
      const failed = assert.rejects(probe, (err: unknown) => err instanceof TimeoutError && /unexpected banner "HTTP\/1.1 400 Bad Request"/.test(err.message));
      await until(() => clock.pending() > 0);
      assert.equal(s.accepted(), 1, "one attempt before the pause");
      clock.step(5_000);
      await failed;
      assert.equal(s.accepted(), 2, "a second attempt after the pause, then the deadline");
    } finally {
      await s.close();
    }
  });

  test("cancelling during the pause ends the probe with the signal's reason", async () => {
    const s = await server("nope\n");
    try {
      const clock = new FakeClock();
      const ctl = new AbortController();
      const probe = probeBastion("127.0.0.1", s.port, clock.nowMs() + 60_000, new Logger(new PassThrough(), 0), ctl.signal, clock);
      await until(() => clock.pending() > 0);
      ctl.abort(new Error("cancelled"));
      await assert.rejects(probe, /cancelled/);
    } finally {
      await s.close();
    }
  });
});
