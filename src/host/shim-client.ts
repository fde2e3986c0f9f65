// A client of a shim's attach socket (frames: 1 byte type, 4 bytes big-endian length, payload; see
// shim/shim.c). attach() turns it into streams: stdout and stderr from the moment of attaching, stdin
// (closed with a close frame), resize for a terminal, and the exit code once the command ended.
import { connect, type Socket } from "node:net";
import { PassThrough, Writable, type Readable } from "node:stream";

export interface ContainerStream {
  /** Input, when the process keeps it open; end() closes it. */
  stdin: Writable | null;
  stdout: Readable;
  /** Absent with a terminal (everything is stdout). */
  stderr: Readable | null;
  /** Sets the terminal's size (no effect without one). */
  resize(columns: number, rows: number): void;
  /** The exit code once the process ended (128 + signal when killed). Rejects when the shim went away without one. */
  exit: Promise<number>;
  /** Detaches (attach) or kills (exec). */
  close(): void;
}

const MAX_FRAME = 64 * 1024;

function frame(type: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head[0] = type;
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

export class ShimClient {
  constructor(readonly socket: string) {}

  private open(): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const s = connect(this.socket);
      s.once("connect", () => resolve(s));
      s.once("error", reject);
    });
  }

  /** Asks the shim to hang up its terminal's foreground process group (no effect without a terminal). */
  async hangup(): Promise<void> {
    const s = await this.open();
    await new Promise<void>((resolve) => s.end(frame(5), () => resolve()));
  }

  async attach(): Promise<ContainerStream> {
    const s = await this.open();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let code: number | undefined;
    let pending: Buffer = Buffer.alloc(0);
    const exit = new Promise<number>((resolve, reject) => {
      s.on("data", (chunk: Buffer) => {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        while (pending.length >= 5) {
          const len = pending.readUInt32BE(1);
          if (len > MAX_FRAME * 2) return void s.destroy(new Error("oversized frame from shim"));
          if (pending.length < 5 + len) break;
          const type = pending[0];
          const payload = pending.subarray(5, 5 + len);
          pending = pending.subarray(5 + len);
          if (type === 1) stdout.write(payload);
          else if (type === 2) stderr.write(payload);
          else if (type === 3) code = Number(payload.toString("utf8"));
        }
      });
      s.once("close", () => {
        stdout.end();
        stderr.end();
        if (code !== undefined) resolve(code);
        else reject(new Error("detached before the process ended"));
      });
      s.on("error", () => undefined);
    });
    exit.catch(() => undefined);
    const stdin = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (let i = 0; i < chunk.length; i += MAX_FRAME) s.write(frame(0, chunk.subarray(i, i + MAX_FRAME)));
        cb();
      },
      final(cb) {
        s.write(frame(255));
        cb();
      },
    });
    return {
      stdin,
      stdout,
      stderr,
      resize: (columns, rows) => {
        const p = Buffer.alloc(4);
        p.writeUInt16BE(Math.max(0, Math.min(65535, columns)), 0);
        p.writeUInt16BE(Math.max(0, Math.min(65535, rows)), 2);
        s.write(frame(4, p));
      },
      exit,
      close: () => s.end(),
    };
  }
}
