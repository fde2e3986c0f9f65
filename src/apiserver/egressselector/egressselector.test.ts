import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createServer as createTlsServer, type TLSSocket } from "node:tls";
import { StatusError } from "../../apimachinery/errors.ts";
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate, type CertificateAuthority, type IssuedCertificate } from "../certs/issue.ts";
import { EgressSelectorConfigError, httpConnectDialer, loadEgressSelector } from "./egressselector.ts";

let dir: string;
let ca: CertificateAuthority;
let client: IssuedCertificate;
let proxyPort = 0;
let targetPort = 0;
/** What the fake proxy answers to CONNECT; "tunnel" splices to the echo target. */
let answer = "tunnel";
const proxy = createTlsServer();
const target = createServer((s) => s.on("data", (d) => s.write(d)));

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "egress-"));
  ca = await createCertificateAuthority({ commonName: "vpn" });
  const serving = await issueServingCertificate(ca, { hosts: ["127.0.0.1"] });
  client = await issueClientCertificate(ca, { commonName: "kube-apiserver-http-proxy-client" });
  proxy.setSecureContext({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem });
  proxy.on("secureConnection", (s: TLSSocket) => {
    s.once("data", (d: Buffer) => {
      const line = d.toString().split("\r\n")[0] ?? "";
      if (answer !== "tunnel") return void s.end(answer);
      const port = Number(line.split(" ")[1]?.split(":")[1]);
      s.write("HTTP/1.1 200 Connection established\r\n\r\n");
      const conn = connect({ host: "127.0.0.1", port });
      conn.pipe(s).pipe(conn);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  proxyPort = (proxy.address() as AddressInfo).port;
  targetPort = (target.address() as AddressInfo).port;
  for (const [f, v] of [["ca", ca.certPem], ["crt", client.certPem], ["key", client.keyPem]] as const) await writeFile(join(dir, f), v);
});

after(async () => {
  proxy.close();
  target.close();
  await rm(dir, { recursive: true, force: true });
});

const dialer = () => httpConnectDialer({ url: `https://127.0.0.1:${proxyPort}`, caPem: ca.certPem, certPem: client.certPem, keyPem: client.keyPem }, 2000);

test("after the proxy's 200 the stream reaches the target", async () => {
  answer = "tunnel";
  const s = await dialer()("127.0.0.1", targetPort);
  const echoed = new Promise<string>((r) => s.once("data", (d: Buffer) => r(d.toString())));
  s.resume();
  s.write("ping");
  assert.equal(await echoed, "ping");
  s.destroy();
});

test("a refusal is a 500 InternalError with Kubernetes' text; bytes after the answer are refused too", async () => {
  answer = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
  const err = await dialer()("10.250.0.5", 10250).then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof StatusError);
  assert.equal(err.code, 500);
  assert.equal(err.message, `proxy error from 127.0.0.1:${proxyPort} while dialing 10.250.0.5:10250, code 503: 503 Service Unavailable`);
  answer = "HTTP/1.1 200 Connection established\r\n\r\nhello";
  await assert.rejects(dialer()("10.250.0.5", 10250), /unexpected data after the proxy's answer/);
});

test("a proxy that closes without answering fails the dial at once, not after the timeout", async () => {
  answer = "";
  await assert.rejects(dialer()("10.250.0.5", 10250), (e: unknown) => e instanceof StatusError && e.message === `proxy error from 127.0.0.1:${proxyPort} while dialing 10.250.0.5:10250, EOF`);
  answer = "tunnel";
});

test("the configuration file: cluster through HTTPConnect, others Direct; anything else is refused with a reason", async () => {
  const file = join(dir, "egress.yaml");
  const tls = `tlsConfig: {caBundle: ${join(dir, "ca")}, clientCert: ${join(dir, "crt")}, clientKey: ${join(dir, "key")}}`;
  const write = (selections: string, apiVersion = "apiserver.k8s.io/v1beta1") => writeFile(file, `apiVersion: ${apiVersion}\nkind: EgressSelectorConfiguration\negressSelections:\n${selections}`);
  await write(`- name: cluster\n  connection: {proxyProtocol: HTTPConnect, transport: {tcp: {url: "https://127.0.0.1:${proxyPort}", ${tls}}}}\n- name: controlplane\n  connection: {proxyProtocol: Direct}\n`);
  assert.equal(typeof (await loadEgressSelector(file)).cluster, "function");
  await write(`- name: cluster\n  connection: {proxyProtocol: Direct}\n`, "apiserver.k8s.io/v1alpha1");
  assert.equal((await loadEgressSelector(file)).cluster, undefined);
  const bad: [string, RegExp][] = [
    [`- name: cluster\n  connection: {proxyProtocol: GRPC}\n`, /proxyProtocol "GRPC" is not supported/],
    [`- name: cluster\n  connection: {proxyProtocol: HTTPConnect, transport: {uds: {udsName: /x}}}\n`, /needs transport.tcp/],
    [`- name: cluster\n  connection: {proxyProtocol: HTTPConnect, transport: {tcp: {url: "http://1.2.3.4:9443"}}}\n`, /must be https/],
    [`- name: etcd\n  connection: {proxyProtocol: HTTPConnect, transport: {tcp: {url: "https://1.2.3.4:9443", ${tls}}}}\n`, /only the cluster selection/],
    [`- name: other\n  connection: {proxyProtocol: Direct}\n`, /unknown egress selection name/],
    [`- name: cluster\n  connection: {proxyProtocol: Direct}\n- name: cluster\n  connection: {proxyProtocol: Direct}\n`, /duplicate/],
  ];
  for (const [sel, re] of bad) {
    await write(sel);
    await assert.rejects(loadEgressSelector(file), (e: unknown) => e instanceof EgressSelectorConfigError && re.test(e.message), sel);
  }
  await write("", "v1");
  await assert.rejects(loadEgressSelector(file), /unsupported apiVersion/);
});
