import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PolicyRule } from "../../apis/rbac/v1/types.ts";
import { compactString, covers, goQuoteList } from "./covers.ts";

const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
});
const u = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });
const missing = (owner: PolicyRule[], servant: PolicyRule[]) => covers(owner, servant).missing.map(compactString);

describe("covers", () => {
  it("is true for equal, narrower and empty rule sets", () => {
    const owner = [r(["get", "list"], [""], ["pods", "secrets"])];
    assert.equal(covers(owner, owner).covered, true);
    assert.equal(covers(owner, [r(["get"], [""], ["pods"])]).covered, true);
    assert.equal(covers(owner, []).covered, true);
    assert.equal(covers([], []).covered, true);
  });

  it("lists the missing rules compacted per group/resource, verbs in the order given, sorted", () => {
    assert.deepEqual(missing([r(["get"], [""], ["pods"])], [r(["list", "get", "watch"], ["", "apps"], ["pods", "deployments"])]), [
      '{APIGroups:[""], Resources:["deployments"], Verbs:["list" "get" "watch"]}',
      '{APIGroups:[""], Resources:["pods"], Verbs:["list" "watch"]}',
      '{APIGroups:["apps"], Resources:["deployments"], Verbs:["list" "get" "watch"]}',
      '{APIGroups:["apps"], Resources:["pods"], Verbs:["list" "get" "watch"]}',
    ]);
    const res = covers([], [r(["get"], [""], ["a", "b"]), u(["get"], ["/x"])]);
    assert.equal(res.covered, false);
    assert.equal(res.uncovered, 3);
    assert.equal(res.omitted, 0);
  });

  it("lets `*` in an owner rule cover anything, and a servant `*` only by `*`", () => {
    const admin = [r(["*"], ["*"], ["*"]), u(["*"], ["*"])];
    assert.equal(covers(admin, [r(["escalate", "bind"], ["rbac.authorization.k8s.io", "x.io"], ["roles", "pods/exec"], ["n"]), u(["get"], ["/a/b"])]).covered, true);
    const wide = [r(["get", "list", "create"], ["", "apps"], ["pods", "secrets"])];
    assert.deepEqual(missing(wide, [r(["*"], [""], ["pods"])]), ['{APIGroups:[""], Resources:["pods"], Verbs:["*"]}']);
    assert.deepEqual(missing(wide, [r(["get"], ["*"], ["pods"])]), ['{APIGroups:["*"], Resources:["pods"], Verbs:["get"]}']);
    assert.deepEqual(missing(wide, [r(["get"], [""], ["*"])]), ['{APIGroups:[""], Resources:["*"], Verbs:["get"]}']);
    assert.equal(covers([r(["*"], [""], ["pods"])], [r(["get", "escalate"], [""], ["pods"])]).covered, true);
    assert.equal(covers([r(["get"], ["*"], ["pods"])], [r(["get"], ["apps", "x.io"], ["pods"])]).covered, true);
  });

  it("treats subresources as Kubernetes does: `*/sub` covers `<any>/sub`, `pods/*` is a literal", () => {
    const status = [r(["update"], [""], ["*/status"])];
    assert.equal(covers(status, [r(["update"], [""], ["pods/status", "nodes/status", "*/status"])]).covered, true);
    assert.deepEqual(missing(status, [r(["update"], [""], ["pods/exec", "pods"])]), [
      '{APIGroups:[""], Resources:["pods"], Verbs:["update"]}',
      '{APIGroups:[""], Resources:["pods/exec"], Verbs:["update"]}',
    ]);
    // The main resource does not cover its subresources.
    assert.equal(covers([r(["create"], [""], ["pods"])], [r(["create"], [""], ["pods/exec"])]).covered, false);
    // `pods/*` matches no request in the authorizer, and covers only itself (or `*/*`, `*`).
    assert.equal(covers([r(["create"], [""], ["pods/*"])], [r(["create"], [""], ["pods/exec"])]).covered, false);
    assert.equal(covers([r(["create"], [""], ["pods"])], [r(["create"], [""], ["pods/*"])]).covered, false);
    assert.equal(covers([r(["create"], [""], ["pods/*"])], [r(["create"], [""], ["pods/*"])]).covered, true);
    assert.equal(covers([r(["create"], [""], ["*/*"])], [r(["create"], [""], ["pods/*"])]).covered, true);
    assert.equal(covers([r(["create"], [""], ["pods/exec"])], [r(["create"], [""], ["*/exec"])]).covered, false);
  });

  it("covers resourceNames by rules without names or naming them, never a rule without names by one with", () => {
    const one = [r(["get"], [""], ["secrets"], ["a", "b"])];
    assert.equal(covers(one, [r(["get"], [""], ["secrets"], ["b"])]).covered, true);
    assert.deepEqual(missing(one, [r(["get"], [""], ["secrets"], ["a", "c"])]), ['{APIGroups:[""], Resources:["secrets"], ResourceNames:["c"], Verbs:["get"]}']);
    assert.deepEqual(missing(one, [r(["get"], [""], ["secrets"])]), ['{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}']);
    assert.equal(covers([r(["get"], [""], ["secrets"])], [r(["get"], [""], ["secrets"], ["x", "y"])]).covered, true);
  });

  it("covers non-resource URLs by equality or an owner URL ending in `*`", () => {
    const owner = [u(["get"], ["/healthz", "/apis/*", "/ver*"])];
    assert.equal(covers(owner, [u(["get"], ["/healthz", "/apis/x/y", "/apis/*", "/version", "/ver*"])]).covered, true);
    assert.deepEqual(missing(owner, [u(["get", "post"], ["/healthz/ping", "/api", "/healthz"])]), [
      '{NonResourceURLs:["/api"], Verbs:["get"]}',
      '{NonResourceURLs:["/api"], Verbs:["post"]}',
      '{NonResourceURLs:["/healthz"], Verbs:["post"]}',
      '{NonResourceURLs:["/healthz/ping"], Verbs:["get"]}',
      '{NonResourceURLs:["/healthz/ping"], Verbs:["post"]}',
    ]);
    assert.equal(covers(owner, [u(["get"], ["*"])]).covered, false);
    assert.equal(covers([u(["get"], ["*"])], [u(["get"], ["*", "/anything"])]).covered, true);
    // Resource rules never cover URLs, nor the reverse.
    assert.equal(covers([r(["*"], ["*"], ["*"])], [u(["get"], ["/healthz"])]).covered, false);
    assert.equal(covers([u(["*"], ["*"])], [r(["get"], [""], ["pods"])]).covered, false);
  });

  it("agrees with Kubernetes' tuple-by-tuple comparison on random rules", () => {
    let seed = 42;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const pick = (pool: string[], max: number) => [...new Set(Array.from({ length: 1 + rand(max) }, () => pool[rand(pool.length)]!))];
    const groups = ["", "apps", "*"];
    const resources = ["pods", "pods/exec", "*/exec", "secrets", "pods/*", "*"];
    const verbs = ["get", "list", "*"];
    const names = ["a", "b"];
    const urls = ["/a", "/a/b", "/a/*", "/*", "*"];
    const rule = (): PolicyRule =>
      rand(4) === 0
        ? u(pick(verbs, 2), pick(urls, 2))
        : r(pick(verbs, 2), pick(groups, 2), pick(resources, 3), rand(3) === 0 ? pick(names, 2) : undefined);
    for (let i = 0; i < 400; i++) {
      const owner = Array.from({ length: rand(5) }, rule);
      const servant = Array.from({ length: 1 + rand(3) }, rule);
      const want = naiveMissing(owner, servant);
      const got = covers(owner, servant);
      assert.equal(got.covered, want.length === 0, JSON.stringify({ owner, servant }));
      assert.equal(got.uncovered, want.length, JSON.stringify({ owner, servant }));
    }
  });

  it("bounds its work: billions of tuples are decided in milliseconds, the listing is cut", () => {
    const many = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    const huge = r(many("verb", 100), many("g", 2000), many("res", 2000), many("n", 100));
    let t = performance.now();
    assert.equal(covers([r(["*"], ["*"], ["*"])], [huge]).covered, true);
    const fast = performance.now() - t;
    t = performance.now();
    const res = covers([r(["get"], [""], ["pods"]), r(["verb1"], ["g1"], ["res1"])], [huge]);
    const slow = performance.now() - t;
    assert.equal(res.covered, false);
    assert.equal(res.uncovered, 100 * 2000 * 2000 * 100 - 1 * 100);
    assert.equal(res.missing.length <= 1000, true);
    assert.equal(res.omitted, res.uncovered - 1000);
    assert.ok(fast < 500 && slow < 500, `took ${Math.round(fast)} ms and ${Math.round(slow)} ms`);
    assert.equal(covers([r(["*"], ["*"], ["*"])], [huge], { maxSteps: 2 }).exhausted, true);
  });

  it("quotes lists as Go's %q does", () => {
    assert.equal(goQuoteList(["a", 'b"c', "d\\e", "\n\t", "\x01", "ü"]), '["a" "b\\"c" "d\\\\e" "\\n\\t" "\\x01" "ü"]');
    assert.equal(goQuoteList([]), "[]");
  });
});

/** Kubernetes' Covers, literally: break every servant rule into tuples and look for one owner rule per tuple. */
function naiveMissing(owner: PolicyRule[], servant: PolicyRule[]): PolicyRule[] {
  const has = (set: string[] | undefined, x: string) => (set ?? []).includes(x);
  const tuples: PolicyRule[] = [];
  for (const s of servant) {
    for (const g of s.apiGroups ?? [])
      for (const res of s.resources ?? [])
        for (const v of s.verbs) {
          if (s.resourceNames?.length) for (const n of s.resourceNames) tuples.push(r([v], [g], [res], [n]));
          else tuples.push(r([v], [g], [res]));
        }
    for (const url of s.nonResourceURLs ?? []) for (const v of s.verbs) tuples.push(u([v], [url]));
  }
  const resourceCovers = (set: string[], x: string[]) =>
    has(set, "*") || x.every((p) => has(set, p) || (p.includes("/") && has(set, `*/${p.slice(p.indexOf("/") + 1)}`)));
  const urlCovers = (set: string[], x: string[]) => x.every((p) => set.some((o) => o === p || (o.endsWith("*") && p.startsWith(o.replace(/\*+$/, "")))));
  const ruleCovers = (o: PolicyRule, t: PolicyRule) =>
    (has(o.verbs, "*") || t.verbs.every((v) => has(o.verbs, v))) &&
    (has(o.apiGroups, "*") || (t.apiGroups ?? []).every((g) => has(o.apiGroups, g))) &&
    resourceCovers(o.resources ?? [], t.resources ?? []) &&
    urlCovers(o.nonResourceURLs ?? [], t.nonResourceURLs ?? []) &&
    (t.resourceNames?.length ? !o.resourceNames?.length || t.resourceNames.every((n) => has(o.resourceNames, n)) : !o.resourceNames?.length);
  return tuples.filter((t) => !owner.some((o) => ruleCovers(o, t)));
}
