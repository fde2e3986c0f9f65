// Exec and attach over WebSocket, server side: the channel protocol (src/apimachinery/remotecommand/)
// over a container stream of the runtime. An empty frame on the lowest writable channel says "ready",
// and output goes to channels 1 and 2, both from the client's first frame or 50 ms after the upgrade
// (see clientSettled; output paused while the client is behind); channel 0
// is the process's input, channel 4 resizes its terminal, v5's CLOSE of channel 0 ends its input. When
// the process ends, its output is flushed, the exit status goes to channel 3 and the socket closes with
// 1000. A client that goes away detaches (attach) or kills the command (exec).
import type { Readable } from "node:stream";
import type { RawData, WebSocket } from "ws";
import { newBadRequest } from "../../../apimachinery/errors.ts";
import {
  CLOSE,
  ERROR,
  RESIZE,
  ResizeDecoder,
  STDERR,
  STDIN,
  STDOUT,
  decodeClose,
  decodeFrame,
  encodeFrame,
  encodeStatus,
  exitStatus,
  failureStatus,
  supportsClose,
} from "../../../apimachinery/remotecommand/protocol.ts";
import type { ContainerStream } from "../../../host/containers.ts";

export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  /** exec only. */
  command: string[];
}

/** Unsent output above which the container's output is paused, and below which it resumes. */
const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;
/** How long the output may trail the exit status before the status is sent anyway. */
const FLUSH_MS = 5000;
/** How long the ready frame, output and the exit status wait for a client that sends nothing (see clientSettled). */
export const CLIENT_SETTLE_MS = 50;
const MAX_COMMAND_BYTES = 64 * 1024;

/** Go's strconv.ParseBool truths, as the kubelet and the API server read "stdin=1" or "stdin=true". */
export function flag(query: URLSearchParams, name: string): boolean {
  const v = query.get(name);
  return v !== null && ["1", "t", "T", "true", "TRUE", "True"].includes(v);
}

export function parseStreamOptions(kind: "exec" | "attach", query: URLSearchParams): StreamOptions {
  const tty = flag(query, "tty");
  const o: StreamOptions = { stdin: flag(query, "stdin"), stdout: flag(query, "stdout"), stderr: flag(query, "stderr") && !tty, tty, command: [] };
  if (!o.stdin && !o.stdout && !o.stderr) throw newBadRequest("you must specify at least 1 of stdin, stdout, stderr");
  if (kind === "exec") {
    o.command = query.getAll("command");
    if (o.command.length === 0) throw newBadRequest("you must specify at least one command for the container");
    if (o.command.reduce((n, c) => n + Buffer.byteLength(c) + 1, 0) > MAX_COMMAND_BYTES) throw newBadRequest("the command is too long");
  }
  return o;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** The "ready" frame: an empty frame on the lowest writable channel. */
function readyFrame(o: StreamOptions): Buffer {
  return encodeFrame(o.stdout ? STDOUT : o.stderr ? STDERR : ERROR);
}

/** Sends the ready frame once the client is settled (see clientSettled). */
export function sendReadyWhenSettled(ws: WebSocket, o: StreamOptions): void {
  void clientSettled(ws, CLIENT_SETTLE_MS).then(() => {
    if (ws.readyState === ws.OPEN) ws.send(readyFrame(o), { binary: true });
  });
}

/** Ends the stream with the runtime's failure to run (exec) or reach (attach) the container, as the status. */
export function endWithFailure(ws: WebSocket, kind: "exec" | "attach", err: unknown): void {
  const what = kind === "exec" ? "executing command in" : "attaching to";
  if (ws.readyState === ws.OPEN) ws.send(encodeStatus(failureStatus(`error ${what} container: ${err instanceof Error ? err.message : String(err)}`)), { binary: true });
  ws.close(1000);
}

/**
 * Before a terminal command starts: waits (at most `ms`) for the client's first resize, so the command
 * starts with the client's terminal size instead of 0x0. Frames that arrive meanwhile are kept for
 * `bridge` to replay. A malformed resize ends the wait (bridge reports it).
 */
export function firstResize(ws: WebSocket, ms: number): Promise<{ size?: { width: number; height: number }; early: Buffer[] }> {
  const early: Buffer[] = [];
  const decoder = new ResizeDecoder();
  return new Promise((resolve) => {
    const done = (size?: { width: number; height: number }) => {
      clearTimeout(timer);
      ws.off("message", onMessage);
      ws.off("close", onClose);
      resolve(size ? { size, early } : { early });
    };
    const onClose = () => done();
    const onMessage = (data: RawData) => {
      const frame = toBuffer(data);
      early.push(frame);
      try {
        const { channel, payload } = decodeFrame(frame);
        if (channel === RESIZE) done(decoder.push(payload).at(-1));
      } catch {
        done();
      }
    };
    const timer = setTimeout(() => done(), ms);
    ws.on("message", onMessage);
    ws.once("close", onClose);
  });
}

/**
 * Resolves once the client has shown that its streams exist (its first frame), once it has gone, or
 * after `ms`. kubectl 1.30-1.33 (client-go's WebSocket executor) read the socket before creating their
 * streams and drop what comes first: a command that ended at once lost its exit status and kubectl
 * failed with "closed all streams" (kubernetes/kubernetes#131189, fixed in 1.34), and a dropped ready
 * frame made kubectl print "Unknown stream id 1, discarding message". The ready frame, output and the
 * status wait for this. A client that sends nothing pays up to `ms`, and only for what its command
 * wrote or how it ended within `ms` of the upgrade.
 */
export function clientSettled(ws: Pick<WebSocket, "once" | "off">, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      ws.off("message", done);
      ws.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    ws.once("message", done);
    ws.once("close", done);
  });
}

/**
 * Runs the channel protocol on an upgraded socket until the process ends or the client goes. With
 * `started`, the ready frame is on its way already (sendReadyWhenSettled) and `started.early` are
 * frames received before the stream existed (see firstResize), handled first.
 */
export function bridge(ws: WebSocket, protocol: string, stream: ContainerStream, o: StreamOptions, kind: "exec" | "attach", started?: { early: Buffer[] }): Promise<void> {
  const paused = new Set<Readable>();
  let finished = false;
  // Frames held until the client is settled (see clientSettled); a client that sent its terminal's
  // size (`started`) has its streams. Output is read at once all the same: a child process's unread
  // output is thrown away when it exits.
  let held: Buffer[] | null = started ? null : [];
  let heldBytes = 0;
  const resumeIfDrained = () => {
    if (ws.bufferedAmount > LOW_WATER) return;
    for (const r of paused) r.resume();
    paused.clear();
  };
  const sendNow = (frame: Buffer) => {
    if (ws.readyState === ws.OPEN) ws.send(frame, { binary: true }, resumeIfDrained);
  };
  const send = (frame: Buffer) => {
    if (!held) return sendNow(frame);
    held.push(frame);
    heldBytes += frame.length;
  };
  if (!started) send(readyFrame(o)); // held with the output until the client is settled
  const settled = (held ? clientSettled(ws, CLIENT_SETTLE_MS) : Promise.resolve()).then(() => {
    const frames = held ?? [];
    held = null;
    heldBytes = 0;
    for (const frame of frames) send(frame);
    resumeIfDrained();
  });

  const outputs: Promise<void>[] = [];
  const forward = (r: Readable | null, channel: number, wanted: boolean) => {
    if (!r) return;
    outputs.push(
      new Promise<void>((resolve) => {
        r.once("end", resolve);
        r.once("close", resolve);
        r.once("error", () => resolve());
      }),
    );
    r.on("data", (chunk: Buffer) => {
      if (!wanted) return;
      send(encodeFrame(channel, chunk));
      if (ws.bufferedAmount + heldBytes > HIGH_WATER) {
        r.pause();
        paused.add(r);
      }
    });
  };
  forward(stream.stdout, STDOUT, o.stdout);
  forward(stream.stderr, STDERR, o.stderr);

  let stdinOpen = o.stdin && stream.stdin !== null;
  const endStdin = () => {
    if (!stdinOpen) return;
    stdinOpen = false;
    stream.stdin?.end();
  };
  stream.stdin?.on("error", () => (stdinOpen = false));
  const resize = new ResizeDecoder();
  const onFrame = (frame: Buffer) => {
    try {
      const { channel, payload } = decodeFrame(frame);
      if (channel === STDIN) {
        if (!stdinOpen || payload.length === 0) return;
        if (!stream.stdin!.write(payload)) {
          ws.pause();
          stream.stdin!.once("drain", () => ws.resume());
        }
      } else if (channel === RESIZE) {
        for (const s of resize.push(payload)) stream.resize(s.width, s.height);
      } else if (channel === CLOSE && supportsClose(protocol)) {
        if (decodeClose(payload) === STDIN) endStdin();
      }
    } catch (err) {
      // The client's own frame: its streams exist, and the socket closes now.
      sendNow(encodeStatus(failureStatus(err instanceof Error ? err.message : String(err), "BadRequest")));
      ws.close(1002, "protocol error");
    }
  };
  for (const frame of started?.early ?? []) onFrame(frame);
  ws.on("message", (data: RawData) => onFrame(toBuffer(data)));

  return new Promise<void>((resolve) => {
    ws.once("close", () => {
      if (!finished) stream.close();
      finished = true;
      resolve();
    });
    stream.exit.then(
      async (code) => {
        await settled;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(outputs), new Promise((r) => (timer = setTimeout(r, FLUSH_MS)))]);
        clearTimeout(timer);
        finished = true;
        send(encodeStatus(kind === "exec" ? exitStatus(code, o.command) : exitStatus(code)));
        ws.close(1000);
      },
      async (err: unknown) => {
        await settled;
        if (finished) return;
        finished = true;
        endWithFailure(ws, kind, err);
      },
    );
  });
}
