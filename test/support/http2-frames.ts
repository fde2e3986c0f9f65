// The frames an HTTP/2 server sends, as they cross the wire: one request on a session of its own
// whose TLS bytes pass through a recording stream (node's HTTP/2 client takes any duplex).
import { connect } from "node:http2";
import { Duplex } from "node:stream";
import { connect as tlsConnect } from "node:tls";
import { h2Request, type H2Response } from "./http2.ts";
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

/** Frames as "HEADERS", "DATA+END" and the like (other types by number). */
export function frameKinds(frames: Frame[]): string[] {
  const names: Record<number, string> = { [FRAME_DATA]: "DATA", [FRAME_HEADERS]: "HEADERS" };
  return frames.map((f) => `${names[f.type] ?? f.type}${f.flags & FLAG_END_STREAM ? "+END" : ""}`);
}

/** Sends one request as the kubeconfig's user; returns the answer and the frames the server sent on its stream. */
export async function h2RequestFrames(
  kubeconfigPath: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<H2Response & { frames: Frame[] }> {
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
    const answer = await h2Request(session, method, path, { body, headers });
    // The session carries this one request: every frame on a stream (not 0, the session's own) is its.
    return { ...answer, frames: parseFrames(Buffer.concat(received)).filter((f) => f.streamId !== 0) };
  } finally {
    session.destroy();
    tls.destroy();
  }
}
