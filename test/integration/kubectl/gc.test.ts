// Real kubectl (1.33 and 1.27): `kubectl delete --cascade=background|foreground|orphan` on a chain
// of owners and dependents: a cluster-scoped owner (ClusterRole), a namespaced ConfigMap, a custom
// resource (Widget) and a Secret, each owned by the previous one with blockOwnerDeletion.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pollFor } from "../../../src/utils/poll.ts";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { kubectlFor, type Kubectl, type KubectlVersion } from "../../support/kubectl.ts";
import { namespaceYaml, widgetCrd } from "./manifests.ts";

const ns = "gc";

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; uid: string; deletionTimestamp?: string; finalizers?: string[]; ownerReferences?: { uid: string; name: string }[] };
}

interface Chain {
  owner: Obj;
  cm: Obj;
  widget: Obj;
  secret: Obj;
}

function ownedBy(o: Obj, block = true): Record<string, unknown> {
  return { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid, blockOwnerDeletion: block };
}

const until = (cond: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> => pollFor(what, cond, { timeoutMs, intervalMs: 100 });

void describe("kubectl delete --cascade with the garbage collector", { timeout: 300_000 }, () => {
  let server: ApiServerProcess;
  let k: Kubectl;

  const create = async (manifest: Record<string, unknown>): Promise<Obj> => k.json<Obj>(["create", "-f", "-"], { input: JSON.stringify(manifest) });
  const exists = async (kind: string, name: string, namespaced = true): Promise<Obj | undefined> => {
    const r = await k.run(["get", kind, name, ...(namespaced ? ["-n", ns] : []), "-o", "json"]);
    if (r.code !== 0) {
      assert.match(r.stderr, /NotFound/);
      return undefined;
    }
    return JSON.parse(r.stdout) as Obj;
  };

  /** ClusterRole <- ConfigMap <- Widget <- Secret, every reference blocking. */
  const chain = async (name: string, holdSecret = false): Promise<Chain> => {
    const owner = await create({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name }, rules: [] });
    const cm = await create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: ns, ownerReferences: [ownedBy(owner)] } });
    const widget = await create({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name, namespace: ns, ownerReferences: [ownedBy(cm)] }, spec: { size: 1 } });
    const secretMeta: Record<string, unknown> = { name, namespace: ns, ownerReferences: [ownedBy(widget)] };
    if (holdSecret) secretMeta.finalizers = ["example.com/hold"];
    const secret = await create({ apiVersion: "v1", kind: "Secret", metadata: secretMeta });
    return { owner, cm, widget, secret };
  };

  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite" });
    k = kubectlFor(server.kubeconfig);
    await k.ok(["create", "-f", "-"], { input: namespaceYaml(ns) });
    await k.ok(["create", "-f", "-"], { input: widgetCrd });
    await k.ok(["wait", "--for", "condition=established", "--timeout=30s", "crd/widgets.example.com"]);
  });
  after(async () => {
    await server?.dispose();
  });

  for (const version of ["1.33", "1.27"] as KubectlVersion[]) {
    const v = version.replace(".", "");

    void it(`${version}: --cascade=foreground: when kubectl returns, the whole chain is gone`, async () => {
      const name = `fg-${v}`;
      await chain(name);
      const out = await k.ok(["delete", "clusterrole", name, "--cascade=foreground"], { version });
      assert.equal(out.trim(), `clusterrole.rbac.authorization.k8s.io "${name}" deleted`);
      // kubectl waited for the owner, which waited for its blocking dependents, recursively.
      assert.equal(await exists("configmap", name), undefined);
      assert.equal(await exists("widget", name), undefined);
      assert.equal(await exists("secret", name), undefined);
    });

    void it(`${version}: --cascade=foreground: a held dependent keeps the owner with foregroundDeletion`, async () => {
      const name = `fgh-${v}`;
      await chain(name, true);
      await k.ok(["delete", "clusterrole", name, "--cascade=foreground", "--wait=false"], { version });
      await until(async () => Boolean((await exists("secret", name))?.metadata.deletionTimestamp), "the secret marked");
      for (const [kind, namespaced] of [["clusterrole", false], ["configmap", true], ["widget", true]] as const) {
        const o = await exists(kind, name, namespaced);
        assert.ok(o?.metadata.deletionTimestamp, `${kind} is being deleted`);
        assert.deepEqual(o.metadata.finalizers, ["foregroundDeletion"], kind);
      }
      await k.ok(["patch", "secret", name, "-n", ns, "--type", "merge", "-p", '{"metadata":{"finalizers":null}}'], { version });
      await k.ok(["wait", "--for=delete", "clusterrole", name, "--timeout=20s"], { version });
      assert.equal(await exists("widget", name), undefined);
    });

    void it(`${version}: --cascade=background (the default): the owner goes at once, the dependents after it`, async () => {
      for (const cascade of ["--cascade=background", undefined]) {
        const name = `bg-${v}-${cascade ? "explicit" : "default"}`;
        await chain(name);
        await k.ok(["delete", "clusterrole", name, ...(cascade ? [cascade] : [])], { version });
        await k.ok(["wait", "--for=delete", "secret", name, "-n", ns, "--timeout=20s"], { version });
        assert.equal(await exists("configmap", name), undefined);
        assert.equal(await exists("widget", name), undefined);
      }
    });

    void it(`${version}: --cascade=orphan: the owner goes, its dependents stay without the reference`, async () => {
      const name = `or-${v}`;
      const c = await chain(name);
      await k.ok(["delete", "clusterrole", name, "--cascade=orphan"], { version });
      const cm = await exists("configmap", name);
      assert.ok(cm, "the configmap stays");
      assert.equal(cm.metadata.ownerReferences, undefined);
      // Only the deleted owner's direct dependents are orphaned; the rest of the chain is intact.
      assert.deepEqual((await exists("widget", name))?.metadata.ownerReferences?.map((r) => r.uid), [c.cm.metadata.uid]);
      assert.ok(await exists("secret", name));
      // Deleting the orphaned configmap normally now collects what depends on it.
      await k.ok(["delete", "configmap", name, "-n", ns], { version });
      await k.ok(["wait", "--for=delete", "secret", name, "-n", ns, "--timeout=20s"], { version });
    });
  }

  void it("a dependent whose owner does not exist, or has another uid, is collected; one with a live owner stays", async () => {
    const owner = await create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "live", namespace: ns } });
    await create({ apiVersion: "v1", kind: "Secret", metadata: { name: "absent", namespace: ns, ownerReferences: [{ ...ownedBy(owner), name: "nothere" }] } });
    await create({ apiVersion: "v1", kind: "Secret", metadata: { name: "other-uid", namespace: ns, ownerReferences: [{ ...ownedBy(owner), uid: "0d7c1a4e-0000-4000-8000-000000000000" }] } });
    await create({ apiVersion: "v1", kind: "Secret", metadata: { name: "kept", namespace: ns, ownerReferences: [ownedBy(owner)] } });
    await k.ok(["wait", "--for=delete", "secret/absent", "secret/other-uid", "-n", ns, "--timeout=20s"]);
    assert.ok(await exists("secret", "kept"));
  });

  void it("DeleteOptions with both orphanDependents and propagationPolicy is refused with 422", async () => {
    await create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "both", namespace: ns } });
    const r = await k.run(["delete", "--raw", `/api/v1/namespaces/${ns}/configmaps/both?orphanDependents=false&propagationPolicy=Foreground`]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /orphanDependents and deletionPropagation cannot be both set/);
    assert.ok(await exists("configmap", "both"));
  });
});
