// Requests without credentials against the real garden server: as kube-apiserver with its default
// --anonymous-auth, they are system:anonymous (group system:unauthenticated) and reach
// authorization, where the bootstrap ClusterRole system:public-info-viewer lets them read
// /healthz, /livez, /readyz and /version, and nothing else. Bad credentials stay 401, and
// AlwaysAllow turns anonymous access off.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ApiServerProcess, startApiServerProcess } from "../../support/apiserver.ts";
import { type RawClient, type RawResponse, rawClient } from "../../support/http.ts";
import { writeTokenKubeconfig } from "../../support/kubeconfig.ts";
import { kubectlOk, latestKubectl, skipUnlessKubectl } from "../../support/kubectl.ts";
import { assertServedThroughout, startBystander } from "../../support/liveness.ts";

const PUBLIC = ["/healthz", "/livez", "/readyz", "/version", "/version/", "/healthz?verbose"];

function expectForbidden(r: RawResponse, message: string): void {
  assert.equal(r.status, 403, r.body);
  const st = r.json<{ kind: string; reason: string; code: number; message: string }>();
  assert.deepEqual([st.kind, st.reason, st.code, st.message], ["Status", "Forbidden", 403, message]);
}

void describe("anonymous requests", { timeout: 180_000 }, () => {
  let server: ApiServerProcess;
  let anon: RawClient;
  let admin: RawClient;

  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite", extraArgs: ["--enable-gardener-apis", "--log-level", "warn"] });
    anon = rawClient(server.kubeconfig, { anonymous: true });
    admin = rawClient(server.kubeconfig);
  });
  after(async () => {
    anon?.close();
    admin?.close();
    await server?.dispose();
  });

  void it("read /healthz, /livez, /readyz and /version", async () => {
    for (const path of PUBLIC) {
      const r = await anon.request({ path });
      assert.equal(r.status, 200, `${path}: ${r.body}`);
    }
    assert.equal((await anon.request({ path: "/healthz" })).body, "ok");
    assert.match((await anon.request({ path: "/version" })).json<{ gitVersion: string }>().gitVersion, /^v1\./);
  });

  void it("through the bootstrap policy's system:public-info-viewer, bound to both groups", async () => {
    const role = (await admin.request({ path: "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:public-info-viewer" })).json<{ rules: unknown[] }>();
    assert.deepEqual(role.rules, [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/livez", "/readyz", "/version", "/version/"] }]);
    const binding = (await admin.request({ path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:public-info-viewer" })).json<{
      subjects: { name: string }[];
    }>();
    assert.deepEqual(binding.subjects.map((s) => s.name), ["system:authenticated", "system:unauthenticated"]);
  });

  void it("are refused everything else with kube-apiserver's 403", async () => {
    expectForbidden(
      await anon.request({ path: "/api/v1/namespaces" }),
      'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
    expectForbidden(
      await anon.request({ path: "/apis/operations.gardener.cloud/v1alpha1/namespaces/garden-p/bastions" }),
      'bastions.operations.gardener.cloud is forbidden: User "system:anonymous" cannot list resource "bastions" in API group "operations.gardener.cloud" in the namespace "garden-p"',
    );
    // Discovery, OpenAPI, metrics and the health checks' sub-paths are for authenticated users (as in Kubernetes).
    for (const path of ["/", "/api", "/apis", "/openapi/v2", "/openapi/v3", "/metrics", "/healthz/ping", "/readyz/shutdown"]) {
      expectForbidden(await anon.request({ path }), `forbidden: User "system:anonymous" cannot get path "${path}"`);
    }
    const review = JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" });
    const r = await anon.request({ method: "POST", path: "/apis/authentication.k8s.io/v1/selfsubjectreviews", body: review, headers: { "content-type": "application/json" } });
    assert.equal(r.status, 403);
    const impersonating = await anon.request({ path: "/api/v1/namespaces", headers: { "impersonate-user": "admin", "impersonate-group": "system:masters" } });
    expectForbidden(impersonating, 'users "admin" is forbidden: User "system:anonymous" cannot impersonate resource "users" in API group "" at the cluster scope');
    // A write is refused before its body is looked at.
    const created = await anon.request({ method: "POST", path: "/api/v1/namespaces", body: '{"metadata":{"name":"x"}}', headers: { "content-type": "application/json" } });
    assert.equal(created.status, 403);
    assert.equal((await admin.request({ path: "/api/v1/namespaces/x" })).status, 404);
  });

  void it("with bad credentials are 401, not anonymous", async () => {
    const bad = rawClient(writeTokenKubeconfig(server.kubeconfig, join(server.dataDir, "bad.kubeconfig"), "x", "not-a-token"));
    try {
      for (const path of ["/healthz", "/api/v1/namespaces"]) {
        const r = await bad.request({ path });
        assert.equal(r.status, 401, `${path}: ${r.body}`);
        assert.equal(r.json<{ reason: string }>().reason, "Unauthorized");
      }
    } finally {
      bad.close();
    }
  });

  void it("in a burst leave other users served within 1 s", async () => {
    const bystander = startBystander(server.kubeconfig);
    const codes = new Map<number, number>();
    const paths = ["/healthz", "/version", "/api/v1/secrets", "/apis", "/readyz"];
    let next = 0;
    const worker = async () => {
      while (next < 400) {
        const path = paths[next++ % paths.length]!;
        const r = await anon.request({ path });
        codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    assertServedThroughout(await bystander.stop());
    assert.deepEqual([...codes.entries()].sort(), [
      [200, 240],
      [403, 160],
    ]);
  });

  void it("kubectl: discovery and reads work as before for users", { skip: skipUnlessKubectl(latestKubectl) }, async () => {
    const resources = await kubectlOk(latestKubectl, ["api-resources", "-o", "name"], { kubeconfig: server.kubeconfig });
    assert.match(resources, /^bastions\.operations\.gardener\.cloud$/m);
    assert.match(resources, /^namespaces$/m);
    assert.match(await kubectlOk(latestKubectl, ["get", "namespaces", "-o", "name"], { kubeconfig: server.kubeconfig }), /^namespace\/default$/m);
    assert.match(await kubectlOk(latestKubectl, ["version", "-o", "json"], { kubeconfig: server.kubeconfig }), /"serverVersion"/);
  });
});

void describe("anonymous requests with AlwaysAllow", { timeout: 120_000 }, () => {
  let server: ApiServerProcess;
  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite", extraArgs: ["--authorization-mode", "AlwaysAllow", "--log-level", "warn"] });
  });
  after(async () => {
    await server?.dispose();
  });

  void it("are 401: anonymous auth is off, as kube-apiserver turns it off", async () => {
    const anon = rawClient(server.kubeconfig, { anonymous: true });
    try {
      for (const path of ["/healthz", "/api/v1/namespaces"]) {
        const r = await anon.request({ path });
        assert.equal(r.status, 401, `${path}: ${r.body}`);
      }
    } finally {
      anon.close();
    }
  });
});
