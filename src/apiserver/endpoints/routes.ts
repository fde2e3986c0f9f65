// Non-resource routes: /, /version, health endpoints, /metrics, discovery and OpenAPI.
import type { IncomingMessage, ServerResponse } from "node:http";
import { newNotAcceptable, newPathNotFound, StatusError } from "../../apimachinery/errors.ts";
import type { ResourceRegistry } from "../registry/registry.ts";
import { aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions } from "./discovery.ts";
import { negotiateOutput, parseAccept } from "./negotiation.ts";
import { type HealthChecks, renderHealth, type RequestMetrics, type VersionInfo } from "./nonresource.ts";
import { OPENAPI_V2_PROTOBUF_TYPE, type OpenAPIService, type Served } from "./openapi.ts";
import type { RequestUrl } from "./request-url.ts";
import { writeObject, writeText } from "./responses.ts";
import { sendWhole } from "./whole-response.ts";

export interface NonResourceDeps {
  registry: ResourceRegistry;
  openapi: OpenAPIService;
  version: VersionInfo;
  healthChecks: HealthChecks;
  metrics: RequestMetrics;
  /** The text /metrics serves, when not the metrics' own registry's (the workers of --workers). */
  gatherMetrics?(): Promise<string>;
  /** host:port clients use to reach this server (APIVersions.serverAddressByClientCIDRs). */
  serverAddress(): string;
  /** True once shutdown started: /readyz fails. */
  shuttingDown(): boolean;
}

const HEALTH = new Set(["healthz", "livez", "readyz"]);

export function methodNotAllowed(): StatusError {
  return new StatusError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
}

export async function serveNonResource(d: NonResourceDeps, req: IncomingMessage, res: ServerResponse, url: RequestUrl): Promise<void> {
  const method = (req.method ?? "GET").toUpperCase();
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, "") : url.pathname;
  const segs = path.split("/").filter(Boolean);
  const known = isKnownPath(segs);
  if (!known) throw newPathNotFound();
  if (method !== "GET" && method !== "HEAD") throw methodNotAllowed();

  const head = segs[0] ?? "";
  if (segs.length === 0) return writeObject(res, 200, { paths: rootPaths(d) });
  if (head === "version" && segs.length === 1) return writeObject(res, 200, d.version);
  if (HEALTH.has(head) && segs.length <= 2) return serveHealth(d, res, url, head, segs[1]);
  if (head === "metrics" && segs.length === 1) {
    const text = await (d.gatherMetrics ?? (() => d.metrics.registry.metrics()))();
    return writeText(res, 200, text, d.metrics.registry.contentType);
  }
  if (head === "api" || head === "apis") return serveDiscovery(d, req, res, segs);
  if (head === "openapi") return serveOpenAPI(d, req, res, url, segs);
  throw newPathNotFound();
}

function isKnownPath(segs: string[]): boolean {
  const head = segs[0];
  if (head === undefined) return true;
  if (head === "version" || head === "metrics") return segs.length === 1;
  if (HEALTH.has(head)) return segs.length <= 2;
  if (head === "api") return segs.length <= 2;
  if (head === "apis") return segs.length <= 3;
  if (head === "openapi") return (segs[1] === "v2" && segs.length === 2) || segs[1] === "v3";
  return false;
}

function rootPaths(d: NonResourceDeps): string[] {
  const out = new Set(["/api", "/apis", "/healthz", "/livez", "/readyz", "/metrics", "/openapi/v2", "/openapi/v3", "/version"]);
  for (const def of d.registry.all()) {
    if (def.group) {
      out.add(`/apis/${def.group}`);
      out.add(`/apis/${def.group}/${def.version}`);
    } else out.add(`/api/${def.version}`);
  }
  return [...out].sort();
}

async function serveHealth(d: NonResourceDeps, res: ServerResponse, url: RequestUrl, endpoint: string, check?: string): Promise<void> {
  const results = await d.healthChecks();
  if (endpoint === "readyz") results.push({ name: "shutdown", ok: !d.shuttingDown(), message: "server is shutting down" });
  const out = renderHealth(endpoint, results, url.searchParams, check);
  if (!out) throw newPathNotFound();
  writeText(res, out.status, out.text);
}

function serveDiscovery(d: NonResourceDeps, req: IncomingMessage, res: ServerResponse, segs: string[]): void {
  const defs = d.registry.all();
  const [head, second, third] = segs;
  if (segs.length === 1) {
    const format = negotiateOutput(req.headers.accept, { discovery: true });
    const headers = { Vary: "Accept" };
    if (format.kind === "discovery") return writeObject(res, 200, aggregatedDiscovery(defs, format.version, head === "api"), { format, headers });
    const body = head === "api" ? apiVersions(defs, d.serverAddress()) : apiGroupList(defs);
    if (!body) throw newPathNotFound();
    return writeObject(res, 200, body, { headers });
  }
  negotiateOutput(req.headers.accept, {});
  const body =
    head === "api"
      ? apiResourceList(defs, "", second ?? "")
      : segs.length === 2
        ? apiGroup(defs, second ?? "")
        : apiResourceList(defs, second ?? "", third ?? "");
  if (!body) throw newPathNotFound();
  writeObject(res, 200, body);
}

function wantsProtobuf(accept: string | undefined): boolean {
  for (const mt of parseAccept(accept)) {
    if (mt.type.endsWith("+protobuf") && mt.type.includes("proto-openapi.spec.v2")) return true;
    if (mt.type === "application/json" || mt.type === "*/*" || mt.type === "application/*") return false;
  }
  if (parseAccept(accept).length > 0) throw newNotAcceptable(["application/json", OPENAPI_V2_PROTOBUF_TYPE]);
  return false;
}

function notModified(req: IncomingMessage, res: ServerResponse, etag: string, cacheControl: string): boolean {
  if (req.headers["if-none-match"] !== etag) return false;
  sendWhole(res, 304, { ETag: etag, "Cache-Control": cacheControl }, undefined);
  return true;
}

function writeServed(req: IncomingMessage, res: ServerResponse, served: Served, cacheControl: string): void {
  const etag = `"${served.hash}"`;
  if (notModified(req, res, etag, cacheControl)) return;
  const headers = { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(served.json), ETag: etag, "Cache-Control": cacheControl };
  sendWhole(res, 200, headers, req.method === "HEAD" ? undefined : served.json);
}

function serveOpenAPI(d: NonResourceDeps, req: IncomingMessage, res: ServerResponse, url: RequestUrl, segs: string[]): void {
  if (segs[1] === "v2") {
    if (wantsProtobuf(req.headers.accept)) {
      const pb = d.openapi.v2Protobuf();
      sendWhole(res, 200, { "Content-Type": OPENAPI_V2_PROTOBUF_TYPE, "Content-Length": pb.length, "Cache-Control": "no-cache, private" }, req.method === "HEAD" ? undefined : pb);
      return;
    }
    return writeServed(req, res, d.openapi.v2Json(), "no-cache, private");
  }
  negotiateOutput(req.headers.accept, {});
  if (segs.length === 2) return writeObject(res, 200, d.openapi.v3Index());
  const key = segs.slice(2).join("/");
  const served = d.openapi.v3Document(key);
  if (!served) throw newPathNotFound();
  const hash = url.searchParams.get("hash");
  if (hash && hash !== served.hash) {
    // A stale hash: send the client to the current document, as kube-openapi does.
    sendWhole(res, 301, { Location: `/openapi/v3/${key}?hash=${served.hash}`, "Cache-Control": "no-cache, private" }, undefined);
    return;
  }
  writeServed(req, res, served, hash ? "public, immutable" : "no-cache, private");
}
