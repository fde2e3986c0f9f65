// The kinds `gardenctl ssh` reads and writes (garden kinds from client/garden.ts, Nodes from client/builtins.ts).
export { Bastions, Projects, Shoots } from "../../../client/garden.ts";
export type { Node, NodeAddress } from "../../../apis/core/v1/types.ts";
export { Nodes } from "../../../client/builtins.ts";

/** Node annotation with the node's SSH host keys, one `<type> <base64>` per line (docs/gardenctl-ssh.md#host-keys). */
export const NODE_HOST_KEYS_ANNOTATION = "node.gardener.cloud/ssh-host-keys";
