// Discovery documents built from the registry on every request, so CRDs show up and vanish at
// once: legacy APIVersions / APIGroupList / APIGroup / APIResourceList (docs/kubernetes-api.md#discovery) and
// aggregated apidiscovery.k8s.io v2 / v2beta1 (docs/kubernetes-api.md#discovery).
import { createHash } from "node:crypto";
import { DEFAULT_VERBS, type ResourceDefinition } from "../registry/types.ts";

const STATUS_VERBS = ["get", "patch", "update"];

export function verbsOf(def: ResourceDefinition): string[] {
  if (def.verbs) return def.verbs;
  return def.virtualCreate ? ["create"] : DEFAULT_VERBS;
}

/** Kube's version priority: GA > beta > alpha, higher numbers first; non-kube-like versions last, alphabetically. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    const stage = m[2] === "alpha" ? 0 : m[2] === "beta" ? 1 : 2;
    return { major: Number(m[1]), stage, minor: m[3] ? Number(m[3]) : 0 };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && !pb) return -1;
  if (!pa && pb) return 1;
  if (!pa || !pb) return a < b ? -1 : a > b ? 1 : 0;
  if (pa.stage !== pb.stage) return pb.stage - pa.stage;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}

interface GroupVersions {
  name: string;
  versions: string[];
}

/** Groups (core "" included) and their versions in preference order, groups sorted by name. */
export function groupsOf(defs: ResourceDefinition[]): GroupVersions[] {
  const m = new Map<string, Set<string>>();
  for (const d of defs) {
    let s = m.get(d.group);
    if (!s) m.set(d.group, (s = new Set()));
    s.add(d.version);
  }
  return [...m.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, vs]) => ({ name, versions: [...vs].sort(compareVersions) }));
}

function gvOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function apiVersions(defs: ResourceDefinition[], serverAddress: string): Record<string, unknown> | undefined {
  const core = groupsOf(defs).find((g) => g.name === "");
  if (!core) return undefined;
  return {
    kind: "APIVersions",
    versions: core.versions,
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function apiGroupOf(g: GroupVersions): Record<string, unknown> {
  const versions = g.versions.map((v) => ({ groupVersion: gvOf(g.name, v), version: v }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

export function apiGroupList(defs: ResourceDefinition[]): Record<string, unknown> {
  return { kind: "APIGroupList", apiVersion: "v1", groups: groupsOf(defs).filter((g) => g.name !== "").map(apiGroupOf) };
}

export function apiGroup(defs: ResourceDefinition[], group: string): Record<string, unknown> | undefined {
  const g = groupsOf(defs).find((x) => x.name === group && group !== "");
  return g ? { kind: "APIGroup", apiVersion: "v1", ...apiGroupOf(g) } : undefined;
}

/** Opaque hash of the storage version (kube: the first 8 bytes of a sha256, base64). */
export function storageVersionHash(def: ResourceDefinition): string {
  return createHash("sha256").update(`${def.group}/${def.version}/${def.kind}`).digest().subarray(0, 8).toString("base64");
}

function byName<T>(key: (t: T) => string) {
  return (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

export function apiResourceList(defs: ResourceDefinition[], group: string, version: string): Record<string, unknown> | undefined {
  const own = defs.filter((d) => d.group === group && d.version === version).sort(byName((d) => d.plural));
  if (own.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const d of own) {
    const r: Record<string, unknown> = { name: d.plural, singularName: d.singular, namespaced: d.namespaced, kind: d.kind, verbs: verbsOf(d) };
    if (d.shortNames?.length) r.shortNames = d.shortNames;
    if (d.categories?.length) r.categories = d.categories;
    if (!d.virtualCreate) r.storageVersionHash = storageVersionHash(d);
    resources.push(r);
    if (d.hasStatus) resources.push({ name: `${d.plural}/status`, singularName: "", namespaced: d.namespaced, kind: d.kind, verbs: STATUS_VERBS });
    for (const [sub, h] of Object.entries(d.subresources ?? {}).sort(byName(([s]) => s))) {
      if (sub === "status" && d.hasStatus) continue;
      resources.push({
        name: `${d.plural}/${sub}`,
        singularName: "",
        namespaced: d.namespaced,
        group: h.responseKind.group,
        version: h.responseKind.version,
        kind: h.responseKind.kind,
        verbs: h.verbs,
      });
    }
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: gvOf(group, version), resources };
}

function resourceDiscovery(d: ResourceDefinition): Record<string, unknown> {
  const r: Record<string, unknown> = {
    resource: d.plural,
    responseKind: { group: d.group, version: d.version, kind: d.kind },
    scope: d.namespaced ? "Namespaced" : "Cluster",
    singularResource: d.singular,
    verbs: verbsOf(d),
  };
  if (d.shortNames?.length) r.shortNames = d.shortNames;
  if (d.categories?.length) r.categories = d.categories;
  const subs: Record<string, unknown>[] = [];
  if (d.hasStatus) subs.push({ subresource: "status", responseKind: { group: d.group, version: d.version, kind: d.kind }, verbs: STATUS_VERBS });
  for (const [sub, h] of Object.entries(d.subresources ?? {}).sort(byName(([s]) => s))) {
    if (sub === "status" && d.hasStatus) continue;
    subs.push({ subresource: sub, responseKind: h.responseKind, verbs: h.verbs });
  }
  if (subs.length) r.subresources = subs;
  return r;
}

/** APIGroupDiscoveryList for `/api` (core only) or `/apis` (all other groups). */
export function aggregatedDiscovery(defs: ResourceDefinition[], version: "v2" | "v2beta1", core: boolean): Record<string, unknown> {
  const items = groupsOf(defs)
    .filter((g) => (g.name === "") === core)
    .map((g) => ({
      metadata: { name: g.name, creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v,
        resources: defs
          .filter((d) => d.group === g.name && d.version === v)
          .sort(byName((d) => d.plural))
          .map(resourceDiscovery),
        freshness: "Current",
      })),
    }));
  return { kind: "APIGroupDiscoveryList", apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}
