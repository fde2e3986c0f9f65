// Seeded random request generator for fuzz.test.ts: URLs, methods, query strings, headers and
// bodies, valid ones mutated into invalid ones. Same seed, same sequence.
import { stringify } from "yaml";
import { prng } from "../../support/prng.ts";

export class Rng {
  private readonly random: () => number;
  constructor(seed: number) {
    this.random = prng(seed);
  }
  /** Uniform in [0, 1). */
  next(): number {
    return this.random();
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** True when the request is a watch (it carries a short timeoutSeconds). */
  watch: boolean;
  /** A bomb (patch that grows, deep nesting, oversized object): it must be refused with a 4xx. */
  hostile?: string;
}

export const fuzzNamespace = "fz";
const existing = ["fz-0", "fz-1", "fz-2", "fz-3"];

interface Resource {
  base: string;
  kind: string;
  apiVersion: string;
  namespaced: boolean;
  template: (name: string) => Record<string, unknown>;
}

const resources: Resource[] = [
  { base: "/api/v1", kind: "ConfigMap", apiVersion: "v1", namespaced: true, template: (n) => ({ data: { a: "1", [n]: "x" } }) },
  { base: "/api/v1", kind: "Secret", apiVersion: "v1", namespaced: true, template: () => ({ type: "Opaque", stringData: { u: "p" } }) },
  { base: "/api/v1", kind: "ServiceAccount", apiVersion: "v1", namespaced: true, template: () => ({}) },
  { base: "/api/v1", kind: "Namespace", apiVersion: "v1", namespaced: false, template: () => ({ spec: { finalizers: ["kubernetes"] } }) },
  {
    base: "/apis/rbac.authorization.k8s.io/v1",
    kind: "Role",
    apiVersion: "rbac.authorization.k8s.io/v1",
    namespaced: true,
    template: () => ({ rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }] }),
  },
  {
    base: "/apis/rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    apiVersion: "rbac.authorization.k8s.io/v1",
    namespaced: true,
    template: () => ({ roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" }, subjects: [{ kind: "User", name: "u" }] }),
  },
  {
    base: "/apis/coordination.k8s.io/v1",
    kind: "Lease",
    apiVersion: "coordination.k8s.io/v1",
    namespaced: true,
    template: () => ({ spec: { holderIdentity: "h", leaseDurationSeconds: 10 } }),
  },
];

function plural(kind: string): string {
  return kind.toLowerCase() + (kind.endsWith("s") ? "es" : "s");
}

const weirdStrings = ["", " ", "a b", "ünïcødé", "😀", "\u0000", "../..", "%2F", "x".repeat(300), "UPPER", "-", ".", "a.b", "__proto__", "constructor", "9".repeat(30)];

export class RequestGenerator {
  constructor(private readonly r: Rng) {}

  private name(): string {
    const r = this.r;
    if (r.chance(0.4)) return r.pick(existing);
    if (r.chance(0.3)) return r.pick(weirdStrings);
    return `fz-${r.int(40)}`;
  }

  value(depth = 0): unknown {
    const r = this.r;
    switch (r.int(depth > 2 ? 6 : 9)) {
      case 0: return null;
      case 1: return r.chance(0.5);
      case 2: return r.pick([0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, 42]);
      case 3: return r.pick(weirdStrings);
      case 4: return `s${r.int(1000)}`;
      case 5: return r.pick(["v1", "ConfigMap", "Opaque", "kubernetes", "2024-01-01T00:00:00Z", "not-a-date"]);
      case 6: return Array.from({ length: r.int(4) }, () => this.value(depth + 1));
      default: {
        const o: Record<string, unknown> = {};
        for (let i = r.int(4); i > 0; i--) o[this.key()] = this.value(depth + 1);
        return o;
      }
    }
  }

  private key(): string {
    return this.r.pick(["a", "data", "metadata", "spec", "status", "name", "labels", "annotations", "finalizers", "rules", "type", "$patch", "$retainKeys", "resourceVersion", "uid", "kind", "apiVersion", "__proto__", "x".repeat(70), ""]);
  }

  /** Applies 0-3 random structural mutations in place. */
  mutate(obj: Record<string, unknown>): void {
    const r = this.r;
    for (let n = r.int(4); n > 0; n--) {
      let target: Record<string, unknown> = obj;
      for (let d = r.int(3); d > 0; d--) {
        const keys = Object.keys(target).filter((k) => target[k] !== null && typeof target[k] === "object" && !Array.isArray(target[k]));
        if (keys.length === 0) break;
        target = target[r.pick(keys)] as Record<string, unknown>;
      }
      const keys = Object.keys(target);
      if (keys.length > 0 && r.chance(0.3)) delete target[r.pick(keys)];
      else target[keys.length > 0 && r.chance(0.6) ? r.pick(keys) : this.key()] = this.value();
    }
  }

  private object(res: Resource): Record<string, unknown> {
    const name = this.name();
    const metadata: Record<string, unknown> = { name };
    if (this.r.chance(0.3)) metadata.labels = { app: this.r.pick(["a", "b", "bad value!"]) };
    if (this.r.chance(0.1)) metadata.generateName = "gen-";
    if (this.r.chance(0.1)) metadata.finalizers = ["example.com/f"];
    return { apiVersion: res.apiVersion, kind: res.kind, metadata, ...res.template(name) };
  }

  /** Serializes, sometimes as YAML, sometimes corrupted at the byte level. */
  private serialize(obj: unknown, headers: Record<string, string>): string {
    const r = this.r;
    let text = r.chance(0.15) ? stringify(obj) : JSON.stringify(obj);
    if (!headers["content-type"]) headers["content-type"] = text.startsWith("{") || text.startsWith("[") ? "application/json" : "application/yaml";
    if (r.chance(0.15)) {
      const at = r.int(text.length + 1);
      text = r.pick([text.slice(0, at), text.slice(0, at) + r.pick(["\u0000", "}", "{", '"', "\\", "\ufeff", ":", "- "]) + text.slice(at), "\ufeff" + text]);
    }
    return text;
  }

  private patchBody(type: string, res: Resource): unknown {
    const r = this.r;
    if (type === "application/json-patch+json") {
      const ops = Array.from({ length: 1 + r.int(3) }, () => ({
        op: r.pick(["add", "remove", "replace", "move", "copy", "test", "bogus"]),
        path: r.pick(["/data/a", "/data/new", "/metadata/labels", "/metadata/labels/x", "/metadata/name", "/metadata/finalizers/-", "/rules/0/verbs/0", "/spec", "", "/", "bad", "/a~2b"]),
        from: r.pick(["/data/a", "/metadata", "/nope"]),
        value: this.value(1),
      }));
      return r.chance(0.1) ? ops[0] : ops;
    }
    const body: Record<string, unknown> = r.chance(0.5) ? { metadata: { labels: { p: `${r.int(9)}` } } } : this.object(res);
    if (type === "application/strategic-merge-patch+json" && r.chance(0.5)) {
      body[r.pick(["$patch", "$retainKeys", "$setElementOrder/finalizers", "$deleteFromPrimitiveList/finalizers"])] = this.value(1);
    }
    this.mutate(body);
    return body;
  }

  private query(watch: boolean): string {
    const r = this.r;
    const q = new URLSearchParams();
    const maybe = (k: string, vals: string[]) => r.chance(0.25) && q.set(k, r.pick(vals));
    maybe("labelSelector", ["app=a", "app!=a", "app in (a,b)", "!app", "app", "app notin (a)", "x>5", "a in (b", "=", "a==b,c", "bad key!=v", ",,"]);
    maybe("fieldSelector", ["metadata.name=fz-1", "metadata.namespace!=x", "type=Opaque", "spec.x=1", "metadata.name", "a\\,b=c", "="]);
    maybe("limit", ["1", "2", "0", "-1", "500", "abc", "99999999999999999999"]);
    maybe("continue", ["", "abc", Buffer.from('{"v":"meta.k8s.io/v1","rv":1,"start":"x"}').toString("base64url"), Buffer.from("{}").toString("base64url")]);
    maybe("resourceVersion", ["0", "1", "", "abc", "-5", "999999999999", "18446744073709551616"]);
    maybe("resourceVersionMatch", ["Exact", "NotOlderThan", "Bogus"]);
    maybe("dryRun", ["All", "None", "all"]);
    maybe("fieldValidation", ["Strict", "Warn", "Ignore", "Nope"]);
    maybe("fieldManager", ["m", "x".repeat(200), "\u0001"]);
    maybe("propagationPolicy", ["Background", "Foreground", "Orphan", "Nope"]);
    maybe("gracePeriodSeconds", ["0", "-1", "abc"]);
    maybe("includeObject", ["None", "Metadata", "Object", "Bogus"]);
    maybe("pretty", ["true", "1", "nope"]);
    if (watch) {
      q.set("watch", r.pick(["true", "1"]));
      q.set("timeoutSeconds", r.pick(["1", "2"]));
      maybe("allowWatchBookmarks", ["true", "false", "x"]);
      maybe("sendInitialEvents", ["true", "false"]);
    } else if (r.chance(0.05)) {
      q.set("watch", r.pick(["false", "0"]));
    }
    const s = q.toString();
    return s ? `?${s}` : "";
  }

  /**
   * A request that must be refused however the server is doing: patch bombs (copy, list shifting,
   * deepening, merge and strategic patches that grow past the object limit), nesting past the
   * depth bound in every body format and patch type, and objects over the size limit of the kind.
   */
  hostile(res: Resource, collection: string, item: string): FuzzRequest {
    const r = this.r;
    const nest = (n: number, open: string, close: string, inner = "1") => open.repeat(n) + inner + close.repeat(n);
    const depth = r.pick([501, 2_000, 100_000]);
    const big = (bytes: number) => Object.fromEntries(Array.from({ length: Math.ceil(bytes / 1000) }, (_, i) => [`k${i}`, "v".repeat(990)]));
    const patch = (type: string, body: string, why: string): FuzzRequest => ({ method: "PATCH", path: r.chance(0.2) ? `${item}/status` : item, headers: { "content-type": type }, body, watch: false, hostile: why });
    switch (r.int(8)) {
      case 0: {
        const ops = [{ op: "add", path: "/x", value: new Array(16).fill(0) }, ...Array.from({ length: 40 }, () => ({ op: "copy", from: "/x", path: "/x/-" }))];
        return patch("application/json-patch+json", JSON.stringify(ops), "JSON patch copy bomb");
      }
      case 1: {
        const ops = [{ op: "add", path: "/x", value: new Array(200_000).fill(0) }, ...Array.from({ length: 5_000 }, () => ({ op: r.pick(["add", "copy"]), from: "/x/1", path: "/x/0", value: 1 }))];
        return patch("application/json-patch+json", JSON.stringify(ops), "JSON patch shifting a long list");
      }
      case 2: {
        const ops = [{ op: "add", path: "/x", value: JSON.parse(nest(100, "[", "]")) as unknown }, ...[99, 199, 399].map((n) => ({ op: r.pick(["copy", "move"]), from: "/x", path: `/x${"/0".repeat(n)}` }))];
        return patch("application/json-patch+json", JSON.stringify(ops), "JSON patch deepening by copy or move");
      }
      case 3: {
        const type = r.pick(["application/merge-patch+json", "application/strategic-merge-patch+json", "application/json-patch+json"]);
        const value = big(1_700_000);
        const body = type === "application/json-patch+json" ? [{ op: "add", path: "/metadata/labels", value: { a: "b" } }, { op: "add", path: "/big", value }] : { metadata: { labels: { a: "b" } }, big: value };
        return patch(type, JSON.stringify(body), "patch growing the object past its limit");
      }
      case 4: {
        const type = r.pick(["application/merge-patch+json", "application/strategic-merge-patch+json", "application/json-patch+json"]);
        const body = type === "application/json-patch+json" ? `[{"op":"add","path":"/metadata/labels","value":${nest(depth, "[", "]")}}]` : `{"metadata":{"labels":${nest(depth, '{"a":', "}")}}}`;
        return patch(type, body, "patch nested past the depth bound");
      }
      case 5: {
        const headers: Record<string, string> = { "content-type": r.pick(["application/json", "application/yaml"]) };
        const yamlBlock = () => Array.from({ length: Math.min(depth, 2_000) }, (_, i) => `${" ".repeat(i)}a:`).join("\n");
        const body = headers["content-type"] === "application/json" ? (r.chance(0.5) ? nest(depth, "[", "]") : `{"metadata":{"name":"deep"},"data":${nest(depth, '{"a":', "}")}}`) : r.pick([nest(depth, "[", "]"), "- ".repeat(depth) + "x", yamlBlock()]);
        const query = r.chance(0.5) ? "?fieldValidation=Strict" : "";
        return { method: r.pick(["POST", "PUT"]), path: (r.chance(0.5) ? collection : item) + query, headers, body, watch: false, hostile: "body nested past the depth bound" };
      }
      default: {
        const obj = { ...this.object(res), [r.pick(["data", "spec", "rules", "subjects", "extra"])]: big(1_600_000 + r.int(1_200_000)) };
        const put = r.chance(0.4);
        return { method: put ? "PUT" : "POST", path: put ? item : collection, headers: { "content-type": "application/json" }, body: JSON.stringify(obj), watch: false, hostile: "object over the size limit" };
      }
    }
  }

  next(): FuzzRequest {
    const r = this.r;
    const res = r.pick(resources);
    const ns = r.chance(0.9) ? fuzzNamespace : this.name();
    const collection = res.namespaced ? `${res.base}/namespaces/${encodeURIComponent(ns)}/${plural(res.kind)}` : `${res.base}/${plural(res.kind)}`;
    const name = res.kind === "Namespace" && r.chance(0.3) ? r.pick([fuzzNamespace, "default"]) : this.name();
    const item = `${collection}/${encodeURIComponent(name)}`;
    if (r.chance(0.03)) return this.hostile(res, collection, item);
    const headers: Record<string, string> = {};
    if (r.chance(0.15)) {
      headers.accept = r.pick([
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
        "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        "application/vnd.kubernetes.protobuf",
        "*/*",
        "garbage/;;",
        "application/yaml",
      ]);
    }
    const method = r.pick(["GET", "GET", "GET", "POST", "POST", "PUT", "PATCH", "PATCH", "DELETE"]);
    if (method === "GET") {
      const kind = r.int(10);
      if (kind < 2) return { method, path: r.pick(["/api", "/apis", "/api/v1", "/apis/rbac.authorization.k8s.io", "/apis/rbac.authorization.k8s.io/v1", "/version", "/openapi/v3", "/healthz", "/readyz?verbose", "/nope", "/api/v1/configmaps", "/apis/rbac.authorization.k8s.io/v1/roles", `/api/v1/namespaces/${fuzzNamespace}/configmaps/fz-1/status`]) + this.query(false), headers, watch: false };
      const watch = kind >= 7;
      const base = watch && r.chance(0.3) ? `${res.base}/watch${collection.slice(res.base.length)}` : r.chance(0.5) ? collection : item;
      return { method, path: base + this.query(watch), headers, watch };
    }
    if (method === "DELETE") {
      // Never the fuzz namespace itself: its deletion would turn every later write into a 403.
      const target = res.kind === "Namespace" ? `${collection}/${encodeURIComponent(r.chance(0.2) ? "default" : this.name())}` : item;
      const path = r.chance(0.2) && res.kind !== "Namespace" ? collection : target;
      const body = r.chance(0.4) ? this.serialize({ propagationPolicy: r.pick(["Background", "Orphan", "Bad"]), ...(r.chance(0.3) ? { preconditions: { uid: r.pick(["x", ""]) } } : {}) }, headers) : undefined;
      return { method, path: path + this.query(false), headers, watch: false, ...(body !== undefined ? { body } : {}) };
    }
    if (method === "PATCH") {
      const type = r.pick(["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml", "application/json", "text/plain"]);
      headers["content-type"] = type;
      const patch = this.patchBody(type, res);
      const body = type === "application/apply-patch+yaml" && r.chance(0.5) ? stringify(patch) : this.serialize(patch, headers);
      return { method, path: (r.chance(0.2) ? `${item}/status` : item) + this.query(false), headers, body, watch: false };
    }
    const obj = this.object(res);
    if (r.chance(0.6)) this.mutate(obj);
    if (r.chance(0.05)) headers["content-type"] = r.pick(["application/vnd.kubernetes.protobuf", "text/plain", "application/json; charset=utf-8"]);
    const body = this.serialize(obj, headers);
    const path = method === "POST" ? collection : item;
    return { method, path: path + this.query(false), headers, body, watch: false };
  }
}
