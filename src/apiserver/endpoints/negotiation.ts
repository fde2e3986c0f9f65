// Content negotiation: which representation a client asked for (Accept), and how a request
// body is encoded (Content-Type). The aggregated-discovery and Table forms are served only on an
// exact match of their g/v/as parameters (docs/kubernetes-api.md#content-negotiation, docs/kubernetes-api.md#table-output).
import { newNotAcceptable, newUnsupportedMediaType } from "../../apimachinery/errors.ts";

export interface MediaType {
  /** e.g. "application/json", lowercased. */
  type: string;
  params: Record<string, string>;
}

/** Parses one media type, e.g. `application/json;as=Table;v=v1;g=meta.k8s.io`. */
export function parseMediaType(text: string): MediaType {
  const [base = "", ...rest] = text.split(";");
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf("=");
    if (eq < 0) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    let v = p.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1);
    if (k) params[k] = v;
  }
  return { type: base.trim().toLowerCase(), params };
}

/** The entries of an Accept header in preference order (stable by q, highest first; q=0 dropped). */
export function parseAccept(header: string | undefined): MediaType[] {
  if (!header || !header.trim()) return [];
  const entries = header
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s, i) => {
      const mt = parseMediaType(s);
      const q = mt.params.q === undefined ? 1 : Number(mt.params.q);
      return { mt, q: Number.isFinite(q) ? q : 1, i };
    })
    .filter((e) => e.q > 0);
  entries.sort((a, b) => b.q - a.q || a.i - b.i);
  return entries.map((e) => e.mt);
}

export type OutputFormat =
  | { kind: "json" }
  | { kind: "yaml" }
  | { kind: "table"; version: "v1" | "v1beta1" }
  | { kind: "partial"; version: "v1" | "v1beta1"; list: boolean }
  | { kind: "discovery"; version: "v2" | "v2beta1" };

export interface NegotiationOptions {
  /** Offer meta.k8s.io Table (resource get/list/watch). */
  table?: boolean;
  /** Offer meta.k8s.io PartialObjectMetadata(List) (resource get/list/watch). */
  partial?: boolean;
  /** Offer apidiscovery.k8s.io APIGroupDiscoveryList (/api, /apis). */
  discovery?: boolean;
  /** Offer application/yaml. */
  yaml?: boolean;
}

const JSON_LIKE = new Set(["application/json", "*/*", "application/*"]);

/** Picks the first acceptable representation; 406 when none of the listed types can be served. */
export function negotiateOutput(accept: string | undefined, opts: NegotiationOptions = {}): OutputFormat {
  const types = parseAccept(accept);
  if (types.length === 0) return { kind: "json" };
  for (const mt of types) {
    const f = match(mt, opts);
    if (f) return f;
  }
  const offered = ["application/json"];
  if (opts.yaml) offered.push("application/yaml");
  throw newNotAcceptable(offered);
}

function match(mt: MediaType, opts: NegotiationOptions): OutputFormat | undefined {
  const { as, g, v } = mt.params;
  if (mt.type === "application/yaml" && opts.yaml && !as) return { kind: "yaml" };
  if (!JSON_LIKE.has(mt.type)) return undefined;
  if (!as) return { kind: "json" };
  if (mt.type !== "application/json") return undefined;
  if (g === "meta.k8s.io" && (v === "v1" || v === "v1beta1")) {
    if (as === "Table" && opts.table) return { kind: "table", version: v };
    if (as === "PartialObjectMetadata" && opts.partial) return { kind: "partial", version: v, list: false };
    if (as === "PartialObjectMetadataList" && opts.partial) return { kind: "partial", version: v, list: true };
  }
  if (g === "apidiscovery.k8s.io" && as === "APIGroupDiscoveryList" && opts.discovery && (v === "v2" || v === "v2beta1")) {
    return { kind: "discovery", version: v };
  }
  return undefined;
}

/** The Content-Type a response in this format carries. */
export function contentTypeOf(f: OutputFormat): string {
  switch (f.kind) {
    case "json":
      return "application/json";
    case "yaml":
      return "application/yaml";
    case "table":
      return `application/json;as=Table;v=${f.version};g=meta.k8s.io`;
    case "partial":
      return `application/json;as=${f.list ? "PartialObjectMetadataList" : "PartialObjectMetadata"};v=${f.version};g=meta.k8s.io`;
    case "discovery":
      return `application/json;g=apidiscovery.k8s.io;v=${f.version};as=APIGroupDiscoveryList`;
  }
}

export type BodyFormat = "json" | "yaml" | "protobuf";
export const ACCEPTED_BODY_TYPES = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];

/**
 * The decoder for a create/update body; a missing Content-Type means JSON (kube's first
 * serializer). Protobuf is decoded for the kinds kubectl's typed clients send (see protobuf.ts).
 */
export function bodyFormatOf(contentType: string | undefined): BodyFormat {
  if (!contentType || !contentType.trim()) return "json";
  const { type } = parseMediaType(contentType);
  if (type === "application/json" || type === "*/*") return "json";
  if (type === "application/yaml" || type === "text/yaml" || type === "application/x-yaml") return "yaml";
  if (type === "application/vnd.kubernetes.protobuf") return "protobuf";
  throw newUnsupportedMediaType(contentType, ACCEPTED_BODY_TYPES);
}

export type PatchContentType = "json" | "merge" | "strategic" | "apply";
export const PATCH_CONTENT_TYPES: Record<string, PatchContentType> = {
  "application/json-patch+json": "json",
  "application/merge-patch+json": "merge",
  "application/strategic-merge-patch+json": "strategic",
  "application/apply-patch+yaml": "apply",
};

/** The patch type of a PATCH request; 415 for anything else (or SMP when the kind has none). */
export function patchTypeOf(contentType: string | undefined, strategicAllowed: boolean): PatchContentType {
  const type = contentType ? parseMediaType(contentType).type : "";
  const pt = PATCH_CONTENT_TYPES[type];
  const accepted = Object.keys(PATCH_CONTENT_TYPES).filter((t) => strategicAllowed || PATCH_CONTENT_TYPES[t] !== "strategic");
  if (!pt || (pt === "strategic" && !strategicAllowed)) throw newUnsupportedMediaType(contentType ?? "", accepted);
  return pt;
}
