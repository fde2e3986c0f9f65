import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clock, parseCast, parseResize } from "./asciicast.ts";
import { Player, type PlayerTimers } from "./player.ts";

const CAST = [
  JSON.stringify({ version: 2, width: 100, height: 30, timestamp: 1700000000, title: "garden-p/term-shoot-1", env: { TERM: "xterm-256color" } }),
  JSON.stringify([0.1, "r", "91x27"]),
  JSON.stringify([0.5, "o", "$ "]),
  JSON.stringify([1.0, "i", "ls\r"]),
  JSON.stringify([1.2, "o", "ls\r\n"]),
  "not json",
  JSON.stringify([61.2, "o", "a b\r\n$ "]),
  JSON.stringify([61.3, "x", "unknown code"]),
  JSON.stringify([62.0, "m", "recording truncated: 64 MiB"]),
  "",
].join("\n");

class FakeTimers implements PlayerTimers {
  now = 0;
  private next = 1;
  private readonly jobs = new Map<number, { at: number; fn: () => void }>();
  nowMs() {
    return this.now;
  }
  setTimeout(fn: () => void, ms: number) {
    const id = this.next++;
    this.jobs.set(id, { at: this.now + ms, fn });
    return id;
  }
  clearTimeout(id: unknown) {
    this.jobs.delete(id as number);
  }
  advance(ms: number) {
    const end = this.now + ms;
    for (;;) {
      const due = [...this.jobs.entries()].filter(([, j]) => j.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.jobs.delete(due[0]);
      this.now = due[1].at;
      due[1].fn();
    }
    this.now = end;
  }
  pending() {
    return this.jobs.size;
  }
}

function screen() {
  const log: string[] = [];
  return {
    log,
    reset: (c: number, r: number) => log.push(`reset ${c}x${r}`),
    write: (d: string) => log.push(`o ${JSON.stringify(d)}`),
    resize: (c: number, r: number) => log.push(`r ${c}x${r}`),
  };
}

describe("asciicast v2", () => {
  test("parses the header and events; idle gaps are capped at 2 s; input and markers go to the notes; bad lines are skipped", () => {
    const cast = parseCast(CAST);
    assert.deepEqual(cast.header, { version: 2, width: 100, height: 30, timestamp: 1700000000, title: "garden-p/term-shoot-1" });
    assert.deepEqual(cast.events.map((e) => [Number(e.t.toFixed(2)), e.code, e.data]), [[0.1, "r", "91x27"], [0.5, "o", "$ "], [1.2, "o", "ls\r\n"], [3.2, "o", "a b\r\n$ "]]);
    assert.deepEqual(cast.notes.map((e) => [Number(e.t.toFixed(2)), e.code]), [[1, "i"], [4, "m"]]);
    assert.equal(Number(cast.duration.toFixed(2)), 4);
    assert.equal(cast.skipped, 2);
  });

  test("refuses what is not asciicast v2; odd sizes fall back to 80x24; time never runs backwards", () => {
    assert.throws(() => parseCast("hello"), /not an asciicast recording/);
    assert.throws(() => parseCast('{"version":1}'), /not an asciicast v2 recording/);
    const c = parseCast(`{"version":2,"width":0,"height":"x"}\n[2,"o","a"]\n[1,"o","b"]\n[1e999,"o","c"]`);
    assert.deepEqual([c.header.width, c.header.height], [80, 24]);
    assert.deepEqual(c.events.map((e) => e.t), [2, 2]);
    assert.equal(c.skipped, 1, "an infinite time is skipped");
  });

  test("resize data and the clock", () => {
    assert.deepEqual(parseResize("91x27"), { cols: 91, rows: 27 });
    for (const bad of ["0x5", "91 x 27", "99999x1", "x"]) assert.equal(parseResize(bad), undefined);
    assert.deepEqual([clock(0), clock(61.9), clock(3725)], ["0:00", "1:01", "1:02:05"]);
  });
});

describe("the replay", () => {
  test("plays events as they fall due on the capped timeline, applying resizes, and ends", () => {
    const t = new FakeTimers();
    const s = screen();
    const p = new Player(parseCast(CAST), s, t);
    assert.deepEqual(s.log, ["reset 100x30"]);
    p.play();
    t.advance(400);
    assert.deepEqual(s.log, ["reset 100x30", "r 91x27"]);
    t.advance(100);
    assert.deepEqual(s.log.at(-1), 'o "$ "');
    t.advance(2000);
    assert.deepEqual(s.log.at(-1), 'o "ls\\r\\n"', "the 60 s gap plays as 2 s");
    t.advance(1000);
    assert.deepEqual(s.log.at(-1), 'o "a b\\r\\n$ "');
    assert.equal(p.playing, true, "plays on to the marker at 4 s");
    t.advance(1000);
    assert.equal(p.playing, false);
    assert.equal(p.position(), p.duration);
    assert.equal(t.pending(), 0);
  });

  test("pause holds the position; 4x plays four times as fast; seeking redraws up to the new position", () => {
    const t = new FakeTimers();
    const s = screen();
    const p = new Player(parseCast(CAST), s, t);
    p.play();
    t.advance(600);
    p.pause();
    const at = s.log.length;
    t.advance(10_000);
    assert.equal(s.log.length, at);
    assert.equal(p.position(), 0.6);
    p.setSpeed(4);
    p.play();
    t.advance(150);
    assert.deepEqual(s.log.at(-1), 'o "ls\\r\\n"', "0.6 s of timeline in 150 ms");
    p.seek(3.5);
    assert.deepEqual(s.log.slice(-3), ["reset 100x30", "r 91x27", 'o "$ ls\\r\\na b\\r\\n$ "']);
    assert.equal(p.playing, true);
    p.seek(0.2);
    p.pause();
    assert.deepEqual(s.log.slice(-2), ["reset 100x30", "r 91x27"]);
    p.setSpeed(3);
    assert.equal(p.speed, 4, "only 1x, 2x and 4x");
  });

  test("play at the end starts over", () => {
    const t = new FakeTimers();
    const s = screen();
    const p = new Player(parseCast(CAST), s, t);
    p.seek(p.duration);
    p.play();
    assert.equal(p.position(), 0);
    assert.equal(s.log.filter((l) => l.startsWith("reset")).length, 3);
  });
});
