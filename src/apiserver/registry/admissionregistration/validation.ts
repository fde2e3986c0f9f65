// Webhook configuration defaults and validation (pkg/apis/admissionregistration/v1 defaults.go,
// pkg/apis/admissionregistration/validation/validation.go), docs/admission-webhooks.md.
import type { MutatingWebhook, RuleWithOperations, Webhook } from "../../../apis/admissionregistration/v1/types.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { type FieldError, Path, duplicate, forbidden, invalid, notSupported, required } from "../../../apimachinery/field/errors.ts";
import { selectorFromLabelSelector } from "../../../apimachinery/labels/selector.ts";

const OPERATIONS = ["*", "CREATE", "UPDATE", "DELETE", "CONNECT"];
const SCOPES = ["Cluster", "Namespaced", "*"];
const REVIEW_VERSIONS = ["v1", "v1beta1"];
/** The most webhooks (and rules per webhook) one configuration may hold: bounds the work per request. */
export const MAX_WEBHOOKS = 64;
export const MAX_RULES = 64;

/** Upstream SetDefaults_*Webhook and SetDefaults_Rule. */
export function defaultWebhooks(obj: KubeObject, mutating: boolean): void {
  const hooks = obj.webhooks;
  if (!Array.isArray(hooks)) return;
  for (const h of hooks as MutatingWebhook[]) {
    if (!h || typeof h !== "object") continue;
    h.failurePolicy ??= "Fail";
    h.matchPolicy ??= "Equivalent";
    h.namespaceSelector ??= {};
    h.objectSelector ??= {};
    h.timeoutSeconds ??= 10;
    if (mutating) h.reinvocationPolicy ??= "Never";
    for (const r of h.rules ?? []) if (r && typeof r === "object") r.scope ??= "*";
    const svc = h.clientConfig?.service;
    if (svc && typeof svc === "object") svc.port ??= 443;
  }
}

export function validateWebhookConfiguration(obj: KubeObject, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const hooks = (obj.webhooks ?? []) as Webhook[];
  const root = Path.root("webhooks");
  if (hooks.length > MAX_WEBHOOKS) errs.push(invalid(root, hooks.length, `must have at most ${MAX_WEBHOOKS} items`));
  const names = new Set<string>();
  hooks.slice(0, MAX_WEBHOOKS).forEach((h, i) => {
    const p = root.index(i);
    if (names.has(h.name)) errs.push(duplicate(p.child("name"), h.name));
    names.add(h.name);
    errs.push(...validateWebhook(h, p, mutating));
  });
  return errs;
}

function validateWebhook(h: Webhook & MutatingWebhook, p: Path, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!h.name) errs.push(required(p.child("name"), ""));
  else if (h.name.split(".").length < 3) errs.push(invalid(p.child("name"), h.name, "should be a domain with at least three segments separated by dots"));
  const rules = h.rules ?? [];
  if (rules.length > MAX_RULES) errs.push(invalid(p.child("rules"), rules.length, `must have at most ${MAX_RULES} items`));
  rules.slice(0, MAX_RULES).forEach((r, j) => errs.push(...validateRule(r, p.child("rules").index(j))));
  if (h.failurePolicy !== undefined && !["Fail", "Ignore"].includes(h.failurePolicy)) errs.push(notSupported(p.child("failurePolicy"), h.failurePolicy, ["Fail", "Ignore"]));
  if (h.matchPolicy !== undefined && !["Equivalent", "Exact"].includes(h.matchPolicy)) errs.push(notSupported(p.child("matchPolicy"), h.matchPolicy, ["Equivalent", "Exact"]));
  if (h.sideEffects === undefined || h.sideEffects === "") errs.push(required(p.child("sideEffects"), "must specify one of None, NoneOnDryRun"));
  else if (!["None", "NoneOnDryRun"].includes(h.sideEffects)) errs.push(notSupported(p.child("sideEffects"), h.sideEffects, ["None", "NoneOnDryRun"]));
  if (h.timeoutSeconds !== undefined && (h.timeoutSeconds < 1 || h.timeoutSeconds > 30)) {
    errs.push(invalid(p.child("timeoutSeconds"), h.timeoutSeconds, "the timeout value must be between 1 and 30 seconds"));
  }
  errs.push(...validateReviewVersions(h.admissionReviewVersions, p.child("admissionReviewVersions")));
  if (mutating && h.reinvocationPolicy !== undefined && !["Never", "IfNeeded"].includes(h.reinvocationPolicy)) {
    errs.push(notSupported(p.child("reinvocationPolicy"), h.reinvocationPolicy, ["Never", "IfNeeded"]));
  }
  for (const sel of ["namespaceSelector", "objectSelector"] as const) {
    try {
      selectorFromLabelSelector(h[sel] ?? {});
    } catch (err) {
      errs.push(invalid(p.child(sel), h[sel], (err as Error).message));
    }
  }
  if (h.matchConditions !== undefined && h.matchConditions.length > 0) errs.push(forbidden(p.child("matchConditions"), "matchConditions are not supported by this server"));
  errs.push(...validateClientConfig(h.clientConfig, p.child("clientConfig")));
  return errs;
}

function validateReviewVersions(versions: string[] | undefined, p: Path): FieldError[] {
  if (!versions || versions.length === 0) return [required(p, `must specify one of ${REVIEW_VERSIONS.join(", ")}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) errs.push(duplicate(p.index(i), v));
    seen.add(v);
  });
  if (!versions.some((v) => REVIEW_VERSIONS.includes(v))) errs.push(invalid(p, versions, `must include at least one of ${REVIEW_VERSIONS.join(", ")}`));
  return errs;
}

function validateRule(r: RuleWithOperations, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!r.operations?.length) errs.push(required(p.child("operations"), ""));
  for (const [i, op] of (r.operations ?? []).entries()) {
    if (!OPERATIONS.includes(op)) errs.push(notSupported(p.child("operations").index(i), op, OPERATIONS));
  }
  if ((r.operations ?? []).length > 1 && r.operations!.includes("*")) errs.push(invalid(p.child("operations"), r.operations, "if '*' is present, must not specify other operations"));
  for (const list of ["apiGroups", "apiVersions", "resources"] as const) {
    const v = r[list];
    if (!v?.length) errs.push(required(p.child(list), ""));
    else if (v.length > 1 && v.includes("*")) errs.push(invalid(p.child(list), v, "if '*' is present, must not specify other " + (list === "resources" ? "resources without subresources" : list)));
  }
  for (const [i, res] of (r.resources ?? []).entries()) {
    if (res === "") errs.push(required(p.child("resources").index(i), ""));
    else if (res.split("/").length > 2) errs.push(invalid(p.child("resources").index(i), res, "resource can not contain more than one '/'"));
  }
  if (r.scope !== undefined && !SCOPES.includes(r.scope)) errs.push(notSupported(p.child("scope"), r.scope, SCOPES));
  return errs;
}

function validateClientConfig(cc: Webhook["clientConfig"] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const hasURL = typeof cc?.url === "string";
  const hasService = cc?.service !== undefined && cc.service !== null;
  if (!cc || hasURL === hasService) return [required(p, "exactly one of url or service is required")];
  if (hasURL) errs.push(...validateURL(cc.url!, p.child("url")));
  if (hasService) {
    const s = cc.service!;
    const sp = p.child("service");
    if (!s.name) errs.push(required(sp.child("name"), "service name is required"));
    if (!s.namespace) errs.push(required(sp.child("namespace"), "service namespace is required"));
    if (s.path !== undefined && s.path !== "" && !s.path.startsWith("/")) errs.push(invalid(sp.child("path"), s.path, "must start with a '/'"));
    if (s.port !== undefined && (!Number.isInteger(s.port) || s.port < 1 || s.port > 65535)) {
      errs.push(invalid(sp.child("port"), s.port, "port is not valid: must be between 1 and 65535, inclusive"));
    }
  }
  if (cc.caBundle !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(cc.caBundle)) errs.push(invalid(p.child("caBundle"), "<value omitted>", "must be base64 encoded"));
  return errs;
}

function validateURL(raw: string, p: Path): FieldError[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return [required(p, "host must be specified")];
  }
  const errs: FieldError[] = [];
  if (u.protocol !== "https:") errs.push(invalid(p, raw, "'https' is the only allowed URL scheme"));
  if (!u.hostname) errs.push(invalid(p, raw, "host must be specified"));
  if (u.username || u.password) errs.push(invalid(p, raw, "user information is not permitted in the URL"));
  if (u.hash || raw.includes("#")) errs.push(invalid(p, raw, "fragments are not permitted in the URL"));
  if (u.search || raw.includes("?")) errs.push(invalid(p, raw, "query parameters are not permitted in the URL"));
  return errs;
}
