// The node agent's own Node: registered with its pool label, addresses and host keys, and patched
// with the checksum of the OSC it applied (docs/maintenance-and-rotation.md#the-node-agent). A node agent only
// ever writes its own Node.
import type { Node } from "../apis/core/v1/types.ts";
import { isAlreadyExists, isNotFound } from "../apimachinery/errors.ts";
import { ANNOTATION_CHECKSUM_CLOUD_CONFIG, ANNOTATION_SSH_HOST_KEYS, LABEL_NODE_AGENT_SECRET_NAME, LABEL_WORKER_POOL } from "../api/gardencore/osc.ts";
import { Nodes } from "../client/builtins.ts";
import type { Client } from "../client/client.ts";

export { Nodes };
export const LABEL_HOSTNAME = "kubernetes.io/hostname";

export interface Registration {
  name: string;
  pool: string;
  hostname: string;
  /** Undefined when the machine has no non-loopback IPv4 address. */
  internalIP: string | undefined;
  /** Value of the host keys annotation ("" when there are none). */
  hostKeys: string;
}

/** Creates the Node or merges labels and annotations into it, then sets its addresses (status). */
export async function registerNode(client: Client, r: Registration, signal?: AbortSignal): Promise<Node> {
  const labels = { [LABEL_WORKER_POOL]: r.pool, [LABEL_HOSTNAME]: r.hostname };
  const annotations = { [ANNOTATION_SSH_HOST_KEYS]: r.hostKeys };
  try {
    await client.create(Nodes, { metadata: { name: r.name, labels, annotations } }, { signal });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    await client.patch(Nodes, { name: r.name }, { type: "merge", body: { metadata: { labels, annotations } } }, { signal });
  }
  const addresses = [...(r.internalIP ? [{ type: "InternalIP", address: r.internalIP }] : []), { type: "Hostname", address: r.hostname }];
  return client.patchStatus(Nodes, { name: r.name }, { type: "merge", body: { status: { addresses } } }, { signal });
}

/** Reports an applied OSC: `checksum/cloud-config-data` and the name of the Secret it came from. */
export async function reportApplied(client: Client, nodeName: string, secretName: string, checksum: string, signal?: AbortSignal): Promise<void> {
  const body = { metadata: { labels: { [LABEL_NODE_AGENT_SECRET_NAME]: secretName }, annotations: { [ANNOTATION_CHECKSUM_CLOUD_CONFIG]: checksum } } };
  try {
    await client.patch(Nodes, { name: nodeName }, { type: "merge", body }, { signal });
  } catch (err) {
    if (isNotFound(err)) throw new Error(`node ${nodeName} is not registered (deleted?)`, { cause: err });
    throw err;
  }
}
