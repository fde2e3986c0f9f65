// Query parameters of resource requests, validated as kube-apiserver does (dryRun only "All"
// -> else 422; fieldValidation Ignore|Warn|Strict -> else 400; list option combinations -> 422).
import type { DeleteOptions } from "../../apis/meta/v1/types.ts";
import { newBadRequest, newInvalid } from "../../apimachinery/errors.ts";
import { type FieldError, forbidden, invalid, notSupported, tooLong } from "../../apimachinery/field/errors.ts";
import type { ListOptions, WatchOptions, WriteOptions } from "../registry/generic/interface.ts";
import { parseBool } from "./requestinfo.ts";
import { isRecord } from "../../utils/guards.ts";

const META_GROUP = "meta.k8s.io";

export type OptionsKind = "CreateOptions" | "UpdateOptions" | "PatchOptions" | "DeleteOptions";

/** `dryRun` values: each must be "All"; true when any is given. */
export function parseDryRun(values: string[], kind: OptionsKind): boolean {
  const bad = values.filter((v) => v !== "All");
  if (bad.length) throw newInvalid({ group: META_GROUP, kind }, "", [notSupported("dryRun", bad[0], ["All"])]);
  return values.length > 0;
}

export function parseWriteOptions(q: URLSearchParams, kind: OptionsKind, isApply = false): WriteOptions {
  const errs: FieldError[] = [];
  const opts: WriteOptions = {};
  if (parseDryRun(q.getAll("dryRun"), kind)) opts.dryRun = true;

  const fv = q.get("fieldValidation");
  if (fv !== null && fv !== "") {
    if (fv !== "Ignore" && fv !== "Warn" && fv !== "Strict") {
      throw newBadRequest(`fieldValidation: Unsupported value: "${fv}": supported values: "Ignore", "Warn", "Strict"`);
    }
    opts.fieldValidation = fv;
  }

  const fm = q.get("fieldManager");
  if (fm !== null && fm !== "") {
    if (fm.length > 128) errs.push(tooLong("fieldManager", fm, "must be no more than 128 characters"));
    else if (/[^\x20-\x7e]/.test(fm)) errs.push(invalid("fieldManager", fm, "must only contain printable characters"));
    else opts.fieldManager = fm;
  } else if (isApply) {
    errs.push({ type: "FieldValueRequired", field: "fieldManager", detail: "is required for apply patch" });
  }

  const force = parseBool(q.get("force"));
  if (force === true) {
    if (isApply) opts.force = true;
    else errs.push(forbidden("force", "may not be specified for non-apply patch"));
  }
  if (errs.length) throw newInvalid({ group: META_GROUP, kind }, "", errs);
  return opts;
}

function nonNegativeInt(q: URLSearchParams, name: string): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === "") return undefined;
  if (!/^-?\d+$/.test(raw)) throw newBadRequest(`invalid value for ${name}: ${JSON.stringify(raw)}: must be an integer`);
  // An int64, as kube-apiserver parses it; beyond what a list can hold it means "no bound".
  if (BigInt(raw) > 9223372036854775807n || BigInt(raw) < -9223372036854775808n) {
    throw newBadRequest(`invalid value for ${name}: ${JSON.stringify(raw)}: out of range for a 64-bit integer`);
  }
  return Math.min(Number(raw), Number.MAX_SAFE_INTEGER);
}

export interface ParsedListOptions extends WatchOptions {
  watch: boolean;
  /** Watch timeout in seconds (undefined: server default). */
  timeoutSeconds?: number;
}

/** List/watch options; `watch` forces a watch (legacy /watch/ prefix). */
export function parseListOptions(q: URLSearchParams, forceWatch = false): ParsedListOptions {
  const watch = forceWatch || parseBool(q.get("watch")) === true;
  const opts: ParsedListOptions = { watch };
  const str = (name: string) => {
    const v = q.get(name);
    return v === null || v === "" ? undefined : v;
  };
  opts.labelSelector = str("labelSelector");
  opts.fieldSelector = str("fieldSelector");
  opts.resourceVersion = str("resourceVersion");
  opts.continue = str("continue");
  const limit = nonNegativeInt(q, "limit");
  if (limit !== undefined && limit > 0) opts.limit = limit;
  const timeout = nonNegativeInt(q, "timeoutSeconds");
  if (timeout !== undefined && timeout > 0) opts.timeoutSeconds = timeout;
  if (parseBool(q.get("allowWatchBookmarks")) === true) opts.allowWatchBookmarks = true;
  const sie = parseBool(q.get("sendInitialEvents"));
  if (sie !== undefined) opts.sendInitialEvents = sie;
  const rvm = str("resourceVersionMatch");
  if (rvm === "Exact" || rvm === "NotOlderThan") opts.resourceVersionMatch = rvm;
  const errs = listOptionsErrors(opts, rvm);
  if (errs.length) throw newInvalid({ group: META_GROUP, kind: "ListOptions" }, "", errs);
  if (opts.continue !== undefined && opts.resourceVersion !== undefined && opts.resourceVersion !== "0") {
    throw newBadRequest("specifying resource version is not allowed when using continue");
  }
  for (const k of Object.keys(opts) as (keyof ParsedListOptions)[]) if (opts[k] === undefined) delete opts[k];
  return opts;
}

/** apimachinery's ValidateListOptions: how resourceVersionMatch and sendInitialEvents go with watch, resourceVersion and continue. */
function listOptionsErrors(opts: ParsedListOptions, rvm: string | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const { watch } = opts;
  if (rvm !== undefined && rvm !== "Exact" && rvm !== "NotOlderThan") {
    errs.push(notSupported("resourceVersionMatch", rvm, ["Exact", "NotOlderThan", ""]));
  } else if (rvm !== undefined) {
    if (watch && !(rvm === "NotOlderThan" && opts.sendInitialEvents !== undefined)) {
      errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
    }
    if (!watch && opts.resourceVersion === undefined) {
      errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"));
    }
    if (opts.continue !== undefined) errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
    if (rvm === "Exact" && opts.resourceVersion === "0") {
      errs.push(forbidden("resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (opts.sendInitialEvents !== undefined) {
    if (!watch) errs.push(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
    else if (rvm !== "NotOlderThan") {
      errs.push(forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
    }
  }
  return errs;
}

/** Just the options the ObjectStore's list takes. */
export function storeListOptions(o: ParsedListOptions): ListOptions {
  const { labelSelector, fieldSelector, resourceVersion, resourceVersionMatch, limit } = o;
  const out: ListOptions = { labelSelector, fieldSelector, resourceVersion, resourceVersionMatch, limit, continue: o.continue };
  for (const k of Object.keys(out) as (keyof ListOptions)[]) if (out[k] === undefined) delete out[k];
  return out;
}

export function storeWatchOptions(o: ParsedListOptions): WatchOptions {
  const out: WatchOptions = { ...storeListOptions(o) };
  if (o.allowWatchBookmarks) out.allowWatchBookmarks = true;
  if (o.sendInitialEvents !== undefined) out.sendInitialEvents = o.sendInitialEvents;
  return out;
}

/** DeleteOptions for the store, and whether the request is a dry run (the store reads that from ctx.dryRun). */
export interface DeleteRequestOptions {
  options: Omit<DeleteOptions, "dryRun" | "kind" | "apiVersion">;
  dryRun: boolean;
}

/**
 * DeleteOptions from the query (gracePeriodSeconds, propagationPolicy, orphanDependents, dryRun)
 * overlaid by the body's (a DeleteOptions object; kind/apiVersion are not checked, an empty body is fine).
 */
export function parseDeleteOptions(q: URLSearchParams, body: unknown): DeleteRequestOptions {
  if (body !== undefined && !isRecord(body)) throw newBadRequest("the body of a delete request must be a DeleteOptions object");
  const b = (body ?? {}) as DeleteOptions;
  const out: DeleteRequestOptions["options"] = {};
  const grace = b.gracePeriodSeconds ?? nonNegativeInt(q, "gracePeriodSeconds");
  if (grace !== undefined) out.gracePeriodSeconds = grace;
  const policy = b.propagationPolicy ?? (q.get("propagationPolicy") || undefined);
  if (policy !== undefined) {
    if (policy !== "Orphan" && policy !== "Background" && policy !== "Foreground") {
      throw newInvalid({ group: META_GROUP, kind: "DeleteOptions" }, "", [
        notSupported("propagationPolicy", policy, ["Foreground", "Background", "Orphan", "nil"]),
      ]);
    }
    out.propagationPolicy = policy;
  }
  const orphan = b.orphanDependents ?? parseBool(q.get("orphanDependents"));
  if (orphan !== undefined) out.orphanDependents = orphan;
  if (orphan !== undefined && policy !== undefined) {
    throw newInvalid({ group: META_GROUP, kind: "DeleteOptions" }, "", [
      invalid("propagationPolicy", policy, "orphanDependents and deletionPropagation cannot be both set"),
    ]);
  }
  if (b.preconditions) out.preconditions = b.preconditions;
  const dry = [...q.getAll("dryRun"), ...(Array.isArray(b.dryRun) ? b.dryRun : [])];
  return { options: out, dryRun: parseDryRun(dry, "DeleteOptions") };
}
