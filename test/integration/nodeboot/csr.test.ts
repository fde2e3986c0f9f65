// Node TLS bootstrapping against a real in-process API server (docs/node-bootstrap.md): bootstrap
// tokens, CSR approval and signing, and what the approver refuses.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SIGNER_APISERVER_CLIENT, SIGNER_KUBELET_CLIENT, SIGNER_KUBELET_SERVING } from "../../../src/apis/certificates/v1/types.ts";
import { Secrets } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { CertificateSigningRequests } from "../../../src/nodeagent/bootstrap/csr.ts";
import { Nodes } from "../../../src/nodeagent/node.ts";
import { writeTokenKubeconfig } from "../../support/kubeconfig.ts";
import { type Env, makeCSR, startEnv, whoami } from "./support.ts";
import { hasCondition, issued, waitForCSR } from "./wait.ts";

const CLIENT_USAGES = ["digital signature", "client auth"];

describe("node bootstrap: bootstrap tokens", () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(async () => {
    await env?.stop();
  });

  it("authenticates a bootstrap token as system:bootstrap:<id> until it expires, then the cleaner deletes it", async () => {
    const expiration = new Date(env.clock.nowMs() + 60 * 60 * 1000);
    const t = await env.bootstrapToken(expiration, ["system:bootstrappers:worker"]);
    const me = await whoami(t.client);
    assert.equal(me.username, `system:bootstrap:${t.id}`);
    assert.deepEqual(me.groups, ["system:bootstrappers", "system:bootstrappers:worker", "system:authenticated"]);

    // A wrong secret for the same id is refused.
    const forgedPath = writeTokenKubeconfig(env.server.adminKubeconfigPath, join(env.dir, "forged.kubeconfig"), "forged", `${t.id}.aaaaaaaaaaaaaaaa`);
    const forged = Client.fromKubeconfigFile(forgedPath, { fieldManager: "test" });
    await assert.rejects(whoami(forged), (err: Error & { code?: number }) => err.code === 401);
    forged.close();

    // Past its expiration the token is refused at once, and the cleaner deletes its Secret.
    const secret = await env.admin.get(Secrets, { namespace: "kube-system", name: `bootstrap-token-${t.id}` });
    env.clock.step(60 * 60 * 1000 + 1000);
    await assert.rejects(whoami(t.client), (err: Error & { code?: number }) => err.code === 401);
    await watchDeletion(env.admin, secret.metadata.name!, secret.metadata.resourceVersion!);
  });
});

// The fake clock stays at real time here: issued certificates must be valid for the TLS handshake.
describe("node bootstrap: CSRs", () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(async () => {
    await env?.stop();
  });

  it("approves and signs a bootstrapper's CSR for system:node:a; the certificate authenticates as system:node:a", async () => {
    const t = await env.bootstrapToken(new Date(env.clock.nowMs() + 3600_000));
    const { csr, keyPem } = await makeCSR({ cn: "system:node:a", o: ["system:nodes"], signer: SIGNER_KUBELET_CLIENT, usages: CLIENT_USAGES, expirationSeconds: 3600 });
    const created = await t.client.create(CertificateSigningRequests, csr);
    assert.equal(created.spec.username, `system:bootstrap:${t.id}`);
    const done = await waitForCSR(env.admin, csr.metadata.name!, issued);
    const approved = done.status!.conditions!.find((c) => c.type === "Approved")!;
    assert.equal(approved.reason, "AutoApproved");
    assert.equal(approved.message, "Auto approving kubelet client certificate after SubjectAccessReview.");
    const certPem = Buffer.from(done.status!.certificate!, "base64").toString();
    const cert = new X509Certificate(certPem);
    // Bounded by expirationSeconds (plus the 5 minute backdating).
    assert.equal(Date.parse(cert.validTo) - Date.parse(cert.validFrom), 3600_000 + 300_000);
    const node = Client.fromKubeconfigFile(await env.certKubeconfig("a", certPem, keyPem), { fieldManager: "test" });
    try {
      const me = await whoami(node);
      assert.equal(me.username, "system:node:a");
      assert.deepEqual(me.groups, ["system:nodes", "system:authenticated"]);
    } finally {
      node.close();
    }
  });

  it("does not auto-approve a bootstrapper's CSR for system:masters or a non-node name, and never takes spec.username from the body", async () => {
    const t = await env.bootstrapToken(new Date(env.clock.nowMs() + 3600_000));
    const masters = await makeCSR({ cn: "system:node:a", o: ["system:nodes", "system:masters"], signer: SIGNER_KUBELET_CLIENT, usages: CLIENT_USAGES });
    const notNode = await makeCSR({ cn: "admin", o: ["system:nodes"], signer: SIGNER_KUBELET_CLIENT, usages: CLIENT_USAGES });
    const forgedUser = await makeCSR({ cn: "system:node:b", o: ["system:nodes"], signer: SIGNER_KUBELET_CLIENT, usages: CLIENT_USAGES });
    Object.assign(forgedUser.csr.spec, { username: "system:node:b", groups: ["system:masters", "system:nodes"], uid: "x", extra: { a: ["b"] } });
    for (const c of [masters, notNode, forgedUser]) await t.client.create(CertificateSigningRequests, c.csr);
    // Sent after them: once it is issued, the approver (one request at a time, in order) has decided on the others.
    const marker = await makeCSR({ cn: "system:node:m", o: ["system:nodes"], signer: SIGNER_KUBELET_CLIENT, usages: CLIENT_USAGES });
    await t.client.create(CertificateSigningRequests, marker.csr);
    await waitForCSR(env.admin, marker.csr.metadata.name!, issued);
    for (const c of [masters, notNode]) {
      const got = await env.admin.get(CertificateSigningRequests, { name: c.csr.metadata.name! });
      assert.deepEqual(got.status?.conditions ?? [], [], c.csr.metadata.name);
      assert.equal(got.status?.certificate, undefined);
    }
    const stored = await env.admin.get(CertificateSigningRequests, { name: forgedUser.csr.metadata.name! });
    assert.equal(stored.spec.username, `system:bootstrap:${t.id}`);
    assert.deepEqual(stored.spec.groups, ["system:bootstrappers", "system:authenticated"]);
    assert.equal(stored.spec.uid, undefined);
    assert.equal(stored.spec.extra, undefined);
  });

  it("refuses system:masters from the kube-apiserver-client signer and invalid requests with 4xx", async () => {
    const t = await env.bootstrapToken(new Date(env.clock.nowMs() + 3600_000));
    const masters = await makeCSR({ cn: "me", o: ["system:masters"], signer: SIGNER_APISERVER_CLIENT, usages: CLIENT_USAGES });
    await assert.rejects(env.admin.create(CertificateSigningRequests, masters.csr), (err: Error & { code?: number }) => err.code === 403 && /system:masters group is not allowed/.test(err.message));
    const short = await makeCSR({ cn: "system:node:a", o: ["system:nodes"], signer: SIGNER_KUBELET_CLIENT, usages: CLIENT_USAGES, expirationSeconds: 599 });
    await assert.rejects(t.client.create(CertificateSigningRequests, short.csr), (err: Error & { code?: number }) => err.code === 422 && /600 seconds/.test(err.message));
    const garbage = await makeCSR({ cn: "system:node:a", o: ["system:nodes"], signer: SIGNER_KUBELET_CLIENT, usages: CLIENT_USAGES });
    garbage.csr.spec.request = Buffer.from("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").toString("base64");
    await assert.rejects(t.client.create(CertificateSigningRequests, garbage.csr), (err: Error & { code?: number }) => err.code === 422 && /CERTIFICATE REQUEST/.test(err.message));
    // A bootstrapper may not approve (no `approve` on the signer).
    const pending = await makeCSR({ cn: "x", signer: "example.com/other", usages: CLIENT_USAGES });
    await t.client.create(CertificateSigningRequests, pending.csr);
    const body = { ...pending.csr, status: { conditions: [{ type: "Approved", status: "True", reason: "Mine" }] } };
    await assert.rejects(
      t.client.transport.request({ method: "PUT", path: `/apis/certificates.k8s.io/v1/certificatesigningrequests/${pending.csr.metadata.name}/approval`, body }),
      // RBAC already refuses the approval subresource (the signer check behind it is unit-tested).
      (err: Error & { code?: number }) => err.code === 403 && /cannot update resource "certificatesigningrequests\/approval"/.test(err.message),
    );
  });

  it("approves kubelet-serving CSRs for exactly the node's addresses and denies a foreign SAN", async () => {
    const { certPem, keyPem } = await nodeIdentity(env, "srv");
    await env.admin.create(Nodes, { metadata: { name: "srv" } });
    await env.admin.patchStatus(Nodes, { name: "srv" }, { type: "merge", body: { status: { addresses: [{ type: "InternalIP", address: "10.0.0.5" }, { type: "Hostname", address: "srv" }] } } });
    const node = Client.fromKubeconfigFile(await env.certKubeconfig("srv", certPem, keyPem), { fieldManager: "test" });
    try {
      const usages = ["digital signature", "server auth"];
      const foreign = await makeCSR({ cn: "system:node:srv", o: ["system:nodes"], dns: ["srv"], ips: ["10.0.0.5", "10.0.0.99"], signer: SIGNER_KUBELET_SERVING, usages });
      await node.create(CertificateSigningRequests, foreign.csr);
      const denied = await waitForCSR(env.admin, foreign.csr.metadata.name!, hasCondition("Denied"));
      assert.match(denied.status!.conditions![0]!.message!, /IP addresses in CSR .* do not match/);
      assert.equal(denied.status?.certificate, undefined);
      const good = await makeCSR({ cn: "system:node:srv", o: ["system:nodes"], dns: ["srv"], ips: ["10.0.0.5"], signer: SIGNER_KUBELET_SERVING, usages });
      await node.create(CertificateSigningRequests, good.csr);
      const done = await waitForCSR(env.admin, good.csr.metadata.name!, issued);
      assert.equal(done.status!.conditions!.find((c) => c.type === "Approved")!.reason, "RequestApproved");
    } finally {
      node.close();
    }
  });
});

async function nodeIdentity(env: Env, name: string): Promise<{ certPem: string; keyPem: string }> {
  const t = await env.bootstrapToken(new Date(env.clock.nowMs() + 3600_000));
  const { csr, keyPem } = await makeCSR({ cn: `system:node:${name}`, o: ["system:nodes"], signer: SIGNER_KUBELET_CLIENT, usages: CLIENT_USAGES });
  await t.client.create(CertificateSigningRequests, csr);
  const done = await waitForCSR(env.admin, csr.metadata.name!, issued);
  return { certPem: Buffer.from(done.status!.certificate!, "base64").toString(), keyPem };
}

function watchDeletion(client: Client, name: string, resourceVersion: string): Promise<void> {
  const abort = new AbortController();
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => (abort.abort(), reject(new Error(`${name} was not deleted`))), 20_000);
    void client.watch(Secrets, { namespace: "kube-system", fieldSelector: `metadata.name=${name}`, resourceVersion }, (ev) => {
      if (ev.type === "DELETED") {
        clearTimeout(timer);
        abort.abort();
        resolve();
      }
    }, abort.signal);
  });
}
