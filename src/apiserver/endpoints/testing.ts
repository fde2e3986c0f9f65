// Test support for the endpoint tests: an in-memory ObjectStore that records calls, header-based
// fake authentication and a configurable authorizer, and an HTTP test server around the handler.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { Registry } from "prom-client";
import type { KubeList, KubeObject, WatchEvent } from "../../apis/meta/v1/types.ts";
import { newAlreadyExists, newNotFound, newResourceExpired } from "../../apimachinery/errors.ts";
import { FakeClock } from "../../utils/clock.ts";
import type { RequestAuthenticator, UserInfo } from "../authentication/types.ts";
import type { AuthorizationAttributes, Authorizer, AuthorizationResult } from "../authorization/types.ts";
import type { DeleteResult, ListOptions, ObjectStore, WatchHandle, WatchOptions, WatchSink, WriteResult } from "../registry/generic/interface.ts";
import { ResourceRegistry } from "../registry/registry.ts";
import type { RequestContext, ResourceDefinition } from "../registry/types.ts";
import type { HandlerDeps } from "./deps.ts";
import { type ApiHandler, createHandler } from "./handler.ts";

export function widgetDef(overrides: Partial<ResourceDefinition> = {}): ResourceDefinition {
  return {
    group: "demo.io",
    version: "v1",
    kind: "Widget",
    listKind: "WidgetList",
    plural: "widgets",
    singular: "widget",
    namespaced: true,
    shortNames: ["wd"],
    categories: ["all"],
    hasStatus: true,
    strategicMergePatch: false,
    schema: {
      type: "object",
      properties: {
        apiVersion: { type: "string" },
        kind: { type: "string" },
        metadata: { type: "object" },
        spec: { type: "object", properties: { color: { type: "string" }, size: { type: "integer", nullable: true } } },
        status: { type: "object", properties: { phase: { type: "string" } } },
      },
    },
    strategy: {},
    ...overrides,
  };
}

export function configMapDef(): ResourceDefinition {
  return {
    group: "",
    version: "v1",
    kind: "ConfigMap",
    listKind: "ConfigMapList",
    plural: "configmaps",
    singular: "configmap",
    namespaced: true,
    shortNames: ["cm"],
    hasStatus: false,
    strategicMergePatch: true,
    schema: { type: "object", properties: { data: { type: "object", additionalProperties: { type: "string" } } } },
    strategy: {},
  };
}

interface Call {
  method: string;
  ctx: RequestContext;
  args: unknown[];
}

/** Minimal in-memory store: enough semantics to exercise the HTTP layer, recording every call. */
export class FakeStore implements ObjectStore {
  readonly objects = new Map<string, KubeObject>();
  readonly calls: Call[] = [];
  readonly sinks = new Set<WatchSink>();
  rv = 100;
  warnings: string[] = [];
  /** Make the next watch fail with 410 at start (as an HTTP answer). */
  expireNextWatch = false;

  constructor(readonly def: ResourceDefinition) {}

  private key(ns: string | undefined, name: string): string {
    return `${ns ?? ""}/${name}`;
  }
  private record(method: string, ctx: RequestContext, ...args: unknown[]): void {
    this.calls.push({ method, ctx, args });
  }
  lastCall(method: string): Call | undefined {
    return [...this.calls].reverse().find((c) => c.method === method);
  }
  private gr() {
    return { group: this.def.group, resource: this.def.plural };
  }
  private notify(type: WatchEvent["type"], obj: KubeObject): void {
    for (const s of this.sinks) if (s.onEvent({ type, object: structuredClone(obj) }) === false) this.sinks.delete(s);
  }

  get(ctx: RequestContext, name: string): Promise<KubeObject> {
    this.record("get", ctx, name);
    const o = this.objects.get(this.key(ctx.namespace, name));
    return o ? Promise.resolve(structuredClone(o)) : Promise.reject(newNotFound(this.gr(), name));
  }
  list(ctx: RequestContext, options?: ListOptions): Promise<KubeList> {
    this.record("list", ctx, options);
    const items = [...this.objects.values()].filter((o) => !ctx.namespace || o.metadata.namespace === ctx.namespace);
    return Promise.resolve({ metadata: { resourceVersion: String(this.rv), continue: options?.limit ? "tok" : undefined }, items: structuredClone(items) });
  }
  watch(ctx: RequestContext, options: WatchOptions, sink: WatchSink): Promise<WatchHandle> {
    this.record("watch", ctx, options);
    if (this.expireNextWatch) {
      this.expireNextWatch = false;
      return Promise.reject(newResourceExpired("too old resource version: 1 (50)"));
    }
    if (!options.resourceVersion || options.resourceVersion === "0") {
      for (const o of this.objects.values()) sink.onEvent({ type: "ADDED", object: structuredClone(o) });
    }
    this.sinks.add(sink);
    return Promise.resolve({ stop: () => this.sinks.delete(sink) });
  }
  /** Ends every watch with an error (e.g. 410 after compaction). */
  endWatches(err?: Parameters<WatchSink["onEnd"]>[0]): void {
    for (const s of [...this.sinks]) s.onEnd(err);
    this.sinks.clear();
  }
  create(ctx: RequestContext, obj: KubeObject, options?: unknown): Promise<WriteResult> {
    this.record("create", ctx, obj, options);
    const name = obj.metadata.name ?? `${obj.metadata.generateName ?? "x-"}abcde`;
    const k = this.key(obj.metadata.namespace, name);
    if (this.objects.has(k)) return Promise.reject(newAlreadyExists(this.gr(), name));
    const stored = { ...structuredClone(obj), metadata: { ...obj.metadata, name, resourceVersion: String(++this.rv), uid: `uid-${name}`, creationTimestamp: "2026-01-01T00:00:00Z" } };
    if (!ctx.dryRun) {
      this.objects.set(k, stored);
      this.notify("ADDED", stored);
    }
    return Promise.resolve({ object: structuredClone(stored), warnings: this.warnings });
  }
  update(ctx: RequestContext, name: string, obj: KubeObject, options?: unknown, subresource?: string): Promise<WriteResult> {
    this.record("update", ctx, name, obj, options, subresource);
    const k = this.key(ctx.namespace, name);
    const created = !this.objects.has(k);
    const stored = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
    this.objects.set(k, stored);
    this.notify(created ? "ADDED" : "MODIFIED", stored);
    return Promise.resolve({ object: structuredClone(stored), warnings: this.warnings, created });
  }
  patch(ctx: RequestContext, name: string, type: string, patch: unknown, options?: unknown, subresource?: string): Promise<WriteResult> {
    this.record("patch", ctx, name, type, patch, options, subresource);
    const old = this.objects.get(this.key(ctx.namespace, name));
    if (!old) return Promise.reject(newNotFound(this.gr(), name));
    const stored = { ...old, ...(type === "json" ? {} : (patch as object)), metadata: { ...old.metadata, resourceVersion: String(++this.rv) } };
    this.objects.set(this.key(ctx.namespace, name), stored);
    this.notify("MODIFIED", stored);
    return Promise.resolve({ object: structuredClone(stored), warnings: this.warnings });
  }
  delete(ctx: RequestContext, name: string, options?: unknown): Promise<DeleteResult> {
    this.record("delete", ctx, name, options);
    const k = this.key(ctx.namespace, name);
    const old = this.objects.get(k);
    if (!old) return Promise.reject(newNotFound(this.gr(), name));
    if (old.metadata.finalizers?.length) {
      const marked = { ...old, metadata: { ...old.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } };
      this.objects.set(k, marked);
      return Promise.resolve({ object: structuredClone(marked), deleted: false });
    }
    this.objects.delete(k);
    this.notify("DELETED", old);
    return Promise.resolve({ object: structuredClone(old), deleted: true });
  }
  deleteCollection(ctx: RequestContext, listOptions: ListOptions, options?: unknown): Promise<KubeList> {
    this.record("deleteCollection", ctx, listOptions, options);
    const items = [...this.objects.values()].filter((o) => !ctx.namespace || o.metadata.namespace === ctx.namespace);
    for (const o of items) this.objects.delete(this.key(o.metadata.namespace, o.metadata.name ?? ""));
    return Promise.resolve({ metadata: { resourceVersion: String(this.rv) }, items });
  }
}

/** `Authorization: Bearer <user>[:<group>,<group>]`; no header: undefined (401). "Bearer bad" throws 401 via returning undefined. */
export const headerAuthenticator: RequestAuthenticator = {
  authenticate(req) {
    const h = req.headers.authorization;
    if (typeof h !== "string" || !h.startsWith("Bearer ") || h === "Bearer bad") return Promise.resolve(undefined);
    const [username = "", groups = ""] = h.slice(7).split(":");
    const user: UserInfo = { username, groups: [...groups.split(",").filter(Boolean), "system:authenticated"] };
    return Promise.resolve(user);
  },
};

/** Allows everything except what `deny` says; records every attribute set it was asked about. */
export class RecordingAuthorizer implements Authorizer {
  readonly seen: AuthorizationAttributes[] = [];
  constructor(public deny: (a: AuthorizationAttributes) => boolean = (a) => a.user.username === "nobody") {}
  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    this.seen.push(attrs);
    return Promise.resolve(this.deny(attrs) ? { decision: "noOpinion", reason: "" } : { decision: "allow", reason: "" });
  }
}

export interface TestServer {
  url: string;
  handler: ApiHandler;
  registry: ResourceRegistry;
  stores: Map<string, FakeStore>;
  authorizer: RecordingAuthorizer;
  clock: FakeClock;
  metrics: Registry;
  store(def: ResourceDefinition): FakeStore;
  fetch(path: string, init?: RequestInit & { user?: string }): Promise<Response>;
  close(): Promise<void>;
}

/** Plain-HTTP server around createHandler with fakes (TLS is the server assembly's business). */
export async function startTestServer(defs: ResourceDefinition[], overrides: Partial<HandlerDeps> = {}): Promise<TestServer> {
  const registry = new ResourceRegistry();
  for (const d of defs) registry.add(d);
  const stores = new Map<string, FakeStore>();
  const store = (def: ResourceDefinition) => {
    const k = `${def.group}/${def.version}/${def.plural}`;
    let s = stores.get(k);
    if (!s) stores.set(k, (s = new FakeStore(def)));
    return s;
  };
  const authorizer = new RecordingAuthorizer();
  const clock = new FakeClock();
  const metrics = new Registry();
  const handler = createHandler({
    registry,
    storeFor: store,
    authenticator: headerAuthenticator,
    authorizer,
    clock,
    logger: pino({ level: "silent" }),
    metrics,
    ...overrides,
  });
  const server: Server = createServer((req, res) => handler.request(req, res));
  server.on("upgrade", (req, socket, head) => handler.upgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    handler,
    registry,
    stores,
    authorizer,
    clock,
    metrics,
    store,
    fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has("authorization") && init.user !== "") headers.set("authorization", `Bearer ${init.user ?? "admin:system:masters"}`);
      return fetch(url + path, { ...init, headers });
    },
    async close() {
      handler.shutdown();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function varint(n: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
}

/** A minimal protobuf writer for building request bodies as client-go does. */
export const pb = {
  /** Length-delimited field. */
  ld(no: number, ...payload: Buffer[]): Buffer {
    const p = Buffer.concat(payload);
    return Buffer.concat([varint((no << 3) | 2), varint(p.length), p]);
  },
  s(no: number, text: string): Buffer {
    return pb.ld(no, Buffer.from(text));
  },
  v(no: number, n: number | bigint): Buffer {
    return Buffer.concat([varint(no << 3), varint(n)]);
  },
  /** A map entry (key = 1, value = 2). */
  entry(no: number, k: string, val: Buffer | string): Buffer {
    return pb.ld(no, pb.s(1, k), typeof val === "string" ? pb.s(2, val) : pb.ld(2, val));
  },
  /** "k8s\0" + runtime.Unknown{typeMeta, raw}. */
  k8sProtobuf(apiVersion: string, kind: string, ...raw: Buffer[]): Buffer {
    return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), pb.ld(1, pb.s(1, apiVersion), pb.s(2, kind)), pb.ld(2, ...raw)]);
  },
};
