// Session recordings on disk (docs/dashboard.md#recordings): `<dir>/<namespace>/<id>.cast` (asciicast
// v2) and `<id>.json` (metadata, the only thing reads are authorized by). Events are buffered and
// written at least every second on the injected clock, or at once when 64 KiB are waiting, so a crash
// loses at most the last second.
import { randomBytes } from "node:crypto";
import { createReadStream, type ReadStream } from "node:fs";
import { type FileHandle, mkdir, open, readFile, readdir, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Clock, Timer } from "../../utils/clock.ts";
import { CastEncoder } from "./asciicast.ts";

export interface RecordingMeta {
  id: string;
  namespace: string;
  /** The Terminal, for sessions through /api/terminals/attach. */
  terminal?: { name: string; uid?: string; identifier?: string };
  /** The garden's name of the user whose token opened the session. */
  user: string;
  host: { namespace: string; pod: string };
  startedAt: string;
  endedAt?: string;
  durationSeconds?: number;
  bytes: number;
  input: boolean;
  truncated: boolean;
}

export interface RecordingOptions {
  dir: string;
  /** Record keystrokes ("i" events); default false. */
  input?: boolean;
  /** Per cast; default 64 MiB. */
  maxBytes?: number;
}

const FLUSH_MS = 1000;
const FLUSH_BYTES = 64 * 1024;
const MAX_META_BYTES = 64 * 1024;
/** At most this many of a namespace's newest recordings are read for a listing, and answered. */
const LIST_SCAN = 5000;
export const LIST_MAX = 500;
const ID = /^[0-9]{8}T[0-9]{6}Z-[A-Za-z0-9_.-]{1,160}$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export const validId = (id: string): boolean => ID.test(id);

/** `<UTC start>-<user>-<name>-<8 hex>`: who, what and when, readable in a directory listing. */
export function recordingId(startMs: number, user: string, name: string): string {
  const when = new Date(startMs).toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const who = user.replace(/[^A-Za-z0-9.-]/g, "_").slice(0, 64) || "_";
  return `${when}-${who}-${name.slice(0, 63)}-${randomBytes(4).toString("hex")}`;
}

/** One session being recorded: feed it, then `close()`. */
export class Recording {
  private buffer: string[] = [];
  private buffered = 0;
  private timer: Timer | undefined;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  readonly cast: CastEncoder;

  constructor(readonly meta: RecordingMeta, private readonly file: FileHandle, private readonly metaPath: string, private readonly clock: Clock, maxBytes: number) {
    this.cast = new CastEncoder({ startMs: Date.parse(meta.startedAt), title: `${meta.namespace}/${meta.terminal?.name ?? meta.host.pod}`, input: meta.input, maxBytes }, (line) => this.push(line));
  }

  private push(line: string): void {
    if (this.closed) return;
    this.buffer.push(line);
    this.buffered += line.length;
    if (this.buffered >= FLUSH_BYTES) void this.flush();
    else this.timer ??= this.clock.setTimer(FLUSH_MS, () => void this.flush());
  }

  /** Writes what is buffered (in order, one write at a time). */
  flush(): Promise<void> {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.buffer.length === 0) return this.writing;
    const text = this.buffer.join("");
    this.buffer = [];
    this.buffered = 0;
    this.writing = this.writing.then(() => this.file.write(text)).then(() => undefined, () => undefined);
    return this.writing;
  }

  output(channel: number, payload: Uint8Array): void {
    this.cast.output(this.clock.nowMs(), channel, payload);
  }
  input(payload: Uint8Array): void {
    this.cast.input(this.clock.nowMs(), payload);
  }
  resize(cols: number, rows: number): void {
    this.cast.resize(this.clock.nowMs(), cols, rows);
  }

  /** Ends the recording: the rest of the cast, then the final metadata. */
  async close(): Promise<void> {
    if (this.closed) return this.writing;
    const now = this.clock.nowMs();
    this.cast.end(now);
    await this.flush();
    this.closed = true;
    await this.file.close().catch(() => undefined);
    const started = Date.parse(this.meta.startedAt);
    Object.assign(this.meta, { endedAt: new Date(now).toISOString(), durationSeconds: Math.max(0, Math.round(now - started) / 1000), bytes: this.cast.bytes, truncated: this.cast.truncated });
    await writeMeta(this.metaPath, this.meta).catch(() => undefined);
  }
}

async function writeMeta(path: string, meta: RecordingMeta): Promise<void> {
  const tmp = `${path}.tmp`;
  await writeFile(tmp, `${JSON.stringify(meta)}\n`, { mode: 0o600 });
  await rename(tmp, path);
}

async function readMeta(path: string): Promise<RecordingMeta | undefined> {
  try {
    if ((await stat(path)).size > MAX_META_BYTES) return undefined;
    const m = JSON.parse(await readFile(path, "utf8")) as RecordingMeta;
    return typeof m?.id === "string" && typeof m.user === "string" ? m : undefined;
  } catch {
    return undefined;
  }
}

export class RecordingStore {
  readonly input: boolean;
  private readonly maxBytes: number;

  constructor(private readonly o: RecordingOptions, private readonly clock: Clock) {
    this.input = o.input ?? false;
    this.maxBytes = o.maxBytes ?? 64 * 1024 * 1024;
  }

  /** Opens a new recording (its files exist when this resolves). */
  async start(m: Pick<RecordingMeta, "namespace" | "terminal" | "user" | "host">): Promise<Recording> {
    if (!NAMESPACE.test(m.namespace)) throw new Error(`not a namespace: ${m.namespace}`);
    const startMs = this.clock.nowMs();
    const id = recordingId(startMs, m.user, m.terminal?.name ?? m.host.pod);
    const dir = join(this.o.dir, m.namespace);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const meta: RecordingMeta = { id, ...m, startedAt: new Date(startMs).toISOString(), bytes: 0, input: this.input, truncated: false };
    const metaPath = join(dir, `${id}.json`);
    await writeMeta(metaPath, meta);
    const file = await open(join(dir, `${id}.cast`), "wx", 0o600);
    return new Recording(meta, file, metaPath, this.clock, this.maxBytes);
  }

  /** The metadata of a namespace's newest recordings that `canRead` allows, newest first. */
  async list(namespace: string, canRead: (m: RecordingMeta) => boolean): Promise<RecordingMeta[]> {
    if (!NAMESPACE.test(namespace)) return [];
    const dir = join(this.o.dir, namespace);
    const names = await readdir(dir).catch(() => [] as string[]);
    const ids = names.filter((n) => n.endsWith(".json")).map((n) => n.slice(0, -5)).filter(validId).sort().reverse().slice(0, LIST_SCAN);
    const out: RecordingMeta[] = [];
    for (const id of ids) {
      const m = await readMeta(join(dir, `${id}.json`));
      if (m && m.id === id && m.namespace === namespace && canRead(m)) out.push(m);
      if (out.length >= LIST_MAX) break;
    }
    // ids sort by the second; within one, by the start's milliseconds
    return out.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.id.localeCompare(a.id));
  }

  /** One recording's metadata and cast, if it exists and `canRead` allows it. */
  async open(namespace: string, id: string, canRead: (m: RecordingMeta) => boolean): Promise<{ meta: RecordingMeta; cast: ReadStream; size: number } | undefined> {
    if (!NAMESPACE.test(namespace) || !validId(id)) return undefined;
    const dir = join(this.o.dir, namespace);
    const meta = await readMeta(join(dir, `${id}.json`));
    if (!meta || meta.id !== id || meta.namespace !== namespace || !canRead(meta)) return undefined;
    const path = join(dir, `${id}.cast`);
    const size = await stat(path).then((s) => s.size, () => -1);
    if (size < 0) return undefined;
    return { meta, cast: createReadStream(path, { end: Math.max(0, size - 1) }), size };
  }
}
