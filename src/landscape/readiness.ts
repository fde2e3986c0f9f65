// What `gardener-local up` waits for before it reports Ready: each step is a check that a user's next
// command needs (README.md, "The two commands"), polled until it holds.
import { ANNOTATION_CHECKSUM_CLOUD_CONFIG, ANNOTATION_CHECKSUM_DATA_SCRIPT, ANNOTATION_SSH_HOST_KEYS, LABEL_ROLE, LABEL_WORKER_POOL, OSC_NAMESPACE, ROLE_OSC } from "../api/gardencore/osc.ts";
import { Namespaces, Secrets } from "../client/builtins.ts";
import type { Dialer } from "../apiserver/egressselector/egressselector.ts";
import { Client } from "../client/client.ts";
import { join } from "node:path";
import { Nodes } from "../nodeagent/node.ts";
import { pollUntil } from "../utils/poll.ts";
import { kubeletTlsOf, servingKubelets } from "./kubelets.ts";
import { type Layout, PROJECT_NAMESPACE, SHOOT, WORKER_POOL } from "./layout.ts";
import { readyNodes, schedulerRunning } from "./nodes.ts";

/** Polls `fn` every 250 ms until it returns a value (errors count as "not yet"); throws after timeoutMs. */
export function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  return pollUntil(what, fn, { timeoutMs, intervalMs: 250 });
}

/** An admin client of the API server behind kubeconfig, once it answers a list. */
export function apiServerClient(name: string, kubeconfig: string): Promise<Client> {
  return waitFor(`the ${name} API server`, async () => {
    const client = Client.fromKubeconfigFile(kubeconfig, { fieldManager: "gardener-local" });
    try {
      await client.list(Namespaces, { limit: 1 });
      return client;
    } catch (err) {
      client.close();
      throw err;
    }
  });
}

/** The clients and node names `up` checks. */
export interface Clusters {
  garden: Client;
  seed: Client;
  shoot: Client;
  shootNodes: string[];
  seedNodes: string[];
}

/** Every shoot node registered with its SSH host keys (what gardenctl pins). */
export async function nodesRegistered(c: Clusters, log: (line: string) => void): Promise<void> {
  const want = c.shootNodes.length;
  await waitFor(
    `${want} nodes registered with host keys`,
    async () => {
      const nodes = await c.shoot.list(Nodes);
      return nodes.items.filter((n) => n.metadata.annotations?.[ANNOTATION_SSH_HOST_KEYS]).length >= want ? true : undefined;
    },
    // The node agents start inside the machines (a TypeScript start-up each); generous on a busy 2-core host.
    180_000,
  );
  log(`${want} nodes registered`);
}

/**
 * The README's next line is `gardenctl ssh`: it needs the garden copy of the node key pair and nodes that
 * accept that key (they report the checksum of the node configuration they applied).
 */
export async function nodeKeysApplied(c: Clusters, log: (line: string) => void): Promise<void> {
  await waitFor(
    "the node key pair in the garden and applied by every node",
    async () => {
      await c.garden.get(Secrets, { namespace: PROJECT_NAMESPACE, name: `${SHOOT}.ssh-keypair` });
      const selector = `${LABEL_ROLE}=${ROLE_OSC},${LABEL_WORKER_POOL}=${WORKER_POOL}`;
      const configs = (await c.shoot.list(Secrets, { namespace: OSC_NAMESPACE, labelSelector: selector })).items;
      const latest = configs.map((s) => s.metadata.annotations?.[ANNOTATION_CHECKSUM_DATA_SCRIPT]).filter((x): x is string => x !== undefined);
      const nodes = (await c.shoot.list(Nodes)).items;
      const applied = nodes.filter((n) => latest.includes(n.metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG] ?? ""));
      return latest.length > 0 && applied.length >= c.shootNodes.length ? true : undefined;
    },
    120_000,
  );
  log("node key pair applied by every node");
}

/** `kubectl run` works once the kubelets heartbeat and the schedulers run. */
export async function workloadsSchedulable(c: Clusters, log: (line: string) => void): Promise<void> {
  await waitFor(
    "every node Ready with a renewed Lease, and the schedulers",
    async () => {
      const want = async (cl: Client, names: string[]): Promise<boolean> => (await readyNodes(cl, names)).length === names.length;
      if (!(await want(c.shoot, c.shootNodes)) || !(await want(c.seed, c.seedNodes))) return undefined;
      for (const cl of [c.garden, c.seed, c.shoot]) if (!(await schedulerRunning(cl))) return undefined;
      return true;
    },
    120_000,
  );
  log("nodes Ready, schedulers running");
}

/**
 * The user's next `kubectl exec` or `logs` goes through the reversed VPN's tunnel to a worker's kubelet
 * endpoint, served once the node agent has its serving certificate: checked through the egress proxy, as the
 * shoot API server dials. An operator's next terminal attaches to its pod on the seed's worker: that kubelet
 * endpoint is checked from the host, as the seed API server dials it.
 */
export async function kubeletsServing(c: Clusters, layout: Layout, dial: Dialer, log: (line: string) => void): Promise<void> {
  const shootTls = kubeletTlsOf(join(layout.apiServerDir("shoot"), "pki"));
  const seedTls = kubeletTlsOf(join(layout.apiServerDir("seed"), "pki"));
  await waitFor(
    "the reversed VPN's tunnel and every shoot worker's kubelet endpoint (10250) behind it answering the API server, and the seed's workers' endpoints answering the seed API server",
    async () => {
      if ((await servingKubelets(c.shoot, c.shootNodes, shootTls, dial)).length !== c.shootNodes.length) return undefined;
      return (await servingKubelets(c.seed, c.seedNodes, seedTls)).length === c.seedNodes.length ? true : undefined;
    },
    120_000,
  );
  log("kubelet endpoints serving");
}
