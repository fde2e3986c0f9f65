// Admission webhooks end to end: a real in-process API server calls a real in-process HTTPS
// webhook (docs/admission-webhooks.md): mutation stored, denial (also through kubectl), failure
// policies with a webhook that is down or slow, selectors, a Service reference, config changes
// within 1 s, oversized and invalid patches refused cleanly, and custom resources.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { RunningServer } from "../../../src/apiserver/server/server.ts";
import { gadgetCrd } from "../../support/crds.ts";
import { type InProcessServer, startInProcessApiServer } from "../../support/inprocess.ts";
import { eventually, type RawClient, type RawResponse, rawClient } from "../../support/http.ts";
import { kubectlFor, skipUnlessKubectl } from "../../support/kubectl.ts";
import { jsonPatch, startWebhookServer, type WebhookServer } from "./server.ts";

const ADMREG = "/apis/admissionregistration.k8s.io/v1";
let inProcess: InProcessServer | undefined;
let server: RunningServer;
let hook: WebhookServer;
let http: RawClient;

const post = (path: string, body: unknown) => http.request({ method: "POST", path, body: JSON.stringify(body), headers: { "content-type": "application/json" } });
const configMap = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels }, data: { a: "1" } });
const createCM = (ns: string, name: string, labels?: Record<string, string>, dryRun = false) =>
  post(`/api/v1/namespaces/${ns}/configmaps${dryRun ? "?dryRun=All" : ""}`, configMap(name, labels));

/** A webhook selecting namespaces labelled test=<ns>, for configmaps CREATE. */
function webhook(name: string, ns: string, client: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig: { caBundle: hook.caBundle, ...client },
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
    namespaceSelector: { matchLabels: { test: ns } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...extra,
  };
}

async function config(kind: "mutating" | "validating", name: string, webhooks: unknown[]): Promise<void> {
  const k = kind === "mutating" ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
  const r = await post(`${ADMREG}/${k.toLowerCase()}s`, { apiVersion: "admissionregistration.k8s.io/v1", kind: k, metadata: { name }, webhooks });
  assert.equal(r.status, 201, r.body);
}

async function namespace(name: string): Promise<void> {
  const r = await post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { test: name } } });
  assert.equal(r.status, 201, r.body);
}

/** Dry-run creates until `ok` holds for the answer (the configuration is in effect). */
const effective = (ns: string, ok: (r: RawResponse) => boolean) =>
  eventually(`configuration in effect in ${ns}`, async () => {
    const r = await createCM(ns, `probe-${Date.now()}`, {}, true);
    return ok(r) ? r : undefined;
  }, 5000, 20);

const message = (r: RawResponse) => r.json<{ message: string }>().message;

before(async () => {
  inProcess = await startInProcessApiServer();
  server = inProcess.server;
  hook = await startWebhookServer("hook.svcref.svc");
  http = rawClient(server.adminKubeconfigPath);
});

after(async () => {
  http?.close();
  await hook?.close();
  await inProcess?.stop();
});

void describe("admission webhooks", { timeout: 60_000 }, () => {
  it("serves both configuration kinds, discoverable, with upstream validation messages", async () => {
    const res = await http.request({ path: ADMREG });
    const names = res.json<{ resources: { name: string; namespaced: boolean }[] }>().resources.map((r) => `${r.name}:${r.namespaced}`);
    assert.deepEqual(names.sort(), ["mutatingwebhookconfigurations:false", "validatingwebhookconfigurations:false"]);
    const bad = await post(`${ADMREG}/validatingwebhookconfigurations`, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "bad" },
      webhooks: [{ name: "short", clientConfig: { url: "http://x/y?q=1" }, sideEffects: "Some", timeoutSeconds: 31, admissionReviewVersions: ["v1"], matchConditions: [{ name: "a", expression: "true" }] }],
    });
    assert.equal(bad.status, 422);
    const msg = message(bad);
    for (const part of [
      'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
      "'https' is the only allowed URL scheme",
      "query parameters are not permitted in the URL",
      "webhooks[0].matchConditions: Forbidden",
    ]) assert.ok(msg.includes(part), `${part}\nin: ${msg}`);
  });

  it("applies a mutating webhook's patch to the stored object and passes its warnings on", async () => {
    await namespace("mutate");
    hook.handlers.set("/mutate", () => ({ ...jsonPatch([{ op: "add", path: "/metadata/labels/mutated", value: "yes" }, { op: "add", path: "/data/b", value: "2" }]), warnings: ["patched by test"] }));
    await config("mutating", "mutate", [webhook("mutate.example.com", "mutate", { url: hook.url("/mutate") }, { objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] } })]);
    await effective("mutate", (r) => r.status === 201 && r.json<{ metadata: { labels?: Record<string, string> } }>().metadata.labels?.mutated === "yes");
    const r = await createCM("mutate", "one");
    assert.equal(r.status, 201, r.body);
    assert.match(String(r.headers.warning), /299 - "patched by test"/);
    const stored = (await http.request({ path: "/api/v1/namespaces/mutate/configmaps/one" })).json<{ metadata: { labels: Record<string, string> }; data: Record<string, string> }>();
    assert.equal(stored.metadata.labels.mutated, "yes");
    assert.deepEqual(stored.data, { a: "1", b: "2" });
    const req = hook.seen.get("/mutate")!.at(-1)!;
    assert.equal(req.operation, "CREATE");
    assert.equal(req.namespace, "mutate");
    assert.equal(req.userInfo.username, "system:admin");
    assert.deepEqual(req.resource, { group: "", version: "v1", resource: "configmaps" });

    // The object selector leaves out labelled objects; the namespace selector other namespaces.
    const skipped = await createCM("mutate", "two", { skip: "true" });
    assert.equal(skipped.json<{ metadata: { labels: Record<string, string> } }>().metadata.labels.mutated, undefined);
    await namespace("elsewhere");
    const other = await createCM("elsewhere", "three");
    assert.equal(other.json<{ metadata: { labels?: Record<string, string> } }>().metadata.labels?.mutated, undefined);
  });

  it("denies with the webhook's code and upstream's message, also through kubectl", async () => {
    await namespace("deny");
    hook.handlers.set("/deny", (req) => (req.name?.startsWith("deny-") ? { allowed: false, status: { code: 403, reason: "Forbidden", message: "no thanks" } } : { allowed: true }));
    await config("validating", "deny", [webhook("deny.example.com", "deny", { url: hook.url("/deny") })]);
    await eventually("deny in effect", async () => ((await createCM("deny", "deny-probe", {}, true)).status === 403 ? true : undefined), 5000, 20);
    const r = await createCM("deny", "deny-me");
    assert.equal(r.status, 403);
    assert.equal(message(r), 'admission webhook "deny.example.com" denied the request: no thanks');
    assert.equal((await createCM("deny", "fine")).status, 201);
    hook.handlers.set("/deny", () => ({ allowed: false, status: { code: 200 } }));
    const bare = await createCM("deny", "bare");
    assert.equal(bare.status, 400);
    assert.equal(message(bare), 'admission webhook "deny.example.com" denied the request without explanation');
  });

  it("kubectl shows the denial", { skip: skipUnlessKubectl() }, async () => {
    hook.handlers.set("/deny", () => ({ allowed: false, status: { code: 403, reason: "Forbidden", message: "no thanks" } }));
    const k = kubectlFor(server.adminKubeconfigPath);
    const out = await k.run(["create", "-f", "-"], { input: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deny-kubectl\n  namespace: deny\n" });
    assert.notEqual(out.code, 0);
    assert.match(out.stderr, /Error from server \(Forbidden\): error when creating "STDIN": admission webhook "deny\.example\.com" denied the request: no thanks/);
    const list = await k.ok(["get", "validatingwebhookconfigurations"]);
    assert.match(list, /^deny\s+1\s+/m);
  });

  it("failurePolicy Fail refuses when the webhook is down or slow; Ignore lets the request pass", async () => {
    await namespace("down");
    await namespace("slow");
    await namespace("ignore");
    // A port nothing listens on: the webhook server's, after a second server took and released it.
    const gone = await startWebhookServer("x");
    await gone.close();
    await config("validating", "failing", [
      webhook("down.example.com", "down", { url: gone.url("/down") }),
      webhook("slow.example.com", "slow", { url: hook.url("/slow") }, { timeoutSeconds: 1 }),
      webhook("ignore.example.com", "ignore", { url: gone.url("/down") }, { failurePolicy: "Ignore" }),
    ]);
    hook.handlers.set("/slow", () => "hang");
    const down = await effective("down", (r) => r.status === 500);
    assert.match(message(down), new RegExp(`^Internal error occurred: failed calling webhook "down\\.example\\.com": failed to call webhook: Post "https://127\\.0\\.0\\.1:${gone.port}/down\\?timeout=10s": .*ECONNREFUSED`));
    const t0 = Date.now();
    const slow = await createCM("slow", "s");
    assert.equal(slow.status, 500);
    assert.match(message(slow), /^Internal error occurred: failed calling webhook "slow\.example\.com": failed to call webhook: .*context deadline exceeded/);
    assert.ok(Date.now() - t0 < 3000, "the 1 s timeout ends the call");
    assert.equal((await createCM("ignore", "i")).status, 201);
    const metrics = await http.request({ path: "/metrics", headers: { accept: "text/plain" } });
    assert.match(metrics.body, /apiserver_admission_webhook_fail_open_count\{name="ignore\.example\.com",type="validating"\} [1-9]/);
  });

  it("refuses huge and invalid patches cleanly", async () => {
    await namespace("patches");
    const huge = Array.from({ length: 20_000 }, (_, i) => ({ op: "add", path: `/data/k${i}`, value: "v" }));
    hook.handlers.set("/patch", (req) => (req.name === "huge" ? jsonPatch(huge) : req.name === "kind" ? jsonPatch([{ op: "replace", path: "/kind", value: "Secret" }]) : { allowed: true, patchType: "JSONPatch", patch: "bm90IGpzb24=" }));
    await config("mutating", "patches", [webhook("patch.example.com", "patches", { url: hook.url("/patch") })]);
    await effective("patches", (r) => r.status === 500);
    for (const [name, cause] of [["huge", "the patch could not be applied: "], ["kind", "the patch must not change apiVersion or kind"], ["junk", "the patch is not JSON"]] as const) {
      const r = await createCM("patches", name);
      assert.equal(r.status, 500, r.body);
      const m = message(r);
      assert.ok(m.startsWith(`Internal error occurred: failed calling webhook "patch.example.com": ${cause}`), m);
      assert.doesNotMatch(r.body, /\n\s+at /);
      assert.equal((await http.request({ path: `/api/v1/namespaces/patches/configmaps/${name}` })).status, 404);
    }
  });

  it("resolves a Service reference to its ready endpoint with the service's TLS name", async () => {
    await namespace("svcref");
    const svc = { apiVersion: "v1", kind: "Service", metadata: { name: "hook" }, spec: { ports: [{ name: "https", port: 443, targetPort: hook.port }] } };
    assert.equal((await post("/api/v1/namespaces/svcref/services", svc)).status, 201);
    const slice = {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: "hook-1", labels: { "kubernetes.io/service-name": "hook", "endpointslice.kubernetes.io/managed-by": "test" } },
      addressType: "IPv4",
      endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }],
      ports: [{ name: "https", port: hook.port, protocol: "TCP" }],
    };
    assert.equal((await post("/apis/discovery.k8s.io/v1/namespaces/svcref/endpointslices", slice)).status, 201);
    hook.handlers.set("/svc", () => ({ allowed: false, status: { code: 403, message: "via service" } }));
    await config("validating", "svcref", [webhook("svc.example.com", "svcref", { service: { namespace: "svcref", name: "hook", path: "/svc" } })]);
    const r = await effective("svcref", (x) => x.status === 403);
    assert.equal(message(r), 'admission webhook "svc.example.com" denied the request: via service');
  });

  it("applies a changed configuration within 1 s", async () => {
    await namespace("change");
    hook.handlers.set("/change", () => ({ allowed: false, status: { code: 403, message: "changed" } }));
    await config("validating", "change", [webhook("change.example.com", "change", { url: hook.url("/none") })]);
    await effective("change", (r) => r.status === 201);
    const cur = (await http.request({ path: `${ADMREG}/validatingwebhookconfigurations/change` })).json<{ webhooks: { clientConfig: { url: string } }[] }>();
    cur.webhooks[0]!.clientConfig.url = hook.url("/change");
    const t0 = Date.now();
    const put = await http.request({ method: "PUT", path: `${ADMREG}/validatingwebhookconfigurations/change`, body: JSON.stringify(cur), headers: { "content-type": "application/json" } });
    assert.equal(put.status, 200, put.body);
    await effective("change", (r) => r.status === 403);
    const ms = Date.now() - t0;
    assert.ok(ms < 1000, `took ${ms} ms`);
    assert.equal((await http.request({ method: "DELETE", path: `${ADMREG}/validatingwebhookconfigurations/change` })).status, 200);
    await effective("change", (r) => r.status === 201);
  });

  it("sends custom resources through webhooks, before schema validation", async () => {
    await namespace("crs");
    assert.equal((await post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gadgetCrd)).status, 201);
    const gadget = (name: string) => ({ apiVersion: "example.com/v1", kind: "Gadget", metadata: { name }, spec: { size: "big" } });
    // The webhook turns the (schema-invalid) string into an integer: it runs before validation.
    hook.handlers.set("/gadget", () => jsonPatch([{ op: "replace", path: "/spec/size", value: 3 }]));
    await config("mutating", "gadgets", [
      { ...webhook("gadget.example.com", "crs", { url: hook.url("/gadget") }), rules: [{ operations: ["CREATE"], apiGroups: ["example.com"], apiVersions: ["*"], resources: ["gadgets"], scope: "Namespaced" }] },
    ]);
    const r = await eventually("gadget admitted", async () => {
      const x = await post("/apis/example.com/v1/namespaces/crs/gadgets", gadget(`g${Date.now()}`));
      return x.status === 201 ? x : undefined;
    }, 10_000, 50);
    assert.equal(r.json<{ spec: { size: number } }>().spec.size, 3);
  });
});
