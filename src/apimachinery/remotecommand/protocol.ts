// The channel protocol of exec and attach over WebSocket (k8s.io/apimachinery wsstream and
// remotecommand): every binary message is one channel byte and its payload. Channels 0 stdin, 1
// stdout, 2 stderr, 3 the final status (a JSON metav1.Status), 4 terminal resizes (a JSON stream of
// {"Width","Height"}); v5 adds 255, CLOSE: the two bytes [255, channel] half-close a channel. Pure
// functions over bytes, used by the kubelet side (server) and by clients and relays alike; see
// docs/exec-attach-logs.md.

export const V5_PROTOCOL = "v5.channel.k8s.io";
export const V4_PROTOCOL = "v4.channel.k8s.io";
/** What this project offers, in order of preference (the base64 variants and SPDY are not offered). */
export const SUPPORTED_PROTOCOLS: readonly string[] = [V5_PROTOCOL, V4_PROTOCOL];

export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;
export const ERROR = 3;
export const RESIZE = 4;
export const CLOSE = 255;

/** A resize message is a few dozen bytes; anything pending beyond this is a protocol error. */
export const MAX_RESIZE_BUFFER = 4096;

export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** The subprotocol to answer with: v5 if offered, else v4; undefined when neither is offered. */
export function negotiateProtocol(offered: Iterable<string>): string | undefined {
  const set = new Set([...offered].map((p) => p.trim()));
  return SUPPORTED_PROTOCOLS.find((p) => set.has(p));
}

/** Splits a Sec-WebSocket-Protocol header (possibly repeated) into its entries. */
export function offeredProtocols(header: string | string[] | undefined): string[] {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.flatMap((v) => v.split(",")).map((p) => p.trim()).filter(Boolean);
}

export function supportsClose(protocol: string): boolean {
  return protocol === V5_PROTOCOL;
}

export function encodeFrame(channel: number, payload: Uint8Array | string = ""): Buffer {
  if (!Number.isInteger(channel) || channel < 0 || channel > 255) throw new RangeError(`invalid channel ${channel}`);
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : payload;
  const out = Buffer.allocUnsafe(1 + body.length);
  out[0] = channel;
  out.set(body, 1);
  return out;
}

export interface Frame {
  channel: number;
  payload: Buffer;
}

export function decodeFrame(message: Buffer): Frame {
  if (message.length === 0) throw new ProtocolError("empty message: every message starts with its channel byte");
  return { channel: message[0]!, payload: message.subarray(1) };
}

/** The v5 CLOSE message for a channel: [255, channel]. */
export function encodeClose(channel: number): Buffer {
  return encodeFrame(CLOSE, Buffer.from([channel]));
}

/** The channel a CLOSE payload names; anything but exactly one byte is a protocol error. */
export function decodeClose(payload: Buffer): number {
  if (payload.length !== 1) throw new ProtocolError(`invalid CLOSE message of ${payload.length + 1} bytes: it must be exactly 2`);
  return payload[0]!;
}

export interface TerminalSize {
  width: number;
  height: number;
}

export function encodeResize(size: TerminalSize): Buffer {
  return encodeFrame(RESIZE, `${JSON.stringify({ Width: size.width, Height: size.height })}\n`);
}

function uint16(v: unknown, name: string): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 65535) throw new ProtocolError(`invalid resize message: ${name} must be an integer from 0 to 65535`);
  return v;
}

/**
 * Reads the resize channel, a stream of JSON objects that may be split across messages or share
 * one (client-go writes them with a JSON encoder, one per line). Bounded: a pending fragment larger
 * than MAX_RESIZE_BUFFER is a protocol error.
 */
export class ResizeDecoder {
  private pending = "";

  push(payload: Buffer): TerminalSize[] {
    this.pending += payload.toString("utf8");
    const out: TerminalSize[] = [];
    for (;;) {
      const start = this.pending.search(/\S/);
      if (start < 0) {
        this.pending = "";
        break;
      }
      if (this.pending[start] !== "{") throw new ProtocolError("invalid resize message: expected a JSON object");
      const end = this.pending.indexOf("}", start);
      if (end < 0) break;
      let value: unknown;
      try {
        value = JSON.parse(this.pending.slice(start, end + 1));
      } catch {
        throw new ProtocolError("invalid resize message: not JSON");
      }
      this.pending = this.pending.slice(end + 1);
      const v = value as Record<string, unknown>;
      out.push({ width: uint16(v.Width, "Width"), height: uint16(v.Height, "Height") });
    }
    if (this.pending.length > MAX_RESIZE_BUFFER) throw new ProtocolError("invalid resize message: too long");
    return out;
  }
}

/** metav1.Status as the kubelet writes it on channel 3 (no kind, apiVersion or code). */
export interface ChannelStatus {
  metadata: Record<string, never>;
  status: "Success" | "Failure";
  message?: string;
  reason?: string;
  details?: { causes?: { reason?: string; message?: string }[] };
}

export const NON_ZERO_EXIT_CODE_REASON = "NonZeroExitCode";
export const EXIT_CODE_CAUSE = "ExitCode";

export function successStatus(): ChannelStatus {
  return { metadata: {}, status: "Success" };
}

/** Success for 0; otherwise NonZeroExitCode with the ExitCode cause clients read the code from. */
export function exitStatus(code: number, command?: readonly string[]): ChannelStatus {
  if (code === 0) return successStatus();
  const what = command ? `error executing command [${command.join(" ")}], exit code ${code}` : `exit code ${code}`;
  return {
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: ${what}`,
    reason: NON_ZERO_EXIT_CODE_REASON,
    details: { causes: [{ reason: EXIT_CODE_CAUSE, message: String(code) }] },
  };
}

/** A failure that is not an exit code (the stream broke, the container went away). */
export function failureStatus(message: string, reason = "InternalError"): ChannelStatus {
  return { metadata: {}, status: "Failure", message, reason };
}

export function encodeStatus(status: ChannelStatus): Buffer {
  return encodeFrame(ERROR, JSON.stringify(status));
}

/**
 * What a client makes of channel 3 (as client-go's v4 and v5 executors): 0 for Success, the
 * ExitCode cause's number for NonZeroExitCode, otherwise an Error carrying the message.
 */
export function decodeStatus(payload: Buffer): number | Error {
  let s: ChannelStatus;
  try {
    s = JSON.parse(payload.toString("utf8")) as ChannelStatus;
  } catch {
    return new Error(`error stream protocol error: ${payload.toString("utf8").slice(0, 200)}`);
  }
  if (s.status === "Success") return 0;
  if (s.reason === NON_ZERO_EXIT_CODE_REASON) {
    const cause = s.details?.causes?.find((c) => c.reason === EXIT_CODE_CAUSE);
    const code = Number(cause?.message);
    if (cause && Number.isInteger(code) && code >= 0 && code <= 255) return code;
  }
  return new Error(s.message ?? "unknown error");
}
