import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CastEncoder } from "./asciicast.ts";

const START = 1_700_000_000_000;

function encoder(o: { input?: boolean; maxBytes?: number } = {}) {
  const lines: string[] = [];
  const e = new CastEncoder({ startMs: START, title: "ns/t", input: o.input ?? false, maxBytes: o.maxBytes ?? 1 << 20 }, (l) => lines.push(l));
  return { e, lines, parsed: () => lines.map((l) => JSON.parse(l) as unknown) };
}

describe("asciicast v2 encoder", () => {
  test("the header takes the first resize's size; output, resizes and times follow", () => {
    const { e, parsed } = encoder();
    e.resize(START + 10, 120, 40);
    e.output(START + 1500, 1, Buffer.from("hi\r\n"));
    e.output(START + 2000, 2, Buffer.from("err"));
    e.resize(START + 2250, 100, 30);
    assert.deepEqual(parsed(), [
      { version: 2, width: 120, height: 40, timestamp: 1_700_000_000, title: "ns/t", env: { TERM: "xterm-256color" } },
      [0.01, "r", "120x40"],
      [1.5, "o", "hi\r\n"],
      [2, "o", "err"],
      [2.25, "r", "100x30"],
    ]);
  });

  test("output before any resize gets an 80x24 header", () => {
    const { e, parsed } = encoder();
    e.output(START, 1, Buffer.from("$ "));
    e.resize(START, 90, 20);
    const [header] = parsed() as [{ width: number; height: number }];
    assert.deepEqual([header.width, header.height], [80, 24]);
  });

  test("UTF-8 split across frames is joined; invalid bytes become U+FFFD", () => {
    const { e, parsed } = encoder();
    const euro = Buffer.from("€");
    e.output(START, 1, euro.subarray(0, 1));
    e.output(START, 1, euro.subarray(1));
    e.output(START, 1, Buffer.from([0xff, 0x41]));
    e.output(START, 1, Buffer.from([0xe2]));
    e.end(START + 1000);
    const out = (parsed().slice(1) as [number, string, string][]).map(([, , d]) => d);
    assert.deepEqual(out, ["€", "\uFFFDA", "\uFFFD"]);
  });

  test("keystrokes only when enabled, never empty keepalives", () => {
    const off = encoder();
    off.e.input(START, Buffer.from("secret\r"));
    assert.equal(off.lines.length, 0);
    const on = encoder({ input: true });
    on.e.input(START, Buffer.alloc(0));
    on.e.input(START + 500, Buffer.from("ls\r"));
    assert.deepEqual(on.parsed().slice(1), [[0.5, "i", "ls\r"]]);
  });

  test("past the cap one marker is written and nothing after it; the cast stays under the cap", () => {
    const max = 4096;
    const { e, lines, parsed } = encoder({ maxBytes: max });
    for (let i = 0; i < 200; i++) e.output(START + i, 1, Buffer.from("x".repeat(50)));
    e.resize(START + 300, 10, 10);
    const events = parsed().slice(1) as [number, string, string][];
    const last = events.at(-1)!;
    assert.equal(last[1], "m");
    assert.match(last[2], /recording truncated/);
    assert.equal(events.filter(([, c]) => c === "m").length, 1);
    assert.ok(e.truncated);
    const bytes = Buffer.byteLength(lines.join(""));
    assert.equal(e.bytes, bytes);
    assert.ok(bytes <= max, `${bytes} bytes`);
  });

  test("a cap too small for a cast is refused", () => {
    assert.throws(() => encoder({ maxBytes: 100 }), /at least/);
  });
});
