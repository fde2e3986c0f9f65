// REST handlers for one resource over the ObjectStore: get/list/watch, create, update, patch,
// delete, deletecollection, the status subresource and custom subresources (docs/kubernetes-api.md#writes).
import type { KubeList, KubeObject, WatchEvent } from "../../apis/meta/v1/types.ts";
import { newBadRequest, newMethodNotSupported, newPathNotFound, newRequestEntityTooLarge } from "../../apimachinery/errors.ts";
import type { Clock } from "../../utils/clock.ts";
import { managerFromUserAgent } from "../fieldmanager/useragent.ts";
import type { WriteOptions, WriteResult } from "../registry/generic/interface.ts";
import type { ProxiedRequest, ResourceDefinition, SubresourceHandler } from "../registry/types.ts";
import { checkObjectBody, decodeBody, readBody } from "./body.ts";
import { verbsOf } from "./discovery.ts";
import { type BodyFormat, bodyFormatOf, negotiateOutput, type OutputFormat, patchTypeOf } from "./negotiation.ts";
import { type OptionsKind, parseDeleteOptions, parseListOptions, parseWriteOptions, storeListOptions, storeWatchOptions } from "./params.ts";
import type { ResourceRequest } from "./request.ts";
import { warningHeaders, writeObject } from "./responses.ts";
import { serveScale } from "./scale.ts";
import { parseIncludeObject, toPartial, toPartialList, toTable } from "./table.ts";
import { httpWatchOutput, serveWatch } from "./watch.ts";
import { isRecord } from "../../utils/guards.ts";

export type { ResourceRequest };

const MAX_JSON_PATCH_OPERATIONS = 10000;

function gvOf(def: ResourceDefinition): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

/** Ensures apiVersion/kind on an object of this resource (the store should have set them). */
function typed(def: ResourceDefinition, obj: KubeObject): KubeObject {
  if (!obj.apiVersion || !obj.kind) return { ...obj, apiVersion: obj.apiVersion || gvOf(def), kind: obj.kind || def.kind };
  return obj;
}

function typedList(def: ResourceDefinition, list: KubeList): KubeList {
  return { ...list, apiVersion: list.apiVersion || gvOf(def), kind: list.kind || def.listKind, items: list.items.map((o) => typed(def, o)) };
}

function outputFormat(r: ResourceRequest): OutputFormat {
  return negotiateOutput(r.req.headers.accept, { table: true, partial: true, yaml: true });
}

function pretty(r: ResourceRequest): boolean {
  const p = r.url.searchParams.get("pretty");
  return p === "true" || p === "1";
}

function respondObject(r: ResourceRequest, status: number, obj: KubeObject, format: OutputFormat, headers: Record<string, string | string[]> = {}): void {
  let body: unknown = typed(r.def, obj);
  if (format.kind === "table") {
    body = toTable(r.def, [body as KubeObject], { resourceVersion: obj.metadata?.resourceVersion ?? "" }, {
      includeObject: parseIncludeObject(r.url.searchParams),
      version: format.version,
      now: r.clock.now(),
    });
  } else if (format.kind === "partial") {
    body = toPartial(body as KubeObject, format.version);
  }
  writeObject(r.res, status, body, { format, pretty: pretty(r), headers });
}

function respondWrite(r: ResourceRequest, status: number, result: WriteResult): void {
  const headers: Record<string, string | string[]> = {};
  const deprecation = r.def.deprecationWarning === undefined ? [] : [r.def.deprecationWarning];
  // Admission's warnings (ctx.warnings, e.g. PodSecurity) follow the store's.
  const warnings = [...(result.warnings ?? []), ...(r.ctx.warnings ?? [])];
  if (warnings.length) headers.Warning = warningHeaders([...deprecation, ...warnings]);
  respondObject(r, status, result.object, outputFormat(r), headers);
}

async function body(r: ResourceRequest, format: BodyFormat = bodyFormatOf(r.req.headers["content-type"])): Promise<unknown> {
  const strict = r.url.searchParams.get("fieldValidation") === "Strict";
  return decodeBody(await readBody(r.req, r.maxBodyBytes), format, strict);
}

async function objectBody(r: ResourceRequest, name?: string): Promise<KubeObject> {
  const decoded = await body(r);
  if (decoded === undefined) throw newBadRequest("the body of the request is empty: an object is required");
  return checkObjectBody(decoded, {
    group: r.def.group,
    version: r.def.version,
    kind: r.def.kind,
    namespaced: r.def.namespaced,
    namespace: r.info.namespace,
    name,
  });
}

/** Write options; without ?fieldManager the manager is the User-Agent's prefix, as kube-apiserver derives it. */
function writeOptions(r: ResourceRequest, kind: OptionsKind, isApply = false): WriteOptions {
  const opts = parseWriteOptions(r.url.searchParams, kind, isApply);
  opts.fieldManager ??= managerFromUserAgent(r.req.headers["user-agent"]);
  return opts;
}

function requireVerb(def: ResourceDefinition, verb: string, verbs = verbsOf(def)): void {
  if (!verbs.includes(verb)) throw newMethodNotSupported({ group: def.group, resource: def.plural }, verb);
}

/** Routes a resource request (main resource or subresource) once authorization passed. */
export async function serveResource(r: ResourceRequest): Promise<void> {
  const { info, def } = r;
  // Every request to a deprecated version is warned about, whatever its verb or outcome.
  if (def.deprecationWarning !== undefined) r.res.setHeader("Warning", warningHeaders([def.deprecationWarning]));
  const method = (r.req.method ?? "GET").toUpperCase();
  const name = info.nameInPath ? info.name : "";
  const clusterWide = def.namespaced && !info.namespace;
  // A cluster-scoped resource under /namespaces/<ns>/ does not exist (for "namespaces" itself the
  // namespace is the object's name).
  if (!def.namespaced && info.namespace && info.resource !== "namespaces") throw newPathNotFound();
  if (info.subresource) {
    if (clusterWide) throw newPathNotFound();
    return serveSubresource(r, method, name);
  }
  if (info.parts.length > 2) throw newPathNotFound();
  if (clusterWide && name) throw newPathNotFound();
  if (clusterWide && method !== "GET" && method !== "HEAD") throw newMethodNotSupported({ group: def.group, resource: def.plural }, info.verb);
  return serveMethod(r, method, name);
}

/** A main resource's request by method: get, list and watch, create, update, patch, delete and deletecollection. */
async function serveMethod(r: ResourceRequest, method: string, name: string): Promise<void> {
  const { info, def } = r;
  switch (method) {
    case "GET":
    case "HEAD":
      if (!name) return serveList(r);
      if (info.verb === "watch") return serveList(r, name);
      requireVerb(def, "get");
      return respondObject(r, 200, await r.store.get(r.ctx, name, rvOption(r)), outputFormat(r));
    case "POST":
      if (name) throw newMethodNotSupported({ group: def.group, resource: def.plural }, "create");
      return serveCreate(r);
    case "PUT": {
      if (!name) throw newMethodNotSupported({ group: def.group, resource: def.plural }, "update");
      requireVerb(def, "update");
      const opts = writeOptions(r, "UpdateOptions");
      opts.bodyOwned = true;
      const result = await r.store.update(r.ctx, name, await objectBody(r, name), opts);
      return respondWrite(r, result.created ? 201 : 200, result);
    }
    case "PATCH":
      if (!name) throw newMethodNotSupported({ group: def.group, resource: def.plural }, "patch");
      requireVerb(def, "patch");
      return servePatch(r, name, "");
    case "DELETE":
      return name ? serveDelete(r, name) : serveDeleteCollection(r);
    default:
      throw newMethodNotSupported({ group: def.group, resource: def.plural }, method);
  }
}

function rvOption(r: ResourceRequest): { resourceVersion?: string } {
  const rv = r.url.searchParams.get("resourceVersion");
  return rv ? { resourceVersion: rv } : {};
}

async function serveList(r: ResourceRequest, watchName?: string): Promise<void> {
  const opts = parseListOptions(r.url.searchParams, r.info.verb === "watch");
  if (watchName) {
    const byName = `metadata.name=${watchName.replace(/[\\,=]/g, (c) => `\\${c}`)}`;
    opts.fieldSelector = opts.fieldSelector ? `${opts.fieldSelector},${byName}` : byName;
  }
  requireVerb(r.def, opts.watch ? "watch" : "list");
  const format = outputFormat(r);
  if (opts.watch) return runWatch(r, opts, format);
  const list = typedList(r.def, await r.store.list(r.ctx, storeListOptions(opts)));
  if (format.kind === "table") {
    const table = toTable(r.def, list.items, list.metadata, { includeObject: parseIncludeObject(r.url.searchParams), version: format.version, now: r.clock.now() });
    return writeObject(r.res, 200, table, { format, pretty: pretty(r) });
  }
  if (format.kind === "partial") return writeObject(r.res, 200, toPartialList(list, format.version), { format, pretty: pretty(r) });
  writeObject(r.res, 200, list, { format, pretty: pretty(r) });
}

/** The per-event conversion for Table / PartialObjectMetadata watches. */
export function watchTransform(def: ResourceDefinition, format: OutputFormat, q: URLSearchParams, clock: Clock): ((e: WatchEvent) => WatchEvent) | undefined {
  if (format.kind === "partial") return (e) => ({ type: e.type, object: toPartial(e.object, format.version) });
  if (format.kind !== "table") return (e) => ({ type: e.type, object: typed(def, e.object) });
  const includeObject = parseIncludeObject(q);
  let first = true;
  return (e) => {
    const rv = e.object.metadata?.resourceVersion ?? "";
    const rows = e.type === "BOOKMARK" ? [] : [typed(def, e.object)];
    const table = toTable(def, rows, { resourceVersion: rv }, { includeObject, version: format.version, now: clock.now(), noHeaders: !first });
    first = false;
    return { type: e.type, object: table as unknown as KubeObject };
  };
}

async function runWatch(r: ResourceRequest, opts: ReturnType<typeof parseListOptions>, format: OutputFormat): Promise<void> {
  await serveWatch(httpWatchOutput(r.res), (sink) => r.store.watch(r.ctx, storeWatchOptions(opts), sink), {
    clock: r.clock,
    timeoutSeconds: opts.timeoutSeconds,
    minRequestTimeoutSeconds: r.minRequestTimeoutSeconds,
    budget: r.watchBudget,
    user: r.ctx.user.username,
    transform: watchTransform(r.def, format, r.url.searchParams, r.clock),
    sameObjects: format.kind !== "table" && format.kind !== "partial",
    tracker: r.watches,
  });
}

async function serveCreate(r: ResourceRequest): Promise<void> {
  requireVerb(r.def, "create");
  const opts = writeOptions(r, "CreateOptions");
  const obj = await objectBody(r);
  opts.bodyOwned = true;
  if (r.def.virtualCreate) {
    const out = await r.def.virtualCreate(r.ctx, obj);
    return respondObject(r, 201, out, outputFormat(r));
  }
  respondWrite(r, 201, await r.store.create(r.ctx, obj, opts));
}

async function servePatch(r: ResourceRequest, name: string, subresource: string): Promise<void> {
  const type = patchTypeOf(r.req.headers["content-type"], r.def.strategicMergePatch);
  if (type === "apply") r.labels.verb = "APPLY";
  const opts = writeOptions(r, "PatchOptions", type === "apply");
  const patch = await body(r, type === "apply" ? "yaml" : "json");
  if (patch === undefined) throw newBadRequest("the body of the request is empty: a patch is required");
  if (type === "json") {
    if (!Array.isArray(patch)) throw newBadRequest("json patch must be an array of operations");
    if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
      throw newRequestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
    }
  } else if (!isRecord(patch)) {
    throw newBadRequest(`${type === "apply" ? "apply" : "merge"} patch must be an object`);
  }
  const result = await r.store.patch(r.ctx, name, type, patch, opts, subresource);
  respondWrite(r, result.created ? 201 : 200, result);
}

async function serveDelete(r: ResourceRequest, name: string): Promise<void> {
  requireVerb(r.def, "delete");
  const { options, dryRun } = parseDeleteOptions(r.url.searchParams, await body(r));
  if (dryRun) r.ctx.dryRun = true;
  const result = await r.store.delete(r.ctx, name, options);
  const obj = typed(r.def, result.object);
  if (!result.deleted) return respondObject(r, options.orphanDependents === false ? 202 : 200, obj, outputFormat(r));
  if (r.def.crdName) return respondObject(r, 200, obj, outputFormat(r));
  const status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: { name, group: r.def.group, kind: r.def.plural, uid: obj.metadata?.uid },
  };
  writeObject(r.res, 200, status, { pretty: pretty(r) });
}

async function serveDeleteCollection(r: ResourceRequest): Promise<void> {
  requireVerb(r.def, "deletecollection");
  const list = parseListOptions(r.url.searchParams);
  const { options, dryRun } = parseDeleteOptions(r.url.searchParams, await body(r));
  if (dryRun) r.ctx.dryRun = true;
  const out = await r.store.deleteCollection(r.ctx, storeListOptions(list), options);
  writeObject(r.res, 200, typedList(r.def, out), { pretty: pretty(r) });
}

async function serveSubresource(r: ResourceRequest, method: string, name: string): Promise<void> {
  const { def, info } = r;
  const sub = info.subresource;
  const proxy = def.subresources?.[sub]?.proxy;
  if (name && proxy) return proxy({ ctx: r.ctx, verb: info.verb, namespace: r.ctx.namespace, name, query: r.url.searchParams, http: proxiedRequest(r) });
  if (!name || info.parts.length > 3) throw newPathNotFound();
  if (sub === "status" && def.hasStatus) return serveStatus(r, method, name);
  if (sub === "scale" && def.scale) return serveScale(r, method, name, def.scale);
  const handler = def.subresources?.[sub];
  if (!handler) throw newPathNotFound();
  if (handler.stream && (method === "GET" || method === "HEAD")) return serveStream(r, handler, name);
  return serveHandled(r, method, name, handler);
}

function subresourceOf(r: ResourceRequest): { group: string; resource: string } {
  return { group: r.def.group, resource: `${r.def.plural}/${r.info.subresource}` };
}

async function serveStatus(r: ResourceRequest, method: string, name: string): Promise<void> {
  if (method === "GET" || method === "HEAD") return respondObject(r, 200, await r.store.get(r.ctx, name, rvOption(r)), outputFormat(r));
  if (method === "PUT") {
    const opts = writeOptions(r, "UpdateOptions");
    const result = await r.store.update(r.ctx, name, await objectBody(r, name), opts, "status");
    return respondWrite(r, result.created ? 201 : 200, result);
  }
  if (method === "PATCH") return servePatch(r, name, "status");
  throw newMethodNotSupported(subresourceOf(r), r.info.verb);
}

/** A subresource served by its handler's handle(): the body in, a status and object out. */
async function serveHandled(r: ResourceRequest, method: string, name: string, handler: SubresourceHandler): Promise<void> {
  if (!handler.handle) {
    if (handler.connect) throw newBadRequest("Upgrade request required");
    throw newMethodNotSupported(subresourceOf(r), r.info.verb);
  }
  requireVerb(r.def, r.info.verb, handler.verbs);
  const hasBody = method === "POST" || method === "PUT" || method === "PATCH";
  const decoded = hasBody ? await body(r) : undefined;
  const out = await handler.handle({ ctx: r.ctx, verb: r.info.verb, namespace: r.ctx.namespace, name, query: r.url.searchParams, body: decoded });
  writeObject(r.res, out.status, out.body, { format: outputFormat(r).kind === "yaml" ? { kind: "yaml" } : { kind: "json" }, pretty: pretty(r) });
}

/** The raw exchange of a proxy subresource: the still-encoded path after `<resource>/<name>/<subresource>`. */
function proxiedRequest(r: ResourceRequest): ProxiedRequest {
  const pathname = r.url.pathname;
  const segments = pathname.replace(/^\/+/, "").replace(/\/+$/, "").split("/");
  const rest = r.info.parts.length - 3;
  const tail = rest > 0 ? `/${segments.slice(segments.length - rest).join("/")}` : "";
  const path = tail + (pathname.endsWith("/") ? "/" : "");
  return { req: r.req, res: r.res, path, rawQuery: r.url.search.replace(/^\?/, ""), maxBodyBytes: r.maxBodyBytes };
}

/** A streamed GET (pods/log): written as it arrives, with backpressure; the source is dropped when the client goes. */
async function serveStream(r: ResourceRequest, handler: SubresourceHandler, name: string): Promise<void> {
  requireVerb(r.def, r.info.verb, handler.verbs);
  const out = await handler.stream!({ ctx: r.ctx, verb: r.info.verb, namespace: r.ctx.namespace, name, query: r.url.searchParams });
  const { res } = r;
  res.writeHead(200, { "Content-Type": out.contentType, "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" });
  const body = out.body;
  if (!body || r.req.method === "HEAD") return void (body?.destroy(), res.end());
  res.flushHeaders();
  res.once("close", () => body.destroy());
  try {
    for await (const chunk of body) {
      if (!res.write(chunk)) await new Promise<void>((resolve) => (res.once("drain", resolve), res.once("close", resolve)));
      if (res.destroyed) break;
    }
  } catch {
    // the source broke off (the kubelet went away) or was destroyed because the client did: end what was sent
  } finally {
    body.destroy();
    res.end();
  }
}
