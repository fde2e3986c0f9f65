// Smoke test of the assembled server: starts gardener-apiserver in-process on a free port with a
// temporary data directory (test/support/inprocess.ts) and talks HTTPS to it with the admin client certificate from the
// admin kubeconfig it wrote: discovery, ConfigMap create/get/list/watch, Tables, OpenAPI, and a
// clean end of watches on stop.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { request, type RequestOptions } from "node:https";
import type { IncomingMessage } from "node:http";
import { after, before, describe, it } from "node:test";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { parse as parseYaml } from "yaml";
import type { RunningServer } from "../../src/apiserver/server/server.ts";
import { type InProcessServer, startInProcessApiServer } from "../support/inprocess.ts";
import { pollFor } from "../../src/utils/poll.ts";

interface Kubeconfig {
  clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
  users: { user: { "client-certificate-data": string; "client-key-data": string } }[];
}

let inProcess: InProcessServer | undefined;
let server: RunningServer;
let tlsOpts: Pick<RequestOptions, "ca" | "cert" | "key">;

before(async () => {
  inProcess = await startInProcessApiServer();
  server = inProcess.server;
  const kc = parseYaml(await readFile(server.adminKubeconfigPath, "utf8")) as Kubeconfig;
  const b64 = (s: string) => Buffer.from(s, "base64").toString("utf8");
  assert.equal(kc.clusters[0]?.cluster.server, server.url);
  tlsOpts = {
    ca: b64(kc.clusters[0]!.cluster["certificate-authority-data"]),
    cert: b64(kc.users[0]!.user["client-certificate-data"]),
    key: b64(kc.users[0]!.user["client-key-data"]),
  };
});

after(async () => {
  await inProcess?.stop();
});

interface Reply {
  status: number;
  headers: IncomingMessage["headers"];
  text: string;
  json<T = Record<string, unknown>>(): T;
}

function call(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; anonymous?: boolean } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const tls = opts.anonymous ? { ca: tlsOpts.ca } : tlsOpts;
    const req = request(server.url + path, { method, ...tls, headers: { accept: "application/json", ...opts.headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T }));
    });
    req.on("error", reject);
    if (opts.body !== undefined) {
      if (!req.hasHeader("content-type")) req.setHeader("content-type", "application/json");
      req.end(JSON.stringify(opts.body));
    } else req.end();
  });
}

/** Opens a watch; lines arrive in `events`; `ended` resolves with how the stream ended. */
function watch(path: string) {
  const events: { type: string; object: { metadata: { name: string; resourceVersion: string } } }[] = [];
  let res: IncomingMessage | undefined;
  const ended = new Promise<"end" | "error">((resolveEnd) => {
    const req = request(server.url + path, { ...tlsOpts }, (r) => {
      res = r;
      let buf = "";
      r.setEncoding("utf8");
      r.on("data", (c: string) => {
        buf += c;
        let i;
        while ((i = buf.indexOf("\n")) >= 0) {
          events.push(JSON.parse(buf.slice(0, i)) as (typeof events)[number]);
          buf = buf.slice(i + 1);
        }
      });
      r.on("end", () => resolveEnd("end"));
      r.on("error", () => resolveEnd("error"));
    });
    req.on("error", () => resolveEnd("error"));
    req.end();
  });
  return { events, ended, status: () => res?.statusCode };
}

const until = (cond: () => boolean, what: string): Promise<void> => pollFor(what, cond, { intervalMs: 10 });

void describe("gardener-apiserver smoke", () => {
  void it("serves version, health and discovery", async () => {
    assert.equal((await call("GET", "/healthz")).text, "ok");
    assert.equal((await call("GET", "/readyz")).text, "ok");
    assert.equal((await call("GET", "/version")).json().major, "1");
    const api = (await call("GET", "/api")).json<{ kind: string; versions: string[] }>();
    assert.deepEqual([api.kind, api.versions], ["APIVersions", ["v1"]]);
    const core = (await call("GET", "/api/v1")).json<{ resources: { name: string; verbs: string[] }[] }>();
    const cms = core.resources.find((r) => r.name === "configmaps");
    assert.ok(cms?.verbs.includes("watch"));
    assert.ok(core.resources.some((r) => r.name === "serviceaccounts/token"));
    const agg = await call("GET", "/apis", { headers: { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json" } });
    assert.equal(agg.headers["content-type"], "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    const groups = agg.json<{ items: { metadata: { name: string } }[] }>().items.map((i) => i.metadata.name);
    assert.ok(groups.includes("rbac.authorization.k8s.io"));
    assert.ok(groups.includes("authorization.k8s.io"));
    const legacy = (await call("GET", "/apis")).json<{ kind: string }>();
    assert.equal(legacy.kind, "APIGroupList");
    const index = (await call("GET", "/openapi/v3")).json<{ paths: Record<string, { serverRelativeURL: string }> }>();
    const v1 = await call("GET", index.paths["api/v1"]!.serverRelativeURL);
    assert.equal(v1.status, 200);
    assert.ok(v1.json<{ components: { schemas: Record<string, unknown> } }>().components.schemas["io.k8s.api.core.v1.ConfigMap"]);
  });

  void it("serves requests without credentials as system:anonymous, which RBAC refuses", async () => {
    const res = await call("GET", "/api/v1/namespaces", { anonymous: true });
    assert.equal(res.status, 403);
    assert.equal(res.headers["content-type"], "application/json");
    assert.equal(res.json<{ message: string }>().message, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
  });

  void it("creates, gets, lists, watches and deletes a ConfigMap", async () => {
    const created = await call("POST", "/api/v1/namespaces/default/configmaps", {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "smoke", labels: { app: "smoke" } }, data: { a: "1" } },
    });
    assert.equal(created.status, 201, created.text);
    const obj = created.json<{ metadata: { uid: string; resourceVersion: string; namespace: string } }>();
    assert.equal(obj.metadata.namespace, "default");
    assert.ok(obj.metadata.uid);

    const got = (await call("GET", "/api/v1/namespaces/default/configmaps/smoke")).json<{ data: Record<string, string> }>();
    assert.deepEqual(got.data, { a: "1" });

    const list = (await call("GET", "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dsmoke")).json<{ kind: string; metadata: { resourceVersion: string }; items: unknown[] }>();
    assert.equal(list.kind, "ConfigMapList");
    assert.equal(list.items.length, 1);
    assert.match(list.metadata.resourceVersion, /^\d+$/);

    const table = (
      await call("GET", "/api/v1/namespaces/default/configmaps", { headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" } })
    ).json<{ kind: string; metadata: { resourceVersion: string }; rows: { cells: unknown[] }[] }>();
    assert.equal(table.kind, "Table");
    assert.ok(table.metadata.resourceVersion);
    assert.ok(table.rows.some((r) => r.cells[0] === "smoke"));

    const w = watch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
    await until(() => w.status() === 200, "the watch to start");
    const patched = await call("PATCH", "/api/v1/namespaces/default/configmaps/smoke", {
      body: { data: { a: "2" } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(patched.status, 200, patched.text);
    await until(() => w.events.length >= 1, "the MODIFIED event");
    assert.equal(w.events[0]?.type, "MODIFIED");
    assert.equal(w.events[0]?.object.metadata.name, "smoke");

    const del = await call("DELETE", "/api/v1/namespaces/default/configmaps/smoke");
    assert.equal(del.status, 200);
    await until(() => w.events.length >= 2, "the DELETED event");
    assert.equal(w.events[1]?.type, "DELETED");
    assert.equal((await call("GET", "/api/v1/namespaces/default/configmaps/smoke")).status, 404);
  });

  void it("works with @kubernetes/client-node through the admin kubeconfig", async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(server.adminKubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "from-client-node" }, data: { k: "v" } } });
    const list = await core.listNamespacedConfigMap({ namespace: "default" });
    assert.ok(list.items.some((c) => c.metadata?.name === "from-client-node"));
    const nss = await core.listNamespace();
    assert.ok(nss.items.some((n) => n.metadata?.name === "kube-system"));
  });

  void it("ends running watches cleanly on stop", async () => {
    const w = watch("/api/v1/namespaces/default/configmaps?watch=true");
    await until(() => w.status() === 200, "the watch to start");
    await server.stop();
    assert.equal(await w.ended, "end");
  });
});
