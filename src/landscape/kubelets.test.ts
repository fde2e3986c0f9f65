import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import { type AddressInfo, connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { after, before, describe, test } from "node:test";
import { ensurePki } from "../apiserver/certs/pki.ts";
import { createCertificateAuthority, issueServingCertificate } from "../apiserver/certs/issue.ts";
import { writeKubeletServingCertificate } from "../apiserver/certs/kubelet.ts";
import type { Node } from "../apis/core/v1/types.ts";
import { kubeletAnswers, kubeletEndpoint, kubeletTlsOf, type KubeletTls } from "./kubelets.ts";

/** An HTTPS server on 127.0.0.1 that asks for a client certificate and answers `code(cn)`. */
async function serve(certPem: string, keyPem: string, caPem: string, code: (cn: string | undefined) => number): Promise<{ server: Server; port: number }> {
  const server = createServer({ cert: certPem, key: keyPem, ca: caPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const cn = (req.socket as TLSSocket).authorized ? (peer.subject?.CN as string | undefined) : undefined;
    res.writeHead(code(cn)).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, port: (server.address() as AddressInfo).port };
}

describe("kubelet endpoint readiness", () => {
  let dir: string;
  let tls: KubeletTls;
  let kubelet: { certPem: string; keyPem: string };
  const servers: Server[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "kubelets-test-"));
    await ensurePki(join(dir, "pki"));
    tls = kubeletTlsOf(join(dir, "pki"));
    const files = await writeKubeletServingCertificate(join(dir, "pki"), join(dir, "kubelet"), { nodeName: "n1", hosts: ["127.0.0.1"] });
    kubelet = { certPem: await readFile(files.certFile, "utf8"), keyPem: await readFile(files.keyFile, "utf8") };
  });
  after(async () => {
    for (const s of servers) s.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("a kubelet that admits the API server's kubelet-client identity answers, even with a 404", async () => {
    const { server, port } = await serve(kubelet.certPem, kubelet.keyPem, tls.caPem, (cn) => (cn === "system:kube-apiserver:kubelet" ? 404 : 401));
    servers.push(server);
    assert.equal(await kubeletAnswers({ host: "127.0.0.1", port }, tls), true);
  });

  test("refusing the identity (401, 403), failing (5xx), a certificate of another CA or nothing listening is not ready", async () => {
    for (const status of [401, 403, 503]) {
      const { server, port } = await serve(kubelet.certPem, kubelet.keyPem, tls.caPem, () => status);
      servers.push(server);
      assert.equal(await kubeletAnswers({ host: "127.0.0.1", port }, tls), false, String(status));
    }
    const other = await issueServingCertificate(await createCertificateAuthority(), { hosts: ["127.0.0.1"], commonName: "system:node:n1" });
    const { server, port } = await serve(other.certPem, other.keyPem, tls.caPem, () => 404);
    servers.push(server);
    assert.equal(await kubeletAnswers({ host: "127.0.0.1", port }, tls), false, "serving certificate of another CA");
    server.close();
    await new Promise((r) => server.once("close", r));
    assert.equal(await kubeletAnswers({ host: "127.0.0.1", port }, tls), false, "nothing listening");
  });

  test("through a dialer (the egress proxy), the connection it opens carries the TLS to the kubelet; a dial that fails is not ready", async () => {
    const { server, port } = await serve(kubelet.certPem, kubelet.keyPem, tls.caPem, (cn) => (cn === "system:kube-apiserver:kubelet" ? 404 : 401));
    servers.push(server);
    const dialed: string[] = [];
    // The node's address is unroutable on purpose: only the dialer's connection (to the loopback kubelet) is used.
    const dial = (host: string, p: number): Promise<Socket> => {
      dialed.push(`${host}:${p}`);
      return new Promise((resolve, reject) => {
        const s = connect({ host: "127.0.0.1", port }, () => resolve(s));
        s.once("error", reject);
      });
    };
    assert.equal(await kubeletAnswers({ host: "127.0.0.1", port: 1 }, tls, 3000, dial), true);
    assert.deepEqual(dialed, ["127.0.0.1:1"]);
    assert.equal(await kubeletAnswers({ host: "127.0.0.1", port }, tls, 3000, () => Promise.reject(new Error("proxy error"))), false);
    assert.equal(await kubeletAnswers({ host: "127.0.0.1", port }, tls, 200, () => new Promise<Socket>(() => undefined)), false, "a dial that never answers");
    // The proxy answers 400 ms after the 200 ms timeout gave up: that connection must not stay open.
    const late = new Promise<Socket>((resolve) => setTimeout(() => resolve(connect({ host: "127.0.0.1", port })), 400));
    assert.equal(await kubeletAnswers({ host: "127.0.0.1", port }, tls, 200, () => late), false, "a dial slower than the timeout");
    const socket = await late;
    // Closed by us at once; the kubelet's own TLS handshake timeout (120 s) must not be what ends it.
    if (!socket.destroyed) await once(socket, "close", { signal: AbortSignal.timeout(5000) });
    assert.equal(socket.destroyed, true, "its late connection is closed, not left open");
  });

  test("the endpoint is the Node's InternalIP and kubelet port, 10250 when unset, none without an InternalIP", () => {
    const node = (status: Node["status"]): Node => ({ apiVersion: "v1", kind: "Node", metadata: { name: "n" }, status });
    assert.deepEqual(kubeletEndpoint(node({ addresses: [{ type: "Hostname", address: "n" }, { type: "InternalIP", address: "10.0.0.5" }] })), { host: "10.0.0.5", port: 10250 });
    assert.deepEqual(kubeletEndpoint(node({ addresses: [{ type: "InternalIP", address: "10.0.0.5" }], daemonEndpoints: { kubeletEndpoint: { Port: 10255 } } })), { host: "10.0.0.5", port: 10255 });
    assert.equal(kubeletEndpoint(node({ addresses: [{ type: "Hostname", address: "n" }] })), undefined);
  });
});
