import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { StatusError } from "../../../../apimachinery/errors.ts";
import type { InternalClient } from "../../client.ts";
import { checkAddress, nodeLocation, podLocation, serviceLocation, splitSchemeNamePort } from "./location.ts";

/** Reads from a fixed set of objects keyed by resource/namespace/name. */
function clientWith(objects: Record<string, KubeObject>): InternalClient {
  return {
    get: (gr, ns, name) => Promise.resolve(objects[`${gr.resource}/${ns ?? ""}/${name}`]),
  } as InternalClient;
}

async function rejects(p: Promise<unknown>, code: number, message: RegExp): Promise<void> {
  await assert.rejects(p, (err: StatusError) => {
    assert.equal(err.code, code);
    assert.match(err.message, message);
    return true;
  });
}

const pod = (ip: string | undefined, ports: number[] = []) =>
  ({ metadata: { name: "p", namespace: "ns" }, spec: { containers: [{ name: "a" }, { name: "b", ports: ports.map((containerPort) => ({ containerPort })) }] }, status: ip ? { podIP: ip } : {} }) as KubeObject;

test("splitSchemeNamePort takes name, name:port and scheme:name:port, and refuses the rest", () => {
  assert.deepEqual(splitSchemeNamePort("p"), { scheme: "", name: "p", port: "" });
  assert.deepEqual(splitSchemeNamePort("p:8080"), { scheme: "", name: "p", port: "8080" });
  assert.deepEqual(splitSchemeNamePort("https:p:443"), { scheme: "https", name: "p", port: "443" });
  for (const bad of [":8080", "ftp:p:21", "a:b:c:d", ""]) assert.equal(splitSchemeNamePort(bad), undefined, bad);
});

test("a pod's location is its IP on the given port, else its first declared container port, else 80 or 443", async () => {
  const client = clientWith({ "pods/ns/p": pod("10.250.0.7", [9090, 9091]), "pods/ns/q": pod("10.250.0.8") });
  assert.deepEqual(await podLocation(client, "ns", "p:8080"), { scheme: "http", host: "10.250.0.7", port: 8080 });
  assert.deepEqual(await podLocation(client, "ns", "p"), { scheme: "http", host: "10.250.0.7", port: 9090 });
  assert.deepEqual(await podLocation(client, "ns", "q"), { scheme: "http", host: "10.250.0.8", port: 80 });
  assert.deepEqual(await podLocation(client, "ns", "https:q:"), { scheme: "https", host: "10.250.0.8", port: 443 });
});

test("pod proxy refusals: unknown pod 404, bad names and ports 400, addresses the server must not reach 400", async () => {
  const client = clientWith({ "pods/ns/none": pod(undefined), "pods/ns/lo": pod("127.0.0.1"), "pods/ns/ll": pod("169.254.169.254"), "pods/ns/p": pod("10.250.0.7") });
  await rejects(podLocation(client, "ns", "missing:80"), 404, /pods "missing" not found/);
  await rejects(podLocation(client, "ns", "a:b:c:d"), 400, /invalid pod request/);
  await rejects(podLocation(client, "ns", "p:http"), 400, /port "http" is not a number/);
  await rejects(podLocation(client, "ns", "p:70000"), 400, /between 1 and 65535/);
  for (const name of ["none", "lo", "ll"]) await rejects(podLocation(client, "ns", `${name}:80`), 400, /^address not allowed$/);
});

test("checkAddress refuses the class of addresses that are not global unicast, in both families", () => {
  for (const bad of ["0.0.0.0", "127.0.0.53", "169.254.1.1", "224.0.0.1", "255.255.255.255", "::", "::1", "fe80::1", "ff02::1", "example.com", ""]) {
    assert.throws(() => checkAddress(bad), /address not allowed/, bad);
  }
  for (const ok of ["10.250.0.7", "192.168.1.1", "2001:db8::1"]) assert.equal(checkAddress(ok), ok);
});

test("a node's kubelet port goes to the kubelet over TLS; another port to the node's InternalIP as asked", async () => {
  const node = { metadata: { name: "n" }, status: { addresses: [{ type: "Hostname", address: "n" }, { type: "InternalIP", address: "10.250.0.2" }], daemonEndpoints: { kubeletEndpoint: { Port: 10255 } } } } as KubeObject;
  const bare = { metadata: { name: "m" }, status: { addresses: [{ type: "InternalIP", address: "10.250.0.3" }] } } as KubeObject;
  const noIP = { metadata: { name: "x" }, status: {} } as KubeObject;
  const client = clientWith({ "nodes//n": node, "nodes//m": bare, "nodes//x": noIP });
  assert.deepEqual(await nodeLocation(client, "n"), { scheme: "https", host: "10.250.0.2", port: 10255, kubelet: true });
  assert.deepEqual(await nodeLocation(client, "http:n:10255"), { scheme: "https", host: "10.250.0.2", port: 10255, kubelet: true });
  assert.deepEqual(await nodeLocation(client, "m"), { scheme: "https", host: "10.250.0.3", port: 10250, kubelet: true });
  assert.deepEqual(await nodeLocation(client, "n:9100"), { scheme: "http", host: "10.250.0.2", port: 9100 });
  await rejects(nodeLocation(client, "x"), 503, /has no InternalIP/);
  await rejects(nodeLocation(client, "gone"), 404, /nodes "gone" not found/);
});

test("a service's location is a ready Endpoints address on the port named (or numbered) in the request", async () => {
  const svc = { metadata: { name: "s", namespace: "ns" }, spec: { ports: [{ name: "web", port: 80 }, { name: "metrics", port: 9100 }] } } as KubeObject;
  const eps = {
    metadata: { name: "s", namespace: "ns" },
    subsets: [
      { addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "web", port: 8080 }] },
      { addresses: [{ ip: "100.96.1.5" }], notReadyAddresses: [{ ip: "100.96.1.6" }], ports: [{ name: "web", port: 8080 }, { name: "metrics", port: 9100 }] },
    ],
  } as KubeObject;
  const client = clientWith({ "services/ns/s": svc, "endpoints/ns/s": eps, "services/ns/empty": svc, "endpoints/ns/empty": { metadata: { name: "empty" }, subsets: [] } as KubeObject });
  // The loopback address of the first subset is skipped whatever the random start.
  for (const r of [0, 0.99]) assert.deepEqual(await serviceLocation(client, "ns", "s:web", () => r), { scheme: "http", host: "100.96.1.5", port: 8080 });
  assert.deepEqual(await serviceLocation(client, "ns", "https:s:9100"), { scheme: "https", host: "100.96.1.5", port: 9100 });
  await rejects(serviceLocation(client, "ns", "s:81"), 503, /no service port 81 found for service "s"/);
  await rejects(serviceLocation(client, "ns", "s:other"), 503, /no endpoints available for service "s:other"/);
  await rejects(serviceLocation(client, "ns", "empty:web"), 503, /no endpoints available for service "empty"/);
  await rejects(serviceLocation(client, "ns", "gone:web"), 404, /services "gone" not found/);
});
