// The node agent's side of TLS bootstrapping (src/nodeagent/bootstrap/) against a real in-process
// API server: a bootstrap token kubeconfig becomes a working system:node:<name> kubeconfig (0600),
// which is renewed with the node's own identity (selfnodeclient) at 80 % of its lifetime; a
// serving certificate for the node's addresses lands in the given files.
import assert from "node:assert/strict";
import { X509Certificate, createPrivateKey } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "../../../src/client/client.ts";
import { ClientCertificateManager, ensureClientKubeconfig } from "../../../src/nodeagent/bootstrap/client.ts";
import { CertificateSigningRequests } from "../../../src/nodeagent/bootstrap/csr.ts";
import { certificateInfo, readCredentials } from "../../../src/nodeagent/bootstrap/kubeconfig.ts";
import { ensureServingCertificate } from "../../../src/nodeagent/bootstrap/serving.ts";
import { Nodes } from "../../../src/nodeagent/node.ts";
import { type Env, startEnv, whoami } from "./support.ts";

describe("node agent bootstrap", () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(async () => {
    await env?.stop();
  });

  it("writes a working system:node kubeconfig from a bootstrap token and keeps it while it is good", async () => {
    const t = await env.bootstrapToken(new Date(env.clock.nowMs() + 3600_000));
    const kubeconfig = join(env.dir, "n1.kubeconfig");
    const renewAt = await ensureClientKubeconfig({ nodeName: "n1", kubeconfig, bootstrapKubeconfig: t.kubeconfig, clock: env.clock, timeoutMs: 20_000 });
    assert.equal(statSync(kubeconfig).mode & 0o777, 0o600);
    const node = Client.fromKubeconfigFile(kubeconfig);
    try {
      assert.deepEqual(await whoami(node), { username: "system:node:n1", groups: ["system:nodes", "system:authenticated"] });
    } finally {
      node.close();
    }
    const info = certificateInfo(readCredentials(kubeconfig)!.certPem!)!;
    assert.equal(renewAt, info.renewAtMs);
    // Nothing to do while the certificate is good: same file content, same renewal time.
    const before = readFileSync(kubeconfig, "utf8");
    assert.equal(await ensureClientKubeconfig({ nodeName: "n1", kubeconfig, clock: env.clock }), renewAt);
    assert.equal(readFileSync(kubeconfig, "utf8"), before);
    // A kubeconfig of another identity is replaced; without a bootstrap kubeconfig that is an error.
    await assert.rejects(ensureClientKubeconfig({ nodeName: "other", kubeconfig, clock: env.clock }), /without --bootstrap-kubeconfig/);
  });

  it("keeps a kubelet serving certificate for the node's addresses in the given files", async () => {
    const t = await env.bootstrapToken(new Date(env.clock.nowMs() + 3600_000));
    const kubeconfig = join(env.dir, "n3.kubeconfig");
    await ensureClientKubeconfig({ nodeName: "n3", kubeconfig, bootstrapKubeconfig: t.kubeconfig, clock: env.clock, timeoutMs: 20_000 });
    await env.admin.create(Nodes, { metadata: { name: "n3" } });
    await env.admin.patchStatus(Nodes, { name: "n3" }, { type: "merge", body: { status: { addresses: [{ type: "InternalIP", address: "10.250.0.3" }, { type: "Hostname", address: "n3.local" }] } } });
    const node = Client.fromKubeconfigFile(kubeconfig);
    try {
      const certFile = join(env.dir, "kubelet.crt");
      const keyFile = join(env.dir, "kubelet.key");
      const o = { nodeName: "n3", hostname: "n3.local", ipAddresses: ["10.250.0.3"], certFile, keyFile, clock: env.clock, timeoutMs: 20_000 };
      await ensureServingCertificate(node, o);
      const cert = new X509Certificate(readFileSync(certFile));
      assert.equal(cert.subjectAltName, "DNS:n3.local, IP Address:10.250.0.3");
      assert.ok(cert.checkPrivateKey(createPrivateKey(readFileSync(keyFile))));
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      // Good and for the same names: kept.
      const again = readFileSync(certFile, "utf8");
      await ensureServingCertificate(node, o);
      assert.equal(readFileSync(certFile, "utf8"), again);
    } finally {
      node.close();
    }
  });

  // Last: it moves the fake clock ahead of real time (certificates issued later are not yet valid for TLS).
  it("renews at 80 % of the lifetime with the node's own certificate (self node client)", async () => {
    const t = await env.bootstrapToken(new Date(env.clock.nowMs() + 3600_000));
    const kubeconfig = join(env.dir, "n2.kubeconfig");
    let renewed!: () => void;
    const renewal = new Promise<void>((r) => (renewed = r));
    const manager = new ClientCertificateManager({ nodeName: "n2", kubeconfig, bootstrapKubeconfig: t.kubeconfig, clock: env.clock, timeoutMs: 20_000, expirationSeconds: 3600, onRenewed: () => renewed() });
    try {
      await manager.start();
      const firstPem = readCredentials(kubeconfig)!.certPem!;
      const first = certificateInfo(firstPem)!;
      // The bootstrap token is gone by then: the renewal must use the node's own identity.
      env.clock.set(first.renewAtMs);
      await renewal;
      const second = readCredentials(kubeconfig)!.certPem!;
      assert.notEqual(new X509Certificate(second).serialNumber, new X509Certificate(firstPem).serialNumber);
      assert.equal(certificateInfo(second)!.commonName, "system:node:n2");
      const csrs = (await env.admin.list(CertificateSigningRequests)).items.filter((c) => c.spec.username === "system:node:n2");
      assert.equal(csrs.length, 1, "one renewal request, made by the node itself");
      assert.equal(csrs[0]!.status!.conditions!.find((c) => c.type === "Approved")!.message, "Auto approving self kubelet client certificate after SubjectAccessReview.");
      assert.ok(certificateInfo(second)!.notBeforeMs > first.notBeforeMs);
    } finally {
      manager.stop();
    }
  });
});
