// One watch stream, with every way it can end made visible. client-node's Watch reports an
// abrupt socket close as a normal end and drops undecodable lines; here the returned promise
// resolves only when the server ended the response cleanly (or the caller aborted), and
// rejects on: a non-200 answer (StatusError), an ERROR event (StatusError from its Status,
// e.g. 410 Expired), an undecodable or unknown event, a broken connection, or a throwing handler.
import type { KubeObject, Status, WatchEvent } from "../apis/meta/v1/types.ts";
import { statusErrorFromStatus } from "./errors.ts";
import type { QueryValue, Transport } from "./transport.ts";

export class WatchStreamError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WatchStreamError";
  }
}

const eventTypes = new Set(["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]);

export async function watchStream<T extends KubeObject = KubeObject>(
  transport: Transport,
  path: string,
  query: Record<string, QueryValue>,
  onEvent: (ev: WatchEvent<T>) => void,
  signal: AbortSignal,
): Promise<void> {
  const res = await transport.stream({ path, query: { ...query, watch: true }, signal });
  res.setEncoding("utf8");
  return new Promise<void>((resolve, reject) => {
    let buf = "";
    let settled = false;
    const finish = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      if (err === undefined || signal.aborted) resolve();
      else reject(err);
      if (!res.destroyed && (err !== undefined || signal.aborted)) res.destroy();
    };
    const onAbort = (): void => finish();
    signal.addEventListener("abort", onAbort, { once: true });

    const handleLine = (line: string): void => {
      if (line.trim() === "") return;
      let ev: WatchEvent<T>;
      try {
        ev = JSON.parse(line) as WatchEvent<T>;
      } catch (e) {
        throw new WatchStreamError(`undecodable watch event on ${path}: ${line.slice(0, 200)}`, { cause: e });
      }
      if (ev.type === "ERROR") throw statusErrorFromStatus(ev.object as unknown as Status);
      if (!eventTypes.has(ev.type) || typeof ev.object !== "object" || ev.object === null) {
        throw new WatchStreamError(`unexpected watch event on ${path}: ${line.slice(0, 200)}`);
      }
      onEvent(ev);
    };

    res.on("data", (chunk: string) => {
      if (settled) return;
      buf += chunk;
      let start = 0;
      let nl: number;
      try {
        while (!settled && (nl = buf.indexOf("\n", start)) >= 0) {
          const line = buf.slice(start, nl);
          start = nl + 1;
          handleLine(line);
        }
        buf = buf.slice(start);
      } catch (e) {
        finish(e);
      }
    });
    res.on("end", () => {
      try {
        handleLine(buf);
        finish();
      } catch (e) {
        finish(e);
      }
    });
    res.on("error", (e) => finish(new WatchStreamError(`watch on ${path} broke: ${e.message}`, { cause: e })));
    res.on("close", () => {
      if (!res.complete) finish(new WatchStreamError(`watch on ${path}: the connection closed before the server ended the stream`));
    });
  });
}
