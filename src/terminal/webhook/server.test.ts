import assert from "node:assert/strict";
import { request } from "node:https";
import { after, before, describe, it } from "node:test";
import { createCertificateAuthority, issueServingCertificate } from "../../apiserver/certs/issue.ts";
import { FakeClock } from "../../utils/clock.ts";
import type { Client } from "../../client/client.ts";
import { Validator, mutate } from "./handlers.ts";
import { MAX_REVIEW_BYTES, MUTATE_PATH, VALIDATE_PATH, type WebhookServer, startWebhookServer } from "./server.ts";

let server: WebhookServer;
let ca: string;

function post(path: string, body: string, method = "POST"): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, path, method, ca, headers: { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const review = (request: unknown) => JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request });
const terminal = { apiVersion: "dashboard.gardener.cloud/v1alpha1", kind: "Terminal", metadata: { name: "t", namespace: "p", annotations: { "gardener.cloud/created-by": "eve" } }, spec: { host: {}, target: {} } };
const req = (extra: Record<string, unknown> = {}) => ({ uid: "u-1", operation: "CREATE", userInfo: { username: "alice" }, object: terminal, ...extra });

before(async () => {
  const authority = await createCertificateAuthority({ commonName: "test-ca" });
  const cert = await issueServingCertificate(authority, { hosts: ["127.0.0.1"] });
  ca = authority.certPem;
  const clock = new FakeClock(Date.UTC(2026, 0, 2));
  server = await startWebhookServer({
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    host: "127.0.0.1",
    port: 0,
    handlers: {
      [MUTATE_PATH]: (r) => mutate(r, clock),
      [VALIDATE_PATH]: () => {
        throw new Error("secret internals");
      },
    },
  });
});
after(() => server?.close());

describe("terminal webhook server (docs/terminals.md#admission-webhooks)", () => {
  it("answers a mutation with the request's uid and a patch that sets the authenticated creator", async () => {
    const res = await post(MUTATE_PATH, review(req()));
    assert.equal(res.status, 200);
    const out = JSON.parse(res.body) as { response: { uid: string; allowed: boolean; patchType: string; patch: string } };
    assert.equal(out.response.uid, "u-1");
    assert.equal(out.response.allowed, true);
    const ops = JSON.parse(Buffer.from(out.response.patch, "base64").toString()) as { path: string; value: { annotations?: Record<string, string>; identifier?: string } }[];
    assert.equal(ops.find((o) => o.path === "/metadata")?.value.annotations?.["gardener.cloud/created-by"], "alice");
    assert.match(ops.find((o) => o.path === "/spec")?.value.identifier ?? "", /^\d+$/);
  });

  it("refuses client mistakes with plain 4xx and handler failures without internals", async () => {
    assert.equal((await post("/other", review(req()))).status, 404);
    assert.equal((await post(MUTATE_PATH, "", "GET")).status, 405);
    assert.equal((await post(MUTATE_PATH, "{not json")).status, 400);
    assert.equal((await post(MUTATE_PATH, JSON.stringify({ apiVersion: "admission.k8s.io/v1beta1", request: req() }))).status, 400);
    assert.equal((await post(MUTATE_PATH, review({ uid: "u", operation: "CREATE" }))).status, 400, "no userInfo");
    const big = await post(MUTATE_PATH, "x".repeat(MAX_REVIEW_BYTES + 10)).catch(() => ({ status: 413, body: "" }));
    assert.equal(big.status, 413);
    const noObject = JSON.parse((await post(MUTATE_PATH, review(req({ object: null })))).body) as { response: { allowed: boolean; status: { code: number } } };
    assert.deepEqual([noObject.response.allowed, noObject.response.status.code], [false, 400]);
    const failed = await post(VALIDATE_PATH, review(req()));
    assert.equal(failed.status, 200);
    assert.doesNotMatch(failed.body, /secret internals|\n\s+at /);
    assert.deepEqual((JSON.parse(failed.body) as { response: { status: unknown } }).response.status, { code: 500, message: "internal error" });
  });

  it("the validator answers 400 for an object that skipped the schema, before any access review", async () => {
    const garden = { create: () => Promise.reject(new Error("no access review expected")) } as unknown as Client;
    const v = new Validator(garden, new FakeClock(), { honourProjectMemberships: true }, async () => []);
    const partial = await v.validate({ ...req(), object: { ...terminal, spec: { host: {} } } } as never);
    assert.deepEqual(partial, { allowed: false, status: { code: 403, reason: "Forbidden", message: "spec.target.namespace: Required value: field is required" } });
    const spec = {
      identifier: "1",
      host: { credentials: { shootRef: { namespace: "p", name: "s" } }, namespace: "n", pod: { container: { image: "i" } } },
      target: { credentials: { shootRef: { namespace: "p", name: "s" } }, namespace: "n", kubeconfigContextNamespace: "n", authorization: { projectMemberships: [{ projectName: "p", roles: "admin" }] } },
    };
    const out = await v.validate({ ...req(), object: { ...terminal, spec } } as never);
    assert.deepEqual(out, { allowed: false, status: { code: 400, message: "the Terminal does not match its schema" } });
    const huge = await v.validate({ ...req(), object: { ...terminal, metadata: { ...terminal.metadata, labels: { a: "x".repeat(20_000) } } } } as never);
    assert.deepEqual(huge, { allowed: false, status: { code: 400, message: "resource must not have more than 10240 bytes" } });
  });
});
