// The kinds `gardenctl ssh` reads and writes (garden kinds from client/garden.ts), and the few Node fields it uses.
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { resourceType } from "../../../client/resource.ts";

export { Bastions, Projects, Shoots } from "../../../client/garden.ts";

export interface NodeAddress {
  type: "InternalIP" | "ExternalIP" | "InternalDNS" | "ExternalDNS" | "Hostname";
  address: string;
}

export interface Node extends KubeObject {
  spec?: Record<string, unknown>;
  status?: { addresses?: NodeAddress[]; conditions?: { type: string; status: string }[] };
}

export const Nodes = resourceType<Node>({ group: "", version: "v1", kind: "Node", plural: "nodes", namespaced: false });

/** Node annotation with the node's SSH host keys, one `<type> <base64>` per line (docs/gardenctl-ssh.md#host-keys). */
export const NODE_HOST_KEYS_ANNOTATION = "node.gardener.cloud/ssh-host-keys";
