// Pod IPs through the reversed VPN on the landscape (docs/reversed-vpn.md#the-local-landscape): the shoot API
// server's pods/proxy and services/proxy dial a pod IP through the egress proxy and the tunnel; the
// vpn-shoot-client forwards into the node network, whose router routes each worker's pod /24 to that worker
// (docs/machines.md#pods-on-workers). One HTTP server pod on each worker, so both routes are used.
import assert from "node:assert/strict";
import type { Kubectl } from "../../support/kubectl.ts";
import { eventually } from "../../support/http.ts";
import { podInPhase, shootNode } from "./support.ts";

const PORT = 8080;

const serverPod = (name: string, node: string): object => ({
  apiVersion: "v1", kind: "Pod", metadata: { name, labels: { app: "web" } },
  spec: {
    nodeName: node,
    containers: [{ name: "c", image: "busybox", command: ["sh", "-c", `mkdir -p /tmp/w && echo "hello from ${name}" > /tmp/w/index.html && exec python3 -m http.server ${PORT} --bind 0.0.0.0 --directory /tmp/w`] }],
  },
});

/** GET through the API server's proxy subresource, retried until the server in the pod listens. */
async function proxied(k: Kubectl, path: string, want: RegExp): Promise<string> {
  let last = "";
  return eventually(`${path} answers`, async () => {
    const r = await k.run(["get", "--raw", path], { timeoutMs: 40_000 });
    last = r.code === 0 ? r.stdout : r.stderr;
    return r.code === 0 && want.test(r.stdout) ? r.stdout : undefined;
  }, 60_000, 500).catch((err: unknown) => {
    throw new Error(`${path}: ${last.trim().slice(0, 300)} (${String(err)})`);
  });
}

export async function checkPodAndServiceProxy(k: Kubectl): Promise<void> {
  const pods = [["web-1", shootNode("w1")], ["web-2", shootNode("w2")]] as const;
  await k.ok(["apply", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items: pods.map(([n, node]) => serverPod(n, node)) }) });
  await k.ok(["create", "service", "clusterip", "web", `--tcp=80:${PORT}`]);
  const ips = new Set<string>();
  for (const [name] of pods) {
    const pod = await podInPhase(k, name, ["Running"]);
    ips.add((pod.status.podIP ?? "").split(".").slice(0, 3).join("."));
    assert.match(await proxied(k, `/api/v1/namespaces/default/pods/${name}:${PORT}/proxy/`, /hello/), new RegExp(`^hello from ${name}$`, "m"));
  }
  assert.deepEqual([...ips].sort(), ["100.96.0", "100.96.1"], "the two pods are in the two workers' pod ranges");
  // services/proxy picks a ready address of the Service's Endpoints, a pod IP on either worker.
  assert.match(await proxied(k, "/api/v1/namespaces/default/services/web:80/proxy/", /hello/), /^hello from web-[12]$/m);
  await k.ok(["delete", "service", "web"]);
  await k.ok(["delete", "pod", "web-1", "web-2", "--grace-period=1"]);
}
