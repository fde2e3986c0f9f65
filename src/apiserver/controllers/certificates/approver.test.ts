import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as x509 from "@peculiar/x509";
import type { CertificateSigningRequest } from "../../../apis/certificates/v1/types.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { FakeClock } from "../../../utils/clock.ts";
import type { AuthorizationAttributes, Authorizer } from "../../authorization/types.ts";
import { EC_P256, generateKeyPair } from "../../certs/keys.ts";
import type { InternalClient } from "../../registry/client.ts";
import { CSRApprover, NODE_RECHECK_MS } from "./approver.ts";

async function request(subject: string, sans: x509.JsonGeneralName[] = []): Promise<string> {
  const keys = await generateKeyPair(EC_P256);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: EC_P256, extensions: sans.length ? [new x509.SubjectAlternativeNameExtension(sans)] : [] });
  return Buffer.from(csr.toString("pem")).toString("base64");
}

interface Case {
  csr: CertificateSigningRequest;
  node?: KubeObject;
  allowed: string[];
}

/** Runs one sync; returns the condition written (or undefined) and the subresources asked about. */
async function decide(c: Case): Promise<{ written?: { type: string; reason?: string; message?: string }; asked: string[]; result: unknown }> {
  const asked: string[] = [];
  let written: CertificateSigningRequest | undefined;
  const client = {
    get: (gr: { resource: string }) => Promise.resolve(gr.resource === "nodes" ? c.node : (c.csr as KubeObject)),
    update: (_gr: unknown, obj: KubeObject) => ((written = obj as CertificateSigningRequest), Promise.resolve(obj)),
  } as unknown as InternalClient;
  const authorizer: Authorizer = {
    authorize: (a: AuthorizationAttributes) => {
      asked.push(`${a.user.username}:${a.subresource}`);
      return Promise.resolve({ decision: c.allowed.includes(a.subresource ?? "") ? "allow" : "noOpinion", reason: "" });
    },
  };
  const approver = new CSRApprover({ client, clock: new FakeClock(), authorizer: () => authorizer });
  const result = await approver.sync(c.csr.metadata.name!);
  approver.stop();
  return { written: written?.status?.conditions?.at(-1), asked, result };
}

const spec = (request: string, signerName: string, username: string, usages: string[], groups = ["system:bootstrappers"]) =>
  ({ request, signerName, username, groups, usages }) as CertificateSigningRequest["spec"];
const CLIENT = "kubernetes.io/kube-apiserver-client-kubelet";
const SERVING = "kubernetes.io/kubelet-serving";

describe("CSR approver decisions", () => {
  it("approves a bootstrapper's node client request after the nodeclient check, and a node's own renewal after selfnodeclient", async () => {
    const req = await request("O=system:nodes, CN=system:node:a");
    const boot = await decide({ csr: { metadata: { name: "c" }, spec: spec(req, CLIENT, "system:bootstrap:abc", ["digital signature", "client auth"]) }, allowed: ["nodeclient"] });
    assert.deepEqual(boot.asked, ["system:bootstrap:abc:nodeclient"]);
    const { type, reason, message } = boot.written!;
    assert.deepEqual({ type, reason, message }, { type: "Approved", reason: "AutoApproved", message: "Auto approving kubelet client certificate after SubjectAccessReview." });
    const self = await decide({ csr: { metadata: { name: "c" }, spec: spec(req, CLIENT, "system:node:a", ["digital signature", "key encipherment", "client auth"], ["system:nodes"]) }, allowed: ["selfnodeclient"] });
    assert.deepEqual(self.asked, ["system:node:a:selfnodeclient"]);
    assert.equal(self.written?.message, "Auto approving self kubelet client certificate after SubjectAccessReview.");
  });

  it("leaves requests pending that are not kubelet client requests or whose requester may not", async () => {
    const usages = ["digital signature", "client auth"];
    for (const [subject, u, allowed] of [
      ["O=system:nodes, O=system:masters, CN=system:node:a", usages, ["nodeclient"]],
      ["O=system:nodes, CN=admin", usages, ["nodeclient"]],
      ["O=system:nodes, CN=system:node:a", ["digital signature", "client auth", "server auth"], ["nodeclient"]],
      ["O=system:nodes, CN=system:node:a", usages, []],
    ] as const) {
      const r = await decide({ csr: { metadata: { name: "c" }, spec: spec(await request(subject), CLIENT, "system:bootstrap:abc", [...u]) }, allowed: [...allowed] });
      assert.equal(r.written, undefined, subject);
    }
    // Another node's identity may only use nodeclient (not selfnodeclient) for a different name.
    const other = await decide({ csr: { metadata: { name: "c" }, spec: spec(await request("O=system:nodes, CN=system:node:b"), CLIENT, "system:node:a", usages, ["system:nodes"]) }, allowed: ["selfnodeclient"] });
    assert.deepEqual(other.asked, ["system:node:a:nodeclient"]);
    assert.equal(other.written, undefined);
  });

  it("approves serving requests for exactly the node's addresses, denies others, waits for a missing Node", async () => {
    const usages = ["digital signature", "server auth"];
    const node = { apiVersion: "v1", kind: "Node", metadata: { name: "a" }, status: { addresses: [{ type: "InternalIP", address: "10.0.0.1" }, { type: "Hostname", address: "a" }] } };
    const mk = async (sans: x509.JsonGeneralName[], username = "system:node:a", cn = "system:node:a") =>
      ({ metadata: { name: "s" }, spec: spec(await request(`O=system:nodes, CN=${cn}`, sans), SERVING, username, usages, ["system:nodes"]) }) as CertificateSigningRequest;
    const ok = await decide({ csr: await mk([{ type: "dns", value: "a" }, { type: "ip", value: "10.0.0.1" }]), node, allowed: [] });
    assert.equal(ok.written?.reason, "RequestApproved");
    const foreign = await decide({ csr: await mk([{ type: "dns", value: "a" }, { type: "ip", value: "10.0.0.2" }]), node, allowed: [] });
    assert.equal(foreign.written?.type, "Denied");
    const subset = await decide({ csr: await mk([{ type: "dns", value: "a" }]), node, allowed: [] });
    assert.equal(subset.written?.type, "Denied");
    const otherNode = await decide({ csr: await mk([{ type: "dns", value: "a" }, { type: "ip", value: "10.0.0.1" }], "system:node:b", "system:node:a"), node, allowed: [] });
    assert.match(otherNode.written?.message ?? "", /common name does not match/);
    const missing = await decide({ csr: await mk([{ type: "dns", value: "a" }, { type: "ip", value: "10.0.0.1" }]), allowed: [] });
    assert.equal(missing.written, undefined);
    assert.equal(missing.result, NODE_RECHECK_MS);
    const bootstrapper = await decide({ csr: { ...(await mk([{ type: "dns", value: "a" }])), spec: { ...(await mk([{ type: "dns", value: "a" }])).spec, username: "system:bootstrap:abc", groups: ["system:bootstrappers"] } }, node, allowed: [] });
    assert.equal(bootstrapper.written, undefined);
  });
});
