// kube-proxy's part for the `kubernetes` Service on the local landscape: a pod reaches its cluster's API
// server as https://kubernetes.default.svc (port 443, the Service's port), and the node agent's
// /etc/hosts maps that name to the API server's address; the API servers listen on their own ports of
// the host's public address. Each node network's router rewrites that address's port 443 to the
// cluster's API server port (docs/terminals.md#the-local-landscape: terminal kubeconfigs name
// kubernetes.default.svc).
import type { LinuxHost } from "../host/index.ts";
import type { NftTable } from "../host/nft-render.ts";
import { ROUTER_NODE_BRIDGE, type LocalNetworks } from "../provider-local/network/networks.ts";

export const SERVICE_PORT = 443;

/** The router's table: from the nodes (and their pods), `address:443` goes to `address:port`. */
export function apiServerServiceTable(host: Pick<LinuxHost, "names">, namespace: string, address: string, port: number): NftTable {
  return {
    family: "ip",
    name: host.names.table("svc", namespace),
    chains: [{
      name: "prerouting",
      base: { type: "nat", hook: "prerouting", priority: "dstnat", policy: "accept" },
      rules: [{ iif: ROUTER_NODE_BRIDGE, daddr: address, protocol: "tcp", dport: SERVICE_PORT, dnatTo: { address, port }, comment: "kubernetes.default.svc" }],
    }],
  };
}

/** Applies apiServerServiceTable in the node network's router (it goes with the router namespace). */
export async function forwardApiServerService(host: LinuxHost, networks: LocalNetworks, namespace: string, address: string, port: number): Promise<void> {
  const net = await networks.nodeNetwork(namespace);
  if (!net) throw new Error(`the node network of ${namespace} does not exist`);
  await host.applyTable(net.netns, apiServerServiceTable(host, namespace, address, port), { owner: `network/${namespace}` });
}
