// The shoot API server's cluster egress beyond the kubelet streams (docs/reversed-vpn.md#shoot-api-server-egress):
// an in-process API server with --egress-selector-config-file sends pods/proxy, nodes/proxy,
// services/proxy and Service-referenced admission webhooks as CONNECT through a mutual-TLS egress proxy
// (an in-process stand-in that records each target and splices it to a local server), and URL webhooks
// directly. The shoot addresses (10.250.0.0/16 nodes, 100.96.0.0/11 pods) exist only behind the proxy.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage } from "node:http";
import { createServer as createHttpsServer, type Server } from "node:https";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createServer as createTlsServer, type TLSSocket } from "node:tls";
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from "../../../src/apiserver/certs/issue.ts";
import { eventually, type RawClient, rawClient } from "../../support/http.ts";
import { type InProcessServer, startInProcessApiServer } from "../../support/inprocess.ts";
import { kubectlFor, skipUnlessKubectl } from "../../support/kubectl.ts";
import { startWebhookServer, type WebhookServer } from "../webhooks/server.ts";

const POD_IP = "100.96.0.7";
const NODE_IP = "10.250.0.2";
const EP_IP = "100.96.0.9";
const HOOK_IP = "100.96.0.10";

let dir: string;
let api: InProcessServer;
let http: RawClient;
let hook: WebhookServer;
/** What the egress proxy stand-in does: splice to the mapped local port, or refuse with this answer. */
let refuseWith: string | undefined;
const connects: string[] = [];
const routes = new Map<string, number>();
const proxy = createTlsServer();
/** The pod's (and the endpoint's) HTTP server: echoes method, URL and body. */
const app = createHttpServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c.toString()));
  req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ method: req.method, url: req.url, body, auth: req.headers.authorization ?? null })));
});
let kubelet: Server | undefined;
let kubeletPeer: string | undefined;
let kubeletPath = "";

const listen = async (s: { listen(port: number, host: string, cb: () => void): unknown; address(): unknown }) => {
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return (s.address() as AddressInfo).port;
};
const post = (path: string, body: unknown) => http.request({ method: "POST", path, body: JSON.stringify(body), headers: { "content-type": "application/json" } });

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "egress-it-"));
  const vpnCa = await createCertificateAuthority({ commonName: "vpn" });
  const proxyCert = await issueServingCertificate(vpnCa, { hosts: ["127.0.0.1"] });
  const egressClient = await issueClientCertificate(vpnCa, { commonName: "kube-apiserver-http-proxy-client" });
  proxy.setSecureContext({ cert: proxyCert.certPem, key: proxyCert.keyPem, ca: vpnCa.certPem });
  (proxy as unknown as { requestCert: boolean }).requestCert = true;
  proxy.on("secureConnection", (s: TLSSocket) => {
    s.on("error", () => undefined);
    if (!s.authorized) return void s.destroy();
    s.once("data", (d: Buffer) => {
      const target = /^CONNECT (\S+) HTTP\/1\.1\r\n/.exec(d.toString("latin1"))?.[1] ?? "?";
      connects.push(target);
      const port = routes.get(target);
      if (refuseWith || port === undefined) return void s.end(refuseWith ?? "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
      const up = connect({ host: "127.0.0.1", port }, () => {
        s.write("HTTP/1.1 200 Connection established\r\n\r\n");
        up.pipe(s).pipe(up);
      });
      up.on("error", () => s.destroy());
    });
  });
  const proxyPort = await listen(proxy);

  const kubeletCa = await createCertificateAuthority({ commonName: "kubelet-ca" });
  const kubeletCert = await issueServingCertificate(kubeletCa, { hosts: [NODE_IP] });
  kubelet = createHttpsServer({ cert: kubeletCert.certPem, key: kubeletCert.keyPem, requestCert: true, rejectUnauthorized: false }, (req: IncomingMessage, res) => {
    kubeletPeer = ((req.socket as TLSSocket).getPeerCertificate().subject as { CN?: string } | undefined)?.CN;
    kubeletPath = req.url ?? "";
    res.end("kubelet says hi");
  });
  hook = await startWebhookServer("hook.default.svc");
  const appPort = await listen(app);
  routes.set(`${POD_IP}:8080`, appPort).set(`${EP_IP}:8080`, appPort).set(`${NODE_IP}:10250`, await listen(kubelet)).set(`${HOOK_IP}:8443`, hook.port);

  const files = { ca: vpnCa.certPem, crt: egressClient.certPem, key: egressClient.keyPem, kubeletca: kubeletCa.certPem };
  for (const [f, v] of Object.entries(files)) await writeFile(join(dir, f), v);
  const egress = {
    apiVersion: "apiserver.k8s.io/v1beta1",
    kind: "EgressSelectorConfiguration",
    egressSelections: [
      { name: "cluster", connection: { proxyProtocol: "HTTPConnect", transport: { tcp: { url: `https://127.0.0.1:${proxyPort}`, tlsConfig: { caBundle: join(dir, "ca"), clientCert: join(dir, "crt"), clientKey: join(dir, "key") } } } } },
      { name: "controlplane", connection: { proxyProtocol: "Direct" } },
    ],
  };
  await writeFile(join(dir, "egress.json"), JSON.stringify(egress));
  api = await startInProcessApiServer({ flags: ["--egress-selector-config-file", join(dir, "egress.json"), "--kubelet-certificate-authority", join(dir, "kubeletca")] });
  http = rawClient(api.server.adminKubeconfigPath);

  // The shoot's objects: a pod with an IP, a node with an InternalIP, a selectorless Service with Endpoints.
  assert.equal((await post("/api/v1/namespaces/default/pods", { apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { containers: [{ name: "c", image: "busybox", ports: [{ containerPort: 8080 }] }] } })).status, 201);
  assert.equal((await http.request({ method: "PATCH", path: "/api/v1/namespaces/default/pods/web/status", body: JSON.stringify({ status: { podIP: POD_IP, podIPs: [{ ip: POD_IP }] } }), headers: { "content-type": "application/merge-patch+json" } })).status, 200);
  assert.equal((await post("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "w1" } })).status, 201);
  const nodeStatus = { status: { addresses: [{ type: "InternalIP", address: NODE_IP }], daemonEndpoints: { kubeletEndpoint: { Port: 10250 } } } };
  assert.equal((await http.request({ method: "PATCH", path: "/api/v1/nodes/w1/status", body: JSON.stringify(nodeStatus), headers: { "content-type": "application/merge-patch+json" } })).status, 200);
  assert.equal((await post("/api/v1/namespaces/default/services", { apiVersion: "v1", kind: "Service", metadata: { name: "svc" }, spec: { ports: [{ name: "http", port: 80, targetPort: 8080 }] } })).status, 201);
  assert.equal((await post("/api/v1/namespaces/default/endpoints", { apiVersion: "v1", kind: "Endpoints", metadata: { name: "svc" }, subsets: [{ addresses: [{ ip: EP_IP }], ports: [{ name: "http", port: 8080 }] }] })).status, 201);
});

after(async () => {
  http?.close();
  await api?.stop();
  await hook?.close();
  app.close();
  kubelet?.close();
  proxy.close();
  await rm(dir, { recursive: true, force: true });
});

test("pods/proxy goes through the egress proxy to the pod IP with method, path, query and body, never the client's credentials", async () => {
  connects.length = 0;
  const r = await http.request({ method: "POST", path: "/api/v1/namespaces/default/pods/web:8080/proxy/some/path?q=1", body: "payload" });
  assert.equal(r.status, 200, r.body);
  assert.deepEqual(r.json(), { method: "POST", url: "/some/path?q=1", body: "payload", auth: null });
  assert.deepEqual(connects, [`${POD_IP}:8080`]);
  // Without a port: the first container port; without a path: redirected to the trailing slash.
  assert.equal((await http.request({ path: "/api/v1/namespaces/default/pods/web/proxy/" })).json<{ url: string }>().url, "/");
  const redirect = await http.request({ path: "/api/v1/namespaces/default/pods/web/proxy?a=b" });
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers.location, "/api/v1/namespaces/default/pods/web/proxy/?a=b");
});

test("services/proxy reaches an address of the Service's Endpoints and nodes/proxy the kubelet with its client certificate, both through the egress", async () => {
  connects.length = 0;
  const svc = await http.request({ path: "/api/v1/namespaces/default/services/svc:80/proxy/x" });
  assert.equal(svc.status, 200, svc.body);
  assert.equal(svc.json<{ url: string }>().url, "/x");
  const node = await http.request({ path: "/api/v1/nodes/w1/proxy/configz?x=y" });
  assert.equal(node.status, 200, node.body);
  assert.equal(node.body, "kubelet says hi");
  assert.equal(kubeletPath, "/configz?x=y");
  assert.equal(kubeletPeer, "system:kube-apiserver:kubelet");
  assert.deepEqual(connects, [`${EP_IP}:8080`, `${NODE_IP}:10250`]);
});

test("a refused CONNECT is 503 with Kubernetes' proxy error; mistakes are clear 4xx Statuses", async () => {
  refuseWith = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
  try {
    const r = await http.request({ path: "/api/v1/namespaces/default/pods/web:8080/proxy/" });
    assert.equal(r.status, 503);
    const status = r.json<{ kind: string; reason: string; message: string }>();
    assert.equal(status.kind, "Status");
    assert.equal(status.reason, "ServiceUnavailable");
    assert.match(status.message, new RegExp(`^error trying to reach service: proxy error from 127\\.0\\.0\\.1:\\d+ while dialing ${POD_IP}:8080, code 503: 503 Service Unavailable$`));
  } finally {
    refuseWith = undefined;
  }
  const cases: [string, number, RegExp][] = [
    ["/api/v1/namespaces/default/pods/nope:80/proxy/", 404, /pods "nope" not found/],
    ["/api/v1/namespaces/default/pods/web:0/proxy/", 400, /between 1 and 65535/],
    ["/api/v1/namespaces/default/pods/a:b:c:d/proxy/", 400, /invalid pod request/],
    ["/api/v1/namespaces/default/services/svc:81/proxy/", 503, /no service port 81 found/],
    ["/api/v1/nodes/none/proxy/", 404, /nodes "none" not found/],
  ];
  for (const [path, code, message] of cases) {
    const r = await http.request({ path });
    assert.equal(r.status, code, `${path}: ${r.body}`);
    assert.match(r.json<{ message: string }>().message, message, path);
  }
  const big = await http.request({ method: "PUT", path: "/api/v1/namespaces/default/pods/web:8080/proxy/", body: Buffer.alloc(4 * 1024 * 1024) });
  assert.equal(big.status, 413);
});

test("a webhook given by Service is called through the egress, one given by URL directly", async () => {
  hook.handlers.set("/validate", (req) => (req.name?.startsWith("deny") ? { allowed: false, status: { code: 403, message: "not through the tunnel" } } : { allowed: true }));
  assert.equal((await post("/api/v1/namespaces/default/services", { apiVersion: "v1", kind: "Service", metadata: { name: "hook" }, spec: { ports: [{ port: 443, targetPort: 8443 }] } })).status, 201);
  const slice = { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: { name: "hook-1", labels: { "kubernetes.io/service-name": "hook" } }, addressType: "IPv4", endpoints: [{ addresses: [HOOK_IP] }], ports: [{ port: 8443 }] };
  assert.equal((await post("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", slice)).status, 201);
  const rules = [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }];
  const webhook = (name: string, clientConfig: object) => ({ name, clientConfig: { caBundle: hook.caBundle, ...clientConfig }, rules, sideEffects: "None", admissionReviewVersions: ["v1"], failurePolicy: "Fail" });
  const config = { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingWebhookConfiguration", metadata: { name: "shoot-hooks" }, webhooks: [webhook("svc.hook.test", { service: { namespace: "default", name: "hook", path: "/validate" } }), webhook("url.hook.test", { url: hook.url("/direct") })] };
  assert.equal((await post("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", config)).status, 201);
  connects.length = 0;
  const denied = await eventually("the webhook configuration in effect", async () => {
    const r = await post("/api/v1/namespaces/default/configmaps?dryRun=All", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `deny-${Date.now()}` } });
    return r.status === 403 ? r : undefined;
  });
  assert.match(denied.json<{ message: string }>().message, /admission webhook "svc.hook.test" denied the request: not through the tunnel/);
  assert.ok(connects.length > 0 && connects.every((c) => c === `${HOOK_IP}:8443`), connects.join(","));
  assert.ok((hook.seen.get("/direct") ?? []).length > 0, "the URL webhook was called directly");
  refuseWith = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
  try {
    const r = await post("/api/v1/namespaces/default/configmaps?dryRun=All", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "tunnel-down" } });
    assert.equal(r.status, 500, r.body);
    assert.match(r.json<{ message: string }>().message, new RegExp(`failed calling webhook "svc.hook.test": failed to call webhook: .*proxy error from 127\\.0\\.0\\.1:\\d+ while dialing ${HOOK_IP}:8443, code 503`));
  } finally {
    refuseWith = undefined;
  }
  assert.equal((await http.request({ method: "DELETE", path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/shoot-hooks" })).status, 200);
});

test("kubectl get --raw reaches a pod through the egress", { skip: skipUnlessKubectl() }, async () => {
  const out = await kubectlFor(api.server.adminKubeconfigPath).ok(["get", "--raw", "/api/v1/namespaces/default/pods/web:8080/proxy/hello?from=kubectl"]);
  assert.equal((JSON.parse(out) as { url: string }).url, "/hello?from=kubectl");
});
