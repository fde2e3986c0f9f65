// The frames an HTTP/2 server sends, as they cross the wire: one request on a session of its own
// whose TLS bytes pass through a recording stream (node's HTTP/2 client takes any duplex).
import { connect } from "node:http2";
import { Duplex } from "node:stream";
import { connect as tlsConnect } from "node:tls";
import { readKubeconfig } from "./kubeconfig.ts";

export const FRAME_DATA = 0x0;
export const FRAME_HEADERS = 0x1;
export const FLAG_END_STREAM = 0x1;

export interface Frame {
  type: number;
  flags: number;
  streamId: number;
  length: number;
}

/** The frames in `bytes` (a server's side of a session: it sends no preface string). */
export function parseFrames(bytes: Buffer): Frame[] {
  const frames: Frame[] = [];
  for (let at = 0; at + 9 <= bytes.length; ) {
    const length = bytes.readUIntBE(at, 3);
    frames.push({ length, type: bytes[at + 3]!, flags: bytes[at + 4]!, streamId: bytes.readUInt32BE(at + 5) & 0x7fffffff });
    at += 9 + length;
  }
  return frames;
}

/** Sends one request as the kubeconfig's user; returns the answer and the frames the server sent on its stream. */
export async function h2RequestFrames(
  kubeconfigPath: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string; frames: Frame[] }> {
  const kc = readKubeconfig(kubeconfigPath);
  const url = new URL(kc.server);
  const tls = tlsConnect({ host: url.hostname, port: Number(url.port), ca: kc.caPem, cert: kc.certPem, key: kc.keyPem, ALPNProtocols: ["h2"] });
  await new Promise<void>((resolve, reject) => tls.once("secureConnect", resolve).once("error", reject));
  const received: Buffer[] = [];
  const tap = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      tls.write(chunk, done);
    },
    final(done) {
      tls.end();
      done();
    },
    destroy(err, done) {
      tls.destroy();
      done(err);
    },
  });
  tls.on("data", (chunk: Buffer) => {
    received.push(chunk);
    tap.push(chunk);
  });
  tls.on("end", () => tap.push(null));
  const session = connect(kc.server, { createConnection: () => tap });
  session.on("error", () => {});
  try {
    const answer = await new Promise<{ status: number; headers: Record<string, unknown>; body: string; streamId: number }>((resolve, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const stream = session.request({ ":method": method, ":path": path, accept: "application/json", ...(text !== undefined ? { "content-type": "application/json" } : {}), ...headers });
      let got: Record<string, unknown> = {};
      const chunks: Buffer[] = [];
      stream.on("response", (h) => (got = h));
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("error", reject);
      stream.on("close", () => resolve({ status: Number(got[":status"]), headers: got, body: Buffer.concat(chunks).toString("utf8"), streamId: stream.id! }));
      stream.end(text);
    });
    const frames = parseFrames(Buffer.concat(received)).filter((f) => f.streamId === answer.streamId);
    return { status: answer.status, headers: answer.headers, body: answer.body, frames };
  } finally {
    session.destroy();
    tls.destroy();
  }
}
