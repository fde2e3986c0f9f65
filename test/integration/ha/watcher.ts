// A watch client for the high-availability test: it watches one collection through a list of API
// server replicas, resuming from the last resourceVersion it saw (on the same replica while it
// answers, else the next one), as client-go's reflector does behind a load balancer. It records
// every event, every resumption and every refusal to resume (410 Gone: promised events lost).
import type { ClientRequest } from "node:http";
import { request } from "node:https";
import { readKubeconfig } from "../../support/kubeconfig.ts";

export interface Seen {
  type: string;
  name: string;
  rv: number;
}

export interface Endpoint {
  kubeconfig: string;
}

export class ResumingWatcher {
  readonly events: Seen[] = [];
  /** "replica i from rv" per (re)connection. */
  readonly connections: string[] = [];
  /** Anything but events and bookmarks: 410 Gone, ERROR objects, non-200 answers. */
  readonly failures: string[] = [];
  lastRv: number;
  private current = 0;
  private stopped = false;
  private req: ClientRequest | undefined;
  private readonly done: Promise<void>;

  constructor(
    private readonly endpoints: Endpoint[],
    private readonly path: string,
    startRv: number,
    first = 0,
  ) {
    this.lastRv = startRv;
    this.current = first;
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.req?.destroy();
    await this.done;
  }

  private async loop(): Promise<void> {
    let failuresInARow = 0;
    while (!this.stopped) {
      const ok = await this.once(this.endpoints[this.current]!);
      if (this.stopped) return;
      // A replica that did not answer: try the next one.
      if (!ok) {
        this.current = (this.current + 1) % this.endpoints.length;
        failuresInARow++;
      } else failuresInARow = 0;
      await new Promise((r) => setTimeout(r, Math.min(50 * failuresInARow, 500)));
    }
  }

  /** One watch request; false if the replica could not be reached or broke off without answering. */
  private once(ep: Endpoint): Promise<boolean> {
    const kc = readKubeconfig(ep.kubeconfig);
    const url = new URL(kc.server);
    this.connections.push(`replica ${this.current} from ${this.lastRv}`);
    const query = `watch=1&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion=${this.lastRv}`;
    return new Promise<boolean>((resolve) => {
      let answered = false;
      const req = request(
        { host: url.hostname, port: url.port, path: `${this.path}?${query}`, ca: kc.caPem, cert: kc.certPem, key: kc.keyPem, headers: { accept: "application/json" } },
        (res) => {
          answered = true;
          if (res.statusCode !== 200) {
            let body = "";
            res.on("data", (c: Buffer) => (body += c.toString()));
            res.on("end", () => {
              this.failures.push(`status ${res.statusCode} from replica ${this.current}: ${body.slice(0, 300)}`);
              resolve(false);
            });
            res.on("error", () => resolve(false));
            return;
          }
          let buf = "";
          res.on("data", (c: Buffer) => {
            buf += c.toString();
            let nl: number;
            while ((nl = buf.indexOf("\n")) >= 0) {
              const line = buf.slice(0, nl).trim();
              buf = buf.slice(nl + 1);
              if (line) this.onLine(line);
            }
          });
          res.on("end", () => resolve(true));
          res.on("error", () => resolve(false));
          res.on("aborted", () => resolve(false));
        },
      );
      this.req = req;
      req.on("error", () => resolve(answered));
      req.setTimeout(20_000, () => req.destroy());
      req.end();
    });
  }

  private onLine(line: string): void {
    const ev = JSON.parse(line) as { type: string; object: { metadata?: { name?: string; resourceVersion?: string }; code?: number; message?: string } };
    if (ev.type === "ERROR") {
      this.failures.push(`ERROR ${ev.object.code}: ${ev.object.message}`);
      return;
    }
    const rv = Number(ev.object.metadata?.resourceVersion);
    if (ev.type !== "BOOKMARK") this.events.push({ type: ev.type, name: ev.object.metadata?.name ?? "", rv });
    if (rv > this.lastRv) this.lastRv = rv;
  }
}
