// The pod runtime of the node agent on its own machine: a LinuxHost on the kubelet's state directory with
// the "gk-" prefix and the Exec for machines (host/nested-exec.ts).
import { KubeConfig } from "@kubernetes/client-node";
import { LinuxHost } from "../../host/index.ts";
import { NestedExec } from "../../host/nested-exec.ts";
import { PodRuntime } from "./runtime/runtime.ts";

export const DEFAULT_KUBELET_STATE_DIR = "/var/lib/gardener-node-agent/kubelet";
export const KUBELET_HOST_PREFIX = "gk-";

export function newPodRuntime(o: { stateDir: string; podCIDR: string | undefined; apiServer?: { host: string; port: number } | undefined }): PodRuntime {
  if (!o.podCIDR) throw new Error("kubelet: a pod range (--pod-cidr) is needed to run pods");
  const host = new LinuxHost({ stateDir: o.stateDir, prefix: KUBELET_HOST_PREFIX, exec: new NestedExec() });
  return new PodRuntime({ host, podCIDR: o.podCIDR, ...(o.apiServer ? { apiServer: o.apiServer } : {}) });
}

/** The API server's address and port from a kubeconfig, when the server is given as an IP address. */
export function apiServerOf(kubeconfigPath: string): { host: string; port: number } | undefined {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const server = kc.getCurrentCluster()?.server;
  if (!server) return undefined;
  const u = new URL(server);
  const host = u.hostname.replace(/^\[|\]$/g, "");
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return undefined;
  return { host, port: Number(u.port || (u.protocol === "https:" ? 443 : 80)) };
}
