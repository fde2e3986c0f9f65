// kubectl get csr (upstream's columns) and kubectl certificate approve/deny (a protobuf PUT to
// /approval for kubectl >= 1.32) against a real in-process API server.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CertificateSigningRequests } from "../../../src/nodeagent/bootstrap/csr.ts";
import { kubectlOk, latestKubectl, oldestKubectl, skipUnlessKubectl } from "../../support/kubectl.ts";
import { type Env, makeCSR, startEnv } from "./support.ts";

const versions = [latestKubectl, oldestKubectl];

// A missing kubectl version skips its test with a message on stderr (skipUnlessKubectl), never silently.
describe("kubectl and CertificateSigningRequests", { skip: versions.every((v) => skipUnlessKubectl(v)) && "no kubectl binaries" }, () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(async () => {
    await env?.stop();
  });

  for (const v of versions) {
    it(`kubectl ${v}: get csr, certificate approve and deny`, { skip: skipUnlessKubectl(v) }, async () => {
      const kubeconfig = env.server.adminKubeconfigPath;
      const a = await makeCSR({ cn: "x", signer: "example.com/other", usages: ["client auth"], name: `approve-me-${v}`, expirationSeconds: 3600 });
      const d = await makeCSR({ cn: "y", signer: "example.com/other", usages: ["client auth"], name: `deny-me-${v}` });
      for (const c of [a, d]) await env.admin.create(CertificateSigningRequests, c.csr);
      const table = (await kubectlOk(v, ["get", "csr", a.csr.metadata.name!, d.csr.metadata.name!], { kubeconfig })).trim().split("\n");
      assert.deepEqual(table[0]!.split(/\s+/), ["NAME", "AGE", "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION"]);
      assert.deepEqual(table[1]!.split(/\s+/).slice(2), ["example.com/other", "system:admin", "60m", "Pending"]);
      assert.deepEqual(table[2]!.split(/\s+/).slice(2), ["example.com/other", "system:admin", "<none>", "Pending"]);
      assert.match(await kubectlOk(v, ["certificate", "approve", a.csr.metadata.name!], { kubeconfig }), /approved/);
      assert.match(await kubectlOk(v, ["certificate", "deny", d.csr.metadata.name!], { kubeconfig }), /denied/);
      const approved = await env.admin.get(CertificateSigningRequests, { name: a.csr.metadata.name! });
      assert.deepEqual(approved.status?.conditions?.map((c) => [c.type, c.status, c.reason]), [["Approved", "True", "KubectlApprove"]]);
      const denied = await env.admin.get(CertificateSigningRequests, { name: d.csr.metadata.name! });
      assert.deepEqual(denied.status?.conditions?.map((c) => [c.type, c.reason]), [["Denied", "KubectlDeny"]]);
    });
  }
});
