// The audit log of a real gardener-apiserver process: audit.k8s.io/v1 events for a create, a
// patch, a watch, a delete and a denied (impersonated) request, at the levels and stages the policy
// asks for, with users, source IPs, object references, bodies and response statuses.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import type { AuditEvent } from "../../../src/apiserver/audit/recorder.ts";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { eventually, rawClient, type RawClient } from "../../support/http.ts";

const dir = mkdtempSync(join(tmpdir(), "audit-it-"));
const logPath = join(dir, "audit.log");
const policyPath = join(dir, "policy.yaml");
writeFileSync(
  policyPath,
  `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
  - level: RequestResponse
    resources: [{ group: "", resources: [configmaps] }]
    namespaces: [audit]
  - level: Metadata
    resources: [{ group: "", resources: [namespaces] }]
    omitStages: [RequestReceived]
  - level: Metadata
`,
);

let server: ApiServerProcess;
let c: RawClient;
before(async () => {
  server = await startApiServerProcess({
    storage: "sqlite",
    dataDir: join(dir, "data"),
    extraArgs: ["--audit-policy-file", policyPath, "--audit-log-path", logPath, "--audit-log-maxsize", "10"],
  });
  c = rawClient(server.kubeconfig);
});
after(async () => {
  c?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const json = { "content-type": "application/json" };

function events(): AuditEvent[] {
  if (!existsSync(logPath)) return [];
  return readFileSync(logPath, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as AuditEvent);
}

/** The events of the request with this Audit-Id (the X-Request-Id the test sent). */
async function eventsOf(id: string, stages: number): Promise<AuditEvent[]> {
  return eventually(`${stages} audit events of ${id}`, () => {
    const mine = events().filter((e) => e.auditID === id);
    return mine.length >= stages ? mine : undefined;
  });
}

const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

void it("records create, patch, watch, delete and a denied request as the policy says", async () => {
  const ns = await c.request({ method: "POST", path: "/api/v1/namespaces", headers: { ...json, "x-request-id": "ns-1" }, body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "audit" } }) });
  assert.equal(ns.status, 201, ns.body);
  const create = await c.request({
    method: "POST",
    path: "/api/v1/namespaces/audit/configmaps",
    headers: { ...json, "x-request-id": "create-1", "x-forwarded-for": "203.0.113.7", "user-agent": "audit-test/1" },
    body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm1" }, data: { a: "1" } }),
  });
  assert.equal(create.status, 201, create.body);
  const patch = await c.request({ method: "PATCH", path: "/api/v1/namespaces/audit/configmaps/cm1", headers: { "content-type": "application/merge-patch+json", "x-request-id": "patch-1" }, body: JSON.stringify({ data: { a: "2" } }) });
  assert.equal(patch.status, 200, patch.body);
  const watch = await c.request({ path: "/api/v1/namespaces/audit/configmaps?watch=true&timeoutSeconds=1", headers: { "x-request-id": "watch-1" } });
  assert.equal(watch.status, 200);
  const del = await c.request({ method: "DELETE", path: "/api/v1/namespaces/audit/configmaps/cm1", headers: { "x-request-id": "delete-1" } });
  assert.equal(del.status, 200, del.body);
  const denied = await c.request({ path: "/api/v1/namespaces/audit/secrets", headers: { "x-request-id": "denied-1", "impersonate-user": "eve" } });
  assert.equal(denied.status, 403, denied.body);

  const [received, complete] = await eventsOf("create-1", 2);
  assert.equal(received?.stage, "RequestReceived");
  assert.equal(complete?.stage, "ResponseComplete");
  assert.equal(complete?.apiVersion, "audit.k8s.io/v1");
  assert.equal(complete?.kind, "Event");
  assert.equal(complete?.level, "RequestResponse");
  assert.equal(complete?.verb, "create");
  assert.equal(complete?.requestURI, "/api/v1/namespaces/audit/configmaps");
  assert.ok(complete?.user.groups?.includes("system:masters"), JSON.stringify(complete?.user));
  assert.equal(complete?.impersonatedUser, undefined);
  assert.deepEqual(complete?.sourceIPs, ["203.0.113.7", "127.0.0.1"]);
  assert.equal(complete?.userAgent, "audit-test/1");
  assert.deepEqual(complete?.objectRef, { resource: "configmaps", namespace: "audit", name: "cm1", apiVersion: "v1" });
  assert.deepEqual(complete?.responseStatus, { metadata: {}, code: 201 });
  assert.deepEqual((complete?.requestObject as { data: unknown }).data, { a: "1" });
  assert.equal((complete?.responseObject as { metadata: { resourceVersion: string } }).metadata.resourceVersion, create.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion);
  assert.equal(complete?.annotations?.["authorization.k8s.io/decision"], "allow");
  assert.match(complete?.requestReceivedTimestamp ?? "", MICRO_TIME);
  assert.match(complete?.stageTimestamp ?? "", MICRO_TIME);
  assert.ok((complete?.stageTimestamp ?? "") >= (complete?.requestReceivedTimestamp ?? ""));

  const p = (await eventsOf("patch-1", 2))[1];
  assert.equal(p?.verb, "patch");
  assert.deepEqual(p?.requestObject, { data: { a: "2" } }, "the request object of a patch is the patch");
  assert.deepEqual((p?.responseObject as { data: unknown }).data, { a: "2" });

  const w = await eventsOf("watch-1", 3);
  assert.deepEqual(w.map((e) => e.stage), ["RequestReceived", "ResponseStarted", "ResponseComplete"]);
  assert.equal(w[2]?.verb, "watch");
  assert.equal(w[2]?.responseObject, undefined, "a watch has no response object");

  const d = (await eventsOf("delete-1", 2))[1];
  assert.equal(d?.verb, "delete");
  assert.deepEqual(d?.objectRef, { resource: "configmaps", namespace: "audit", name: "cm1", apiVersion: "v1" });
  assert.equal(d?.responseStatus?.code, 200);

  const x = (await eventsOf("denied-1", 2))[1];
  assert.equal(x?.level, "Metadata");
  assert.equal(x?.verb, "list");
  assert.equal(x?.impersonatedUser?.username, "eve");
  assert.ok(x?.user.groups?.includes("system:masters"), "user is who authenticated, not whom they impersonate");
  assert.equal(x?.responseStatus?.code, 403);
  assert.equal(x?.responseStatus?.status, "Failure");
  assert.equal(x?.responseStatus?.reason, "Forbidden");
  assert.match(String(x?.responseStatus?.message), /User "eve" cannot list resource "secrets"/);
  assert.equal(x?.annotations?.["authorization.k8s.io/decision"], "forbid");
  assert.equal(x?.requestObject, undefined, "Metadata level records no bodies");

  const nsEvents = await eventsOf("ns-1", 1);
  assert.deepEqual(nsEvents.map((e) => e.stage), ["ResponseComplete"], "RequestReceived omitted by the rule");
  assert.equal(nsEvents[0]?.objectRef?.name, "audit", "a create's name comes from its body at Metadata level too");
  assert.equal(events().filter((e) => e.requestURI.startsWith("/healthz") || e.requestURI.startsWith("/readyz")).length, 0, "level None records nothing");
});

void it("a bad policy stops the server at start with the policy's message", async () => {
  const bad = join(dir, "bad.yaml");
  writeFileSync(bad, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Everything}]\n");
  await assert.rejects(
    startApiServerProcess({ storage: "sqlite", dataDir: join(dir, "bad"), extraArgs: ["--audit-policy-file", bad, "--audit-log-path", join(dir, "bad.log")], startTimeoutMs: 30_000 }),
    /rules\[0\]\.level: must be one of None, Metadata, Request, RequestResponse/,
  );
});
