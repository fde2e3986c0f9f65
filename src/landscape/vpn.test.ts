import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { EC_P256 } from "../apiserver/certs/keys.ts";
import { issueVpnCredentials } from "../vpn/credentials.ts";
import { Layout } from "./layout.ts";
import { egressDialer, egressSecretsDirOf, egressSelectorConfigOf, egressWritten, writeEgress } from "./vpnegress.ts";
import type { EgressCredentials } from "./vpnsecrets.ts";

/** The gardenlet's ConfigMap content for a secrets directory (docs/reversed-vpn.md#egress-selector-configmap), serialised as JSON (which is YAML). */
const selector = (dir: string, url = "https://10.1.255.2:9443") =>
  JSON.stringify({
    apiVersion: "apiserver.k8s.io/v1beta1",
    kind: "EgressSelectorConfiguration",
    egressSelections: [
      { name: "cluster", connection: { proxyProtocol: "HTTPConnect", transport: { tcp: { url, tlsConfig: { caBundle: `${dir}/ca-vpn-bundle/bundle.crt`, clientCert: `${dir}/kube-apiserver-http-proxy-client/tls.crt`, clientKey: `${dir}/kube-apiserver-http-proxy-client/tls.key` } } } } },
      { name: "controlplane", connection: { proxyProtocol: "Direct" } },
      { name: "etcd", connection: { proxyProtocol: "Direct" } },
    ],
  });

test("the egress files are written from the gardenlet's objects where its ConfigMap names them, also below a path with quotes and braces; only a change reports a change", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'vpn "state" {x}: '));
  try {
    const layout = new Layout(dir);
    assert.equal(egressWritten(layout), false);
    const creds = await issueVpnCredentials({ namespace: "shoot--local--local", serverAddresses: ["10.1.255.2"], alg: EC_P256 });
    const egress: EgressCredentials = { selector: selector(egressSecretsDirOf(layout)), bundle: creds.bundle, client: creds.egressClient };
    assert.equal(await writeEgress(layout, egress), true);
    assert.equal(egressWritten(layout), true);
    assert.equal(readFileSync(join(egressSecretsDirOf(layout), "kube-apiserver-http-proxy-client", "tls.key"), "utf8"), creds.egressClient.keyPem);
    assert.equal(typeof (await egressDialer(layout)), "function", "cluster traffic goes through the egress proxy");
    assert.equal(await writeEgress(layout, egress), false, "the same content: no change, no restart");
    const renewed = await issueVpnCredentials({ namespace: "shoot--local--local", serverAddresses: ["10.1.255.2"], alg: EC_P256 });
    assert.equal(await writeEgress(layout, { ...egress, client: renewed.egressClient }), true);
    assert.equal(readFileSync(join(egressSecretsDirOf(layout), "kube-apiserver-http-proxy-client", "tls.crt"), "utf8"), renewed.egressClient.certPem);
    assert.equal(await writeEgress(layout, { ...egress, client: renewed.egressClient, selector: selector(egressSecretsDirOf(layout), "https://10.1.255.3:9443") }), true, "a new address");
    assert.match(readFileSync(egressSelectorConfigOf(layout), "utf8"), /10\.1\.255\.3/);
    await assert.rejects(writeEgress(layout, { ...egress, selector: "kind: Nothing\n" }), /unsupported apiVersion/, "a configuration the API server would refuse is reported");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
