// Parses a request URL and method into the attributes authorization and routing use, as
// k8s.io/apiserver/pkg/endpoints/request/requestinfo.go does.
import { parseRequestUrl, type RequestUrl } from "./request-url.ts";

export interface RequestInfo {
  /** True for /api/<v>/... and /apis/<g>/<v>/... paths with at least a resource. */
  isResourceRequest: boolean;
  /** The URL path, unmodified. */
  path: string;
  /** Resource requests: get, list, watch, create, update, patch, delete, deletecollection (or proxy); otherwise the lowercase HTTP method. */
  verb: string;
  /** "api" or "apis" (resource requests only). */
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  /** The object name from the URL, or from a `metadata.name` field selector on a list/watch. */
  name: string;
  /** Path segments from the resource on: resource/name/subresource/... */
  parts: string[];
  /** The name came from the URL path (not from a field selector). */
  nameInPath: boolean;
  /** The raw `fieldSelector` of a list or watch ("" otherwise), for authorizers that grant by selector. */
  fieldSelector: string;
}

const API_PREFIXES = new Set(["api", "apis"]);
const GROUPLESS_PREFIXES = new Set(["api"]);
const SPECIAL_VERBS = new Set(["proxy", "watch"]);
const SPECIAL_VERBS_NO_SUBRESOURCES = new Set(["proxy"]);
const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

const METHOD_VERBS: Record<string, string> = {
  POST: "create",
  GET: "get",
  HEAD: "get",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** Go's strconv.ParseBool; undefined when the value is not a boolean. */
export function parseBool(value: string | null | undefined): boolean | undefined {
  if (value == null) return undefined;
  if (["1", "t", "T", "TRUE", "true", "True"].includes(value)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(value)) return false;
  return undefined;
}

function splitPath(path: string): string[] {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 0x2f) start++;
  while (end > start && path.charCodeAt(end - 1) === 0x2f) end--;
  return start === end ? [] : path.slice(start, end).split("/");
}

/** A name is usable as a path segment (apimachinery path.IsValidPathSegmentName). */
function validPathSegmentName(name: string): boolean {
  return name !== "." && name !== ".." && !name.includes("/") && !name.includes("%");
}

/**
 * The value a field selector requires for `field` (an `=` or `==` term), unescaping `\,`, `\=`
 * and `\\`; undefined when the selector does not pin the field.
 */
export function exactFieldMatch(selector: string, field: string): string | undefined {
  const terms: string[] = [];
  let cur = "";
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === "\\" && i + 1 < selector.length) {
      cur += c + selector[i + 1];
      i++;
    } else if (c === ",") {
      terms.push(cur);
      cur = "";
    } else {
      cur += c;
    }
  }
  terms.push(cur);
  for (const term of terms) {
    const m = /^([^=!]+?)\s*(==|=)(.*)$/.exec(term.trim());
    if (!m || m[1]?.trim() !== field) continue;
    return (m[3] ?? "").trim().replace(/\\(.)/g, "$1");
  }
  return undefined;
}

export function parseRequestInfo(method: string, url: RequestUrl | string): RequestInfo {
  const u = typeof url === "string" ? parseRequestUrl(url) : url;
  const path = u.pathname;
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: "",
    apiGroup: "",
    apiVersion: "",
    namespace: "",
    resource: "",
    subresource: "",
    name: "",
    parts: [],
    nameInPath: false,
    fieldSelector: "",
  };

  const api = splitApiPath(path);
  if (!api) return info;
  const resourceInfo: RequestInfo = { ...info, isResourceRequest: true, apiPrefix: api.prefix, apiGroup: api.group, apiVersion: api.version };
  let parts = api.rest;
  if (SPECIAL_VERBS.has(parts[0] ?? "")) {
    // /watch/... or /proxy/...: needs something after the verb.
    if (parts.length < 2) return info;
    resourceInfo.verb = parts[0] ?? "";
    parts = parts.slice(1);
  } else {
    resourceInfo.verb = METHOD_VERBS[method.toUpperCase()] ?? "";
  }
  setResourceParts(resourceInfo, parts);
  setCollectionVerb(resourceInfo, u.searchParams);
  return resourceInfo;
}

interface ApiPath {
  prefix: string;
  group: string;
  version: string;
  /** What follows /<prefix>[/<group>]/<version>. */
  rest: string[];
}

/** /api/<version>/... or /apis/<group>/<version>/...; undefined for any other path. */
function splitApiPath(path: string): ApiPath | undefined {
  let parts = splitPath(path).map(safeDecode);
  if (parts.length < 3 || !API_PREFIXES.has(parts[0] ?? "")) return undefined;
  const prefix = parts[0] ?? "";
  parts = parts.slice(1);
  let group = "";
  if (!GROUPLESS_PREFIXES.has(prefix)) {
    if (parts.length < 3) return undefined;
    group = parts[0] ?? "";
    parts = parts.slice(1);
  }
  return { prefix, group, version: parts[0] ?? "", rest: parts.slice(1) };
}

/** Namespace, resource, name and subresource from the parts after the version (and special verb). */
function setResourceParts(info: RequestInfo, parts: string[]): void {
  if (parts[0] === "namespaces" && parts.length > 1) {
    info.namespace = parts[1] ?? "";
    // namespaces/<ns>/<resource>/...: the part after the namespace is a resource, unless it is
    // one of the namespace's own subresources (status, finalize).
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2] ?? "")) parts = parts.slice(2);
  }
  info.parts = parts;
  if (parts.length >= 3 && !SPECIAL_VERBS_NO_SUBRESOURCES.has(info.verb)) info.subresource = parts[2] ?? "";
  if (parts.length >= 2) {
    info.name = parts[1] ?? "";
    info.nameInPath = true;
  }
  if (parts.length >= 1) info.resource = parts[0] ?? "";
}

/** A GET or DELETE without a name acts on the collection: list, watch, deletecollection. */
function setCollectionVerb(info: RequestInfo, params: URLSearchParams): void {
  if (!info.name && info.verb === "get") {
    info.verb = parseBool(params.get("watch")) === true ? "watch" : "list";
    const selector = params.get("fieldSelector");
    if (selector) {
      info.fieldSelector = selector;
      const name = exactFieldMatch(selector, "metadata.name");
      if (name && validPathSegmentName(name)) info.name = name;
    }
  }
  if (!info.name && info.verb === "delete") info.verb = "deletecollection";
}

function safeDecode(segment: string): string {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
