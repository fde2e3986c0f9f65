// The terminal validating webhook's checks that need no API calls (docs/terminals.md#validating-webhook),
// in upstream's order (gardener/terminal-controller-manager webhooks/terminal_validating_handler.go):
// the first failing check denies with its field error as Kubernetes renders it.
import { type FieldError, Path, duplicate, forbidden, formatFieldErrors, invalid, notSupported, required, tooLong } from "../../apimachinery/field/errors.ts";
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isValidPathSegmentName } from "../../apimachinery/names/validation.ts";
import { validateLabels } from "../../apimachinery/validation/objectmeta.ts";
import { ANNOTATION_CREATED_BY, ANNOTATION_LAST_HEARTBEAT, type ClusterCredentials, type ObjectReference, PREFIX_ACCESS, type Terminal } from "../../apis/dashboard/v1alpha1/types.ts";
import { semanticEqual } from "../equality.ts";
import { validateCAData } from "./cadata.ts";

export interface ValidationConfig {
  honourServiceAccountRefHostCluster?: boolean;
  honourServiceAccountRefTargetCluster?: boolean;
  honourProjectMemberships?: boolean;
  honourCleanupProjectMembership?: boolean;
}

type Check = FieldError | FieldError[] | undefined;
const IMMUTABLE = "field is immutable";
const SUPPORTED_ROLES = ["admin", "owner", "serviceaccountmanager", "uam", "viewer"];
const BINDING_KINDS = "field should be either ClusterRoleBinding or RoleBinding";

function requiredString(value: string | undefined, path: Path | string): Check {
  return value ? undefined : required(path, "field is required");
}

function format(value: string, path: Path | string, check: (v: string) => string[]): Check {
  const errs = check(value);
  return errs.length ? invalid(path, value, errs.join(", ")) : undefined;
}

const subdomain = (v: string | undefined, p: Path | string): Check => requiredString(v, p) ?? format(v!, p, isDNS1123Subdomain);
const rbacName = (v: string, p: Path | string): Check => format(v, p, isValidPathSegmentName);

/** The first problem of several checks run in order, or undefined. */
function first(...checks: (() => Check)[]): FieldError[] | undefined {
  for (const check of checks) {
    const out = check();
    if (out === undefined || (Array.isArray(out) && out.length === 0)) continue;
    return Array.isArray(out) ? out : [out];
  }
  return undefined;
}

function immutables(t: Terminal, old: Terminal, username: string): Check {
  if (!semanticEqual(t.spec, old.spec)) return invalid("spec", t.spec, IMMUTABLE);
  const created = t.metadata.annotations?.[ANNOTATION_CREATED_BY];
  const path = `metadata.annotations.${ANNOTATION_CREATED_BY}`;
  if (created !== old.metadata.annotations?.[ANNOTATION_CREATED_BY]) return invalid(path, created ?? "", IMMUTABLE);
  const beat = t.metadata.annotations?.[ANNOTATION_LAST_HEARTBEAT];
  if (beat !== old.metadata.annotations?.[ANNOTATION_LAST_HEARTBEAT] && created !== username) {
    return forbidden(`metadata.annotations.${ANNOTATION_LAST_HEARTBEAT}`, `${username} is not allowed to change this field`);
  }
  return undefined;
}

/** Go's time.Parse(time.RFC3339, v): a full date-time with seconds and a zone. */
function parseRFC3339(v: string): number | undefined {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(v)) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

function heartbeat(t: Terminal, nowMs: number): Check {
  const v = t.metadata.annotations?.[ANNOTATION_LAST_HEARTBEAT];
  if (!v) return undefined;
  const path = `metadata.annotations.${ANNOTATION_LAST_HEARTBEAT}`;
  const parsed = parseRFC3339(v);
  if (parsed === undefined) return invalid(path, v, "failed to parse time");
  return parsed > nowMs ? forbidden(path, "time must not be in the future") : undefined;
}

function pod(t: Terminal): Check {
  const p = t.spec.host?.pod ?? {};
  const path = Path.root("spec").child("host", "pod");
  if (!p.containerImage) {
    if (!p.container) return required(path.child("container"), "field is required");
    const img = requiredString(p.container.image, path.child("container", "image"));
    if (img) return img;
  }
  const labels = validateLabels(p.labels ?? {}, path.child("labels"));
  return labels.length ? labels : validateLabels(p.nodeSelector ?? {}, path.child("nodeSelector"));
}

function credential(cred: ClusterCredentials | undefined, path: Path, honourServiceAccountRef: boolean): Check {
  const c = cred ?? {};
  if (c.secretRef && (c.shootRef || c.serviceAccountRef)) return forbidden(path, "only one of 'secretRef', 'shootRef' or 'serviceAccountRef' must be set");
  if (c.shootRef && c.serviceAccountRef) return forbidden(path, "only one of 'shootRef' or 'serviceAccountRef' must be set");
  if (!honourServiceAccountRef) {
    if (c.serviceAccountRef) return forbidden(path.child("serviceAccountRef"), "field is forbidden by configuration");
    if (!c.shootRef && !c.secretRef) return required(path.child("shootRef"), "field is required");
  } else if (!c.shootRef && !c.serviceAccountRef && !c.secretRef) {
    return required(path, "field requires either ShootRef or ServiceAccountRef to be set");
  }
  const s = c.shootRef;
  const sa = c.serviceAccountRef;
  const sec = c.secretRef;
  return first(
    () => (s ? requiredString(s.name, path.child("shootRef", "name")) ?? format(s.name, path.child("shootRef", "name"), isDNS1123Label) : undefined),
    () => (s ? subdomain(s.namespace, path.child("shootRef", "namespace")) : undefined),
    () => (sa ? subdomain(sa.name, path.child("serviceAccountRef", "name")) : undefined),
    () => (sa ? subdomain(sa.namespace, path.child("serviceAccountRef", "namespace")) : undefined),
    () => (sec ? subdomain(sec.name, path.child("secretRef", "name")) : undefined),
    () => (sec ? subdomain(sec.namespace, path.child("secretRef", "namespace")) : undefined),
  );
}

function roleBindings(t: Terminal, path: Path): Check {
  const list = t.spec.target.authorization?.roleBindings ?? [];
  for (const [i, rb] of list.entries()) {
    const p = path.index(i);
    const ref = rb.roleRef ?? { apiGroup: "", kind: "", name: "" };
    const bindingName = `${PREFIX_ACCESS}${t.spec.identifier}${rb.nameSuffix ?? ""}`;
    const err = first(
      () => requiredString(ref.name, p.child("roleRef", "name")) ?? rbacName(ref.name, p.child("roleRef", "name")),
      () => (ref.apiGroup !== "rbac.authorization.k8s.io" ? invalid(p.child("roleRef", "apiGroup"), ref.apiGroup ?? "", "must be 'rbac.authorization.k8s.io'") : undefined),
      () => rbacName(rb.nameSuffix ?? "", p.child("nameSuffix")),
      () => {
        const errs = isValidPathSegmentName(bindingName);
        return errs.length ? invalid(p.child("nameSuffix"), rb.nameSuffix, `complete binding name '${bindingName}' is invalid: ${p.child("nameSuffix").toString()}: Invalid value: ${JSON.stringify(bindingName)}: ${errs.join(", ")}`) : undefined;
      },
      () => (rb.bindingKind !== "ClusterRoleBinding" && rb.bindingKind !== "RoleBinding" ? invalid(p.child("bindingKind"), t.spec.target.bindingKind ?? "", BINDING_KINDS) : undefined),
      () => {
        if (rb.bindingKind === "ClusterRoleBinding" && ref.kind !== "ClusterRole") return invalid(p.child("roleRef", "kind"), ref.kind, "ClusterRoleBinding can only reference a ClusterRole");
        if (rb.bindingKind === "RoleBinding" && ref.kind !== "Role" && ref.kind !== "ClusterRole") return invalid(p.child("roleRef", "kind"), ref.kind, "RoleBinding can only reference a Role or ClusterRole");
        return undefined;
      },
    );
    if (err) return err;
  }
  const seen = new Set<string>();
  for (const [i, rb] of list.entries()) {
    if (seen.has(rb.nameSuffix)) return invalid(path.index(i).child("nameSuffix"), rb.nameSuffix, "name must be unique");
    seen.add(rb.nameSuffix);
  }
  return undefined;
}

function projectMemberships(t: Terminal, path: Path, honour: boolean): Check {
  for (const [i, m] of (t.spec.target.authorization?.projectMemberships ?? []).entries()) {
    if (!honour) return forbidden(path, "field is forbidden by configuration");
    const p = path.index(i);
    const err = first(() => subdomain(m.projectName, p.child("projectName")), () => (m.roles?.length ? undefined : required(p.child("roles"), "field is required")));
    if (err) return err;
    const seen = new Set<string>();
    for (const [j, role] of m.roles.entries()) {
      const rp = p.child("roles").index(j);
      if (seen.has(role)) return duplicate(rp, role);
      seen.add(role);
      if (!SUPPORTED_ROLES.includes(role) && !role.startsWith("extension:")) return notSupported(rp, role, [...SUPPORTED_ROLES, "extension:*"]);
      if (role.startsWith("extension:")) {
        const name = role.slice("extension:".length);
        if (name.length > 20) return tooLong(rp, role, "may not be more than 20 bytes");
        const bad = rbacName(name, rp);
        if (bad) return bad;
      }
    }
  }
  return undefined;
}

function authorization(t: Terminal, cfg: ValidationConfig): Check {
  const target = t.spec.target;
  const path = Path.root("spec").child("target");
  if (target.roleName) {
    const bad = rbacName(target.roleName, path.child("roleName"));
    if (bad) return bad;
    if (target.bindingKind !== "ClusterRoleBinding" && target.bindingKind !== "RoleBinding") return invalid(path.child("bindingKind"), target.bindingKind ?? "", BINDING_KINDS);
  }
  if (!target.authorization) return undefined;
  return roleBindings(t, path.child("authorization", "roleBindings")) ?? projectMemberships(t, path.child("authorization", "projectMemberships"), cfg.honourProjectMemberships ?? false);
}

function serviceRef(ref: ObjectReference | undefined, path: Path): Check {
  if (!ref) return undefined;
  return first(
    () => requiredString(ref.name, path.child("name")) ?? format(ref.name!, path.child("name"), isDNS1035Label),
    () => (ref.namespace ? format(ref.namespace, path.child("namespace"), isDNS1123Subdomain) : undefined),
  );
}

function serverURL(value: string | undefined, path: Path): Check {
  if (!value) return undefined;
  let u: URL;
  try {
    u = new URL(value);
  } catch (err) {
    return invalid(path, value, `must be a valid URL: ${(err as Error).message}`);
  }
  if (u.protocol !== "https:") return invalid(path, value, "URL scheme must be https");
  return u.host === "" ? invalid(path, value, "URL must have a host") : undefined;
}

function apiServer(t: Terminal): Check {
  const path = Path.root("spec").child("target");
  const a = t.spec.target.apiServer;
  return first(
    () => serviceRef(t.spec.target.apiServerServiceRef, path.child("apiServerServiceRef")),
    () => serviceRef(a?.serviceRef, path.child("apiServer", "serviceRef")),
    () => serverURL(a?.server, path.child("apiServer", "server")),
    () => {
      const problem = a?.caData ? validateCAData(a.caData) : undefined;
      return problem ? invalid(path.child("apiServer", "caData"), "<redacted>", problem) : undefined;
    },
  );
}

/**
 * Upstream's checks before the access reviews, in its order; the message of the first failing
 * check, or undefined. `old` is set on UPDATE; `username` is the request's authenticated user.
 */
export function validateTerminal(t: Terminal, old: Terminal | undefined, username: string, nowMs: number, cfg: ValidationConfig): string | undefined {
  const spec = Path.root("spec");
  const errs = first(
    () => (old ? immutables(t, old, username) : undefined),
    () => heartbeat(t, nowMs),
    () => subdomain(t.spec?.target?.namespace, spec.child("target", "namespace")),
    () => subdomain(t.spec?.host?.namespace, spec.child("host", "namespace")),
    () => subdomain(t.spec?.target?.kubeconfigContextNamespace, spec.child("target", "kubeconfigContextNamespace")),
    () => pod(t),
    () => credential(t.spec.target.credentials, spec.child("target", "credentials"), cfg.honourServiceAccountRefTargetCluster ?? false),
    () => credential(t.spec.host.credentials, spec.child("host", "credentials"), cfg.honourServiceAccountRefHostCluster ?? false),
    () => authorization(t, cfg),
    () => apiServer(t),
  );
  return errs ? formatFieldErrors(errs) : undefined;
}
