// shoots/adminkubeconfig on an in-process garden, answered from what the garden stores (the Shoot's
// advertised address, ConfigMap <shoot>.ca-cluster, the client CA Secret in `garden`), checked against a
// real in-process shoot API server: the kubeconfig's certificate is system:masters there and expires
// when the request says. Project members may create it, viewers and outsiders may not.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import * as x509 from "@peculiar/x509";
import { KubeConfig } from "@kubernetes/client-node";
import { issueClientCertificate } from "../../../src/apiserver/certs/issue.ts";
import { writeKubeconfig } from "../../../src/apiserver/certs/kubeconfig.ts";
import { ensurePki } from "../../../src/apiserver/certs/pki.ts";
import { CA_CLIENT_NAMESPACE, caClientSecretName, caClusterConfigMapName } from "../../../src/api/gardencore/shootcredentials.ts";
import { ConfigMaps, Namespaces, RoleBindings, Secrets } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { resourcePath } from "../../../src/client/resource.ts";
import { Projects, Seeds, Shoots } from "../../../src/client/garden.ts";
import { gardenAdmissionPlugins } from "../../../src/plugins/garden.ts";
import { type InProcessServer, startInProcessApiServer } from "../../support/inprocess.ts";

const NS = "garden-p";
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

describe("shoots/adminkubeconfig", () => {
  let garden: InProcessServer;
  let shoot: InProcessServer;
  let dir: string;
  const clients: Client[] = [];

  const clientFor = async (user: string): Promise<Client> => {
    const pki = await ensurePki(join(garden.dataDir, "pki"));
    const cert = await issueClientCertificate(pki.ca, { commonName: user });
    const path = join(dir, `${user}.kubeconfig`);
    await writeKubeconfig(path, { server: garden.server.url, caPem: garden.server.caPem, clusterName: "garden", userName: user, user: cert });
    const c = Client.fromKubeconfigFile(path, { fieldManager: user });
    clients.push(c);
    return c;
  };
  const request = (c: Client, name: string, spec: unknown) =>
    c.transport.request<{ spec: { expirationSeconds: number }; status: { kubeconfig: string; expirationTimestamp: string } }>({
      method: "POST",
      path: resourcePath(Shoots, NS, name, "adminkubeconfig"),
      body: { apiVersion: "authentication.gardener.cloud/v1alpha1", kind: "AdminKubeconfigRequest", spec },
    });
  const statusOf = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      const e = err as { code?: number; reason?: string; message?: string };
      return { statusCode: e.code, body: { reason: e.reason, message: e.message } };
    }
    assert.fail("the request was accepted");
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "adminkubeconfig-it-"));
    garden = await startInProcessApiServer({ flags: ["--enable-gardener-apis"], gardenAdmission: gardenAdmissionPlugins() });
    shoot = await startInProcessApiServer();
    const g = garden.admin;
    await g.create(Seeds, { metadata: { name: "local" } });
    await g.create(Projects, { metadata: { name: "p" }, spec: { namespace: NS, owner: { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "owner" } } });
    await g.create(Namespaces, { metadata: { name: NS } }).catch(() => undefined);
    await g.create(Namespaces, { metadata: { name: CA_CLIENT_NAMESPACE } }).catch(() => undefined);
    const bind = (user: string, role: string) =>
      g.create(RoleBindings, { metadata: { namespace: NS, name: `${user}` }, subjects: [{ kind: "User", name: user, apiGroup: "rbac.authorization.k8s.io" }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role } });
    await bind("alice", "gardener.cloud:system:project-member");
    await bind("victor", "gardener.cloud:system:project-viewer");
    for (const name of ["s", "bare"]) await g.create(Shoots, { metadata: { name, namespace: NS }, spec: { seedName: "local", provider: { type: "local", workers: [] } } });
    await g.patchStatus(Shoots, { namespace: NS, name: "s" }, { type: "merge", body: { status: { advertisedAddresses: [{ name: "external", url: shoot.server.url }] } } });
    const shootPki = await ensurePki(join(shoot.dataDir, "pki"));
    await g.create(ConfigMaps, { metadata: { name: caClusterConfigMapName("s"), namespace: NS }, data: { "ca.crt": shoot.server.caPem } });
    await g.create(Secrets, { metadata: { name: caClientSecretName(NS, "s"), namespace: CA_CLIENT_NAMESPACE }, data: { "ca.crt": b64(shootPki.ca.certPem), "ca.key": b64(shootPki.ca.keyPem) } });
  });
  after(async () => {
    for (const c of clients) c.close();
    await shoot?.stop();
    await garden?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives a member a kubeconfig that is system:masters on the shoot and expires when asked", async () => {
    const alice = await clientFor("alice");
    const before = Date.now();
    const out = await request(alice, "s", { expirationSeconds: 600 });
    assert.equal(out.spec.expirationSeconds, 600);
    const expires = Date.parse(out.status.expirationTimestamp);
    assert.ok(Math.abs(expires - (before + 600_000)) < 5_000, out.status.expirationTimestamp);
    const kc = new KubeConfig();
    kc.loadFromString(Buffer.from(out.status.kubeconfig, "base64").toString("utf8"));
    assert.equal(kc.getCurrentCluster()?.server, shoot.server.url);
    const cert = new x509.X509Certificate(Buffer.from(kc.getCurrentUser()?.certData ?? "", "base64").toString("utf8"));
    assert.ok(Math.abs(cert.notAfter.getTime() - expires) < 2_000, `${cert.notAfter.toISOString()} vs ${out.status.expirationTimestamp}`);
    assert.match(cert.subject, /CN=alice/);
    const onShoot = new Client(kc, { fieldManager: "alice" });
    clients.push(onShoot);
    const review = await onShoot.transport.request<{ status: { userInfo: { username: string; groups: string[] } } }>({
      method: "POST",
      path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    });
    assert.equal(review.status.userInfo.username, "alice");
    assert.ok(review.status.userInfo.groups.includes("system:masters"));
    await onShoot.create(Namespaces, { metadata: { name: "made-by-alice" } });
  });

  it("bounds expirationSeconds as upstream: 10 minutes at least, the server's maximum at most, one hour by default", async () => {
    const alice = await clientFor("alice");
    const short = await statusOf(request(alice, "s", { expirationSeconds: 599 }));
    assert.equal(short.statusCode, 422);
    assert.match(short.body?.message ?? "", /may not specify a duration less than 10 minutes/);
    const bad = await statusOf(request(alice, "s", { expirationSeconds: "600" }));
    assert.equal(bad.statusCode, 422);
    assert.equal((await request(alice, "s", {})).spec.expirationSeconds, 3600);
    assert.equal((await request(alice, "s", { expirationSeconds: 10 ** 7 })).spec.expirationSeconds, 24 * 3600);
    const huge = await statusOf(request(alice, "s", { expirationSeconds: 2 ** 33 }));
    assert.equal(huge.statusCode, 422);
  });

  it("refuses viewers and outsiders with Forbidden, and names what is missing for a shoot without published credentials", async () => {
    for (const user of ["victor", "mallory"]) {
      const err = await statusOf(request(await clientFor(user), "s", { expirationSeconds: 600 }));
      assert.equal(err.statusCode, 403, user);
      assert.equal(err.body?.reason, "Forbidden");
      assert.match(err.body?.message ?? "", /cannot create resource "shoots\/adminkubeconfig"/);
    }
    const alice = await clientFor("alice");
    const bare = await statusOf(request(alice, "bare", { expirationSeconds: 600 }));
    assert.equal(bare.statusCode, 400);
    assert.match(bare.body?.message ?? "", /no kube-apiserver advertised addresses/);
    const missing = await statusOf(request(alice, "nope", { expirationSeconds: 600 }));
    assert.equal(missing.statusCode, 404);
  });

  it("the member cannot read the shoot's client CA", async () => {
    const alice = await clientFor("alice");
    const err = await statusOf(alice.get(Secrets, { namespace: CA_CLIENT_NAMESPACE, name: caClientSecretName(NS, "s") }));
    assert.equal(err.statusCode, 403);
  });
});
