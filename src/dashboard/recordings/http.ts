// Reading recordings (docs/dashboard.md#recordings): `listRecordings` of `POST /api/terminals` and
// `GET /api/terminals/recordings/<namespace>/<id>`. Who may read one is decided from its stored
// metadata: the user the garden named when the session was opened, or an operator.
import type { IncomingMessage, ServerResponse } from "node:http";
import { StatusError } from "../../apimachinery/errors.ts";
import { isAdmin, whoAmI } from "../identity.ts";
import { writeStatus } from "../static.ts";
import type { RecordingMeta, RecordingStore } from "./store.ts";

export const RECORDINGS_PREFIX = "/api/terminals/recordings/";

export interface Reader {
  name: string;
  isAdmin: boolean;
}

export const canRead = (reader: Reader) => (m: RecordingMeta): boolean => reader.isAdmin || m.user === reader.name;

export async function listRecordings(store: RecordingStore | undefined, reader: Reader, p: { coordinate?: { namespace?: string; name?: string } }): Promise<RecordingMeta[]> {
  const namespace = p.coordinate?.namespace;
  if (!namespace) throw new StatusError(422, "Invalid", "coordinate.namespace is required");
  if (!store) return [];
  const name = p.coordinate?.name;
  const readable = canRead(reader);
  return store.list(namespace, (m) => readable(m) && (name === undefined || m.terminal?.name === name));
}

async function serve(api: { url: string; caPem?: string }, store: RecordingStore | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") throw new StatusError(405, "MethodNotAllowed", `${req.method} is not allowed: recordings are read-only`);
  const token = /^Bearer ([^\s]{1,16384})$/.exec(String(req.headers.authorization ?? ""))?.[1];
  if (!token) throw new StatusError(401, "Unauthorized", "No authorization token was found");
  const parts = new URL(req.url ?? "/", "http://x").pathname.slice(RECORDINGS_PREFIX.length).split("/");
  if (parts.length !== 2) throw new StatusError(404, "NotFound", `the path is ${RECORDINGS_PREFIX}<namespace>/<id>`);
  const [namespace, id] = parts as [string, string];
  const who = await whoAmI(api, token);
  if (who.kind === "error") throw new StatusError(who.code, who.reason as never, who.message);
  const reader = { name: who.username, isAdmin: await isAdmin(api, token) };
  const found = await store?.open(namespace, id, canRead(reader));
  if (!found) throw new StatusError(404, "NotFound", `recording "${id.slice(0, 200)}" not found`);
  res.writeHead(200, { "content-type": "application/x-asciicast", "content-length": found.size, "cache-control": "no-store", "content-disposition": `attachment; filename="${found.meta.id}.cast"` });
  // a listener before anything else: a read error (or one after HEAD's destroy) must not end the process
  found.cast.on("error", () => res.destroy());
  if (req.method === "HEAD") {
    found.cast.destroy();
    return void res.end();
  }
  found.cast.pipe(res);
}

/** Answers one recording download; never a stack trace. */
export function serveRecording(api: { url: string; caPem?: string }, store: RecordingStore | undefined, req: IncomingMessage, res: ServerResponse): void {
  serve(api, store, req, res).catch((err: unknown) => {
    if (res.headersSent) return void res.destroy();
    if (err instanceof StatusError) return writeStatus(res, err.code, err.reason, err.message);
    writeStatus(res, 500, "InternalError", "the recording cannot be read");
  });
}
