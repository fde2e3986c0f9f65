// Replays a parsed asciicast (asciicast.ts) into a screen: play, pause, speed (1x, 2x, 4x) and
// seeking. Output is written as it falls due on the (idle-capped) timeline; a seek resets the screen
// and writes everything up to the new position at once. Clock and timers are injected.
import { type Cast, parseResize } from "./asciicast.ts";

export interface Screen {
  /** Clears the screen and sets its size (the header's, at the start and on every seek). */
  reset(cols: number, rows: number): void;
  write(data: string): void;
  resize(cols: number, rows: number): void;
}

export interface PlayerTimers {
  nowMs(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export class Player {
  playing = false;
  speed = 1;
  /** The next event to apply. */
  private index = 0;
  /** Timeline position (seconds) at `anchorMs`. */
  private anchorPos = 0;
  private anchorMs = 0;
  private timer: unknown;

  constructor(private readonly cast: Cast, private readonly screen: Screen, private readonly timers: PlayerTimers, private readonly onChange: () => void = () => undefined) {
    screen.reset(cast.header.width, cast.header.height);
  }

  get duration(): number {
    return this.cast.duration;
  }

  /** The timeline position now, in seconds. */
  position(): number {
    if (!this.playing) return this.anchorPos;
    return Math.min(this.cast.duration, this.anchorPos + ((this.timers.nowMs() - this.anchorMs) / 1000) * this.speed);
  }

  /** Applies the events from `index` up to `until` (seconds), output batched. */
  private apply(until: number): void {
    let out = "";
    const events = this.cast.events;
    while (this.index < events.length && events[this.index]!.t <= until) {
      const ev = events[this.index++]!;
      if (ev.code === "o") {
        out += ev.data;
        continue;
      }
      const r = parseResize(ev.data);
      if (!r) continue;
      if (out) this.screen.write(out);
      out = "";
      this.screen.resize(r.cols, r.rows);
    }
    if (out) this.screen.write(out);
  }

  private schedule(): void {
    this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.playing) return;
    const pos = this.position();
    this.apply(pos);
    const next = this.cast.events[this.index];
    if (!next) {
      if (pos >= this.cast.duration) return this.end();
      this.timer = this.timers.setTimeout(() => this.schedule(), ((this.cast.duration - pos) / this.speed) * 1000);
      return;
    }
    this.timer = this.timers.setTimeout(() => this.schedule(), Math.max(0, ((next.t - pos) / this.speed) * 1000));
  }

  private end(): void {
    this.playing = false;
    this.anchorPos = this.cast.duration;
    this.onChange();
  }

  play(): void {
    if (this.playing) return;
    if (this.anchorPos >= this.cast.duration) this.seek(0);
    this.playing = true;
    this.anchorMs = this.timers.nowMs();
    this.onChange();
    this.schedule();
  }

  pause(): void {
    if (!this.playing) return;
    this.anchorPos = this.position();
    this.playing = false;
    this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.onChange();
  }

  setSpeed(speed: number): void {
    if (![1, 2, 4].includes(speed)) return;
    this.anchorPos = this.position();
    this.anchorMs = this.timers.nowMs();
    this.speed = speed;
    this.schedule();
    this.onChange();
  }

  /** Moves to `seconds`: the screen is reset and redrawn up to there. */
  seek(seconds: number): void {
    const pos = Math.min(Math.max(0, seconds), this.cast.duration);
    this.screen.reset(this.cast.header.width, this.cast.header.height);
    this.index = 0;
    this.apply(pos);
    this.anchorPos = pos;
    this.anchorMs = this.timers.nowMs();
    this.schedule();
    this.onChange();
  }

  stop(): void {
    this.pause();
  }
}
