import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import * as x509 from "@peculiar/x509";
import type { CertificateSigningRequest } from "../../../../apis/certificates/v1/types.ts";
import { EC_P256, generateKeyPair } from "../../../certs/keys.ts";
import { simulateCreate, simulateStatusUpdate, simulateUpdate, testContext } from "../../core/testing.ts";
import { csrDefinition as def } from "./definition.ts";
import { csrApprovalStrategy } from "./strategy.ts";

let request = "";
before(async () => {
  const keys = await generateKeyPair(EC_P256);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: "O=system:nodes, CN=system:node:a", keys, signingAlgorithm: EC_P256 });
  request = Buffer.from(csr.toString("pem")).toString("base64");
});

const csr = (spec: Record<string, unknown> = {}, status?: unknown): CertificateSigningRequest =>
  ({
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name: "node-csr-Ab_c", creationTimestamp: "2024-01-01T00:00:00Z" },
    spec: { request, signerName: "kubernetes.io/kube-apiserver-client-kubelet", usages: ["digital signature", "client auth"], ...spec },
    ...(status ? { status } : {}),
  }) as CertificateSigningRequest;

describe("CertificateSigningRequest", () => {
  it("takes username, uid, groups and extra from the requester, never from the body", () => {
    const ctx = { ...testContext(), user: { username: "system:bootstrap:abcdef", groups: ["system:bootstrappers"], extra: { k: ["v"] } } };
    const out = simulateCreate(def, csr({ username: "system:node:a", uid: "1", groups: ["system:masters"] }), ctx);
    assert.deepEqual(out.errors, []);
    const spec = (out.obj as CertificateSigningRequest).spec;
    assert.equal(spec.username, "system:bootstrap:abcdef");
    assert.equal(spec.uid, undefined);
    assert.deepEqual(spec.groups, ["system:bootstrappers"]);
    assert.deepEqual(spec.extra, { k: ["v"] });
  });

  it("validates the request, signer, usages and duration as upstream", () => {
    const bad = csr({ request: Buffer.from("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").toString("base64"), signerName: "nodomain", usages: ["client auth", "client auth", "teleport"], expirationSeconds: 599 });
    assert.deepEqual(simulateCreate(def, bad).errors, [
      'spec.usages[2]: Unsupported value: "teleport": supported values: "signing", "digital signature", "content commitment", "key encipherment", "key agreement", "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any", "server auth", "client auth", "code signing", "email protection", "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc"',
      'spec.request: Invalid value: "<value omitted>": PEM block type must be CERTIFICATE REQUEST',
      "spec.signerName: Invalid value: \"nodomain\": must be a fully qualified domain and path of the form 'example.com/signer-name'",
      'spec.usages[1]: Duplicate value: "client auth"',
      "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)",
    ]);
    assert.deepEqual(simulateCreate(def, csr({ signerName: "kubernetes.io/legacy-unknown" })).errors, [
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    ]);
    assert.deepEqual(simulateCreate(def, csr({ usages: [] })).errors, ["spec.usages: Required value"]);
    // A tampered request (bad self-signature) is refused.
    const der = Buffer.from(Buffer.from(request, "base64").toString().replace(/-----[^-]+-----|\s/g, ""), "base64");
    der[der.length - 3]! ^= 0xff;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString("base64")}\n-----END CERTIFICATE REQUEST-----\n`;
    assert.match(simulateCreate(def, csr({ request: Buffer.from(tampered).toString("base64") })).errors.join(), /spec.request: .*(verification failure|malformed)/);
  });

  it("keeps spec and status on main updates and the approval decision on /status", () => {
    const old = simulateCreate(def, csr()).obj as CertificateSigningRequest;
    old.status = { conditions: [{ type: "Approved", status: "True", reason: "AutoApproved" }] };
    const main = simulateUpdate(def, { ...old, spec: { ...old.spec, signerName: "example.com/x" }, status: {} }, old).obj as CertificateSigningRequest;
    assert.equal(main.spec.signerName, "kubernetes.io/kube-apiserver-client-kubelet");
    assert.deepEqual(main.status?.conditions?.map((c) => c.type), ["Approved"]);
    const status = simulateStatusUpdate(def, { ...old, status: { conditions: [{ type: "Denied", status: "True" }, { type: "Failed", status: "True" }] } }, old);
    assert.deepEqual((status.obj as CertificateSigningRequest).status!.conditions!.map((c) => c.type), ["Approved", "Failed"]);
  });

  it("approval sets only Approved/Denied, which are exclusive and may not be removed", () => {
    const ctx = testContext();
    const old = csr({}, { conditions: [{ type: "Approved", status: "True" }] });
    const both = csr({}, { conditions: [{ type: "Approved", status: "True" }, { type: "Denied", status: "True" }] });
    csrApprovalStrategy.prepareForUpdate!(ctx, both, old);
    assert.deepEqual(csrApprovalStrategy.validateUpdate!(ctx, both, old).map((e) => e.detail), ["Approved and Denied conditions are mutually exclusive"]);
    const removed = csr({ signerName: "example.com/forged" }, { conditions: [], certificate: "Zm9v" });
    csrApprovalStrategy.prepareForUpdate!(ctx, removed, old);
    assert.equal(removed.spec.signerName, "kubernetes.io/kube-apiserver-client-kubelet");
    assert.equal(removed.status?.certificate, undefined);
    assert.deepEqual(csrApprovalStrategy.validateUpdate!(ctx, removed, old).map((e) => e.detail), ['updates may not remove a condition of type "Approved"']);
  });

  it("prints NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION", () => {
    assert.deepEqual(def.table!.columns.map((c) => c.name), ["Age", "SignerName", "Requestor", "RequestedDuration", "Condition"]);
    const now = new Date("2024-01-01T00:05:00Z");
    const issued = csr({ username: "system:bootstrap:abcdef", expirationSeconds: 3600 }, { conditions: [{ type: "Approved", status: "True" }], certificate: "Zm9v" });
    assert.deepEqual(def.table!.cells(issued, now), ["5m", "kubernetes.io/kube-apiserver-client-kubelet", "system:bootstrap:abcdef", "60m", "Approved,Issued"]);
    assert.equal(def.table!.cells(csr(), now)[3], "<none>");
    assert.equal(def.table!.cells(csr(), now)[4], "Pending");
    assert.equal(def.table!.cells(csr({}, { conditions: [{ type: "Denied", status: "True" }, { type: "Failed", status: "True" }] }), now)[4], "Denied,Failed");
  });
});
