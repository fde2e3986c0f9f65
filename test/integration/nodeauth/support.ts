// An in-process API server with default flags (Node,RBAC; NodeRestriction) and raw clients for
// node identities whose client certificates are issued from the server's own CA, as the node
// bootstrap would issue them.
import assert from "node:assert/strict";
import { join } from "node:path";
import type { KubeObject, WatchEvent } from "../../../src/apis/meta/v1/types.ts";
import { issueClientCertificate } from "../../../src/apiserver/certs/issue.ts";
import { writeKubeconfig } from "../../../src/apiserver/certs/kubeconfig.ts";
import { ensurePki } from "../../../src/apiserver/certs/pki.ts";
import type { RunningServer } from "../../../src/apiserver/server/server.ts";
import { type RawClient, type RawResponse, rawClient } from "../../support/http.ts";
import { startInProcessApiServer } from "../../support/inprocess.ts";

export interface Status {
  kind: string;
  code: number;
  reason: string;
  message: string;
}

export interface Api {
  get(path: string): Promise<RawResponse>;
  post(path: string, body: unknown): Promise<RawResponse>;
  put(path: string, body: unknown): Promise<RawResponse>;
  patch(path: string, body: unknown): Promise<RawResponse>;
  del(path: string, body?: unknown): Promise<RawResponse>;
}

export function api(c: RawClient): Api {
  const json = { "content-type": "application/json" };
  return {
    get: (path) => c.request({ path }),
    post: (path, body) => c.request({ method: "POST", path, body: JSON.stringify(body), headers: json }),
    put: (path, body) => c.request({ method: "PUT", path, body: JSON.stringify(body), headers: json }),
    patch: (path, body) => c.request({ method: "PATCH", path, body: JSON.stringify(body), headers: { "content-type": "application/merge-patch+json" } }),
    del: (path, body) => c.request({ method: "DELETE", path, ...(body ? { body: JSON.stringify(body), headers: json } : {}) }),
  };
}

export function expectOk(r: RawResponse, what: string): void {
  assert.ok(r.status >= 200 && r.status < 300, `${what}: ${r.status} ${r.body.slice(0, 800)}`);
}

/** Asserts a 403 Status whose message matches. */
export function expectForbidden(r: RawResponse, message: RegExp | string, what = ""): void {
  assert.equal(r.status, 403, `${what}: ${r.body.slice(0, 800)}`);
  const st = r.json<Status>();
  assert.deepEqual([st.kind, st.reason], ["Status", "Forbidden"]);
  if (typeof message === "string") assert.equal(st.message, message, what);
  else assert.match(st.message, message, what);
}

export interface NodeAuthServer {
  server: RunningServer;
  admin: Api;
  /** A client authenticated as system:node:<name> in system:nodes. */
  node(name: string): Promise<Api>;
  /** Opens a watch on `resource` (core group); `event` resolves at the first event for which `match` holds. */
  watchFor(resource: string, match: (e: WatchEvent) => boolean): Promise<{ event: Promise<WatchEvent> }>;
  stop(): Promise<void>;
}

export async function startNodeAuthServer(): Promise<NodeAuthServer> {
  const inProcess = await startInProcessApiServer();
  const { server, dataDir: dir } = inProcess;
  // The server's PKI under its data directory (--cert-dir's default).
  const pki = await ensurePki(join(dir, "pki"));
  const clients: RawClient[] = [];
  const open = (kubeconfig: string) => {
    const c = rawClient(kubeconfig);
    clients.push(c);
    return api(c);
  };
  return {
    server,
    admin: open(server.adminKubeconfigPath),
    async node(name) {
      const cert = await issueClientCertificate(pki.ca, { commonName: `system:node:${name}`, organizations: ["system:nodes"] });
      const path = join(dir, `node-${name}.kubeconfig`);
      await writeKubeconfig(path, { server: server.url, caPem: server.caPem, clusterName: "shoot", userName: name, user: cert });
      return open(path);
    },
    async watchFor(resource, match) {
      let found!: (e: WatchEvent) => void;
      let failed!: (err: unknown) => void;
      const event = new Promise<WatchEvent>((resolve, reject) => ((found = resolve), (failed = reject)));
      const handle = await server.client.watch({ group: "", resource }, undefined, (e) => (match(e) ? found(e) : undefined), (err) => failed(err));
      return { event: event.finally(() => handle.stop()) };
    },
    async stop() {
      for (const c of clients) c.close();
      await inProcess.stop();
    },
  };
}

export const eventOn = (type: WatchEvent["type"], name: string, nodeName?: string) => (e: WatchEvent) => {
  const o = e.object as KubeObject;
  return e.type === type && o.metadata.name === name && (nodeName === undefined || (o.spec as { nodeName?: string } | undefined)?.nodeName === nodeName);
};
