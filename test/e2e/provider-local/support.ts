// The provider-local e2e landscape: a seed API server in-process with the extension CRDs, provider-local
// (generic reconciler + local actuator) on a LinuxHost of the test's own prefix, shoots with node networks
// and worker machines that accept the shoot's node key, and users on the public network.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import type { CustomResourceDefinition } from "../../../src/apis/apiextensions/v1/types.ts";
import type { ExtensionBastion } from "../../../src/apis/extensions/v1alpha1/types.ts";
import { readExtensionCRDs } from "../../../src/api/extensions/crds.ts";
import { bastionUserData, bastionUserDataBase64 } from "../../../src/api/extensions/userdata.ts";
import { parseOptions } from "../../../src/apiserver/server/options.ts";
import { type RunningServer, startApiServer } from "../../../src/apiserver/server/server.ts";
import { Namespaces } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { resourceType } from "../../../src/client/resource.ts";
import { Clusters, ExtensionBastions } from "../../../src/extensions/resources.ts";
import { LinuxHost } from "../../../src/host/index.ts";
import { createProviderLocal, type ProviderLocal } from "../../../src/provider-local/app.ts";
import { startWorker, type Worker } from "../../../src/provider-local/machines/workers.ts";
import { eventually } from "../../support/http.ts";

const CRDs = resourceType<CustomResourceDefinition>({ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false });

export interface Seed {
  server: RunningServer;
  client: Client;
  provider: ProviderLocal;
  /** Stops provider-local and starts a new one on a fresh LinuxHost of the same state directory. */
  restartProvider(): Promise<void>;
  stop(): Promise<void>;
}

function newProvider(client: Client, host: LinuxHost, dir: string): ProviderLocal {
  return createProviderLocal({
    seedClient: client,
    stateDir: join(dir, "provider-local"),
    host,
    logger: pino({ level: process.env.PROVIDER_LOG_LEVEL ?? "silent" }),
    server: false,
    defaultMetrics: false,
    // One held machine: the first bastion is claimed from it, the next ones are started (both paths run).
    bastionPoolSize: 1,
  });
}

export async function startSeed(host: LinuxHost, dir: string): Promise<Seed> {
  const parsed = parseOptions(["--data-dir", join(dir, "seed"), "--secure-port", "0", "--etcd-compaction-interval", "0s"]);
  if (parsed.kind !== "options") throw new Error(parsed.stderr);
  const server = await startApiServer(parsed.options, { logger: pino({ level: "silent" }) });
  const client = Client.fromKubeconfigFile(server.adminKubeconfigPath, { fieldManager: "e2e" });
  for (const crd of readExtensionCRDs()) await client.create(CRDs, crd);
  await eventually("CRDs served", async () => ((await client.list(ExtensionBastions, { limit: 1 })) && (await client.list(Clusters, { limit: 1 })) ? true : undefined));
  const provider = newProvider(client, host, dir);
  await provider.start();
  await provider.pool.settled();
  const seed: Seed = {
    server,
    client,
    provider,
    async restartProvider() {
      await seed.provider.stop();
      seed.provider = newProvider(client, new LinuxHost({ stateDir: host.stateDir, prefix: host.names.prefix }), dir);
      await seed.provider.start();
    },
    async stop() {
      await seed.provider.stop();
      client.close();
      await server.stop();
    },
  };
  return seed;
}

/** Namespace, Cluster (with spec.networking.nodes), node network and workers accepting `nodeKeyPub`. */
export async function createShoot(seed: Seed, namespace: string, workers: string[], nodeKeyPub: string): Promise<{ cidr: string; workers: Worker[] }> {
  const { networks } = seed.provider;
  const cidr = await networks.nodeCidrFor(namespace);
  await seed.client.create(Namespaces, { metadata: { name: namespace } });
  const shoot = { metadata: { name: namespace.split("--").pop(), namespace: "garden-p" }, spec: { networking: { nodes: cidr } } };
  await seed.client.create(Clusters, { metadata: { name: namespace }, spec: { cloudProfile: {}, seed: {}, shoot } });
  await networks.ensureNodeNetwork(namespace, cidr);
  const started: Worker[] = [];
  for (const name of workers) {
    started.push(await startWorker(networks, { namespace, name, userData: bastionUserData(nodeKeyPub), readyTimeoutMs: 30_000 }));
  }
  return { cidr, workers: started };
}

export function extensionBastion(namespace: string, name: string, userKeyPub: string, cidrs: string[]): ExtensionBastion {
  return {
    metadata: { name, namespace, annotations: { "gardener.cloud/operation": "reconcile" } },
    spec: { type: "local", userData: bastionUserDataBase64(userKeyPub), ingress: cidrs.map((cidr) => ({ ipBlock: { cidr } })) },
  };
}

/** The extension Bastion once its lastOperation is Succeeded for its generation (and its status is written). */
export function succeeded(seed: Seed, namespace: string, name: string, generation?: number, timeoutMs = 60_000): Promise<ExtensionBastion> {
  return eventually(
    `bastion ${namespace}/${name} succeeded`,
    async () => {
      const b = await seed.client.get(ExtensionBastions, { namespace, name });
      const ok = b.status?.lastOperation?.state === "Succeeded" && b.status.ingress?.ip && (generation === undefined || b.status.observedGeneration === generation);
      return ok ? b : undefined;
    },
    timeoutMs,
    50,
  );
}

/** An ssh_config: the bastion's key for the public network, the node key for the node networks. */
export async function sshConfig(path: string, o: { knownHosts: string; bastionKey: string; nodeKey: string; publicPrefix: string; nodePrefix: string }): Promise<string> {
  await writeFile(
    path,
    [
      `Host ${o.publicPrefix}*`,
      `  IdentityFile ${o.bastionKey}`,
      `Host ${o.nodePrefix}*`,
      `  IdentityFile ${o.nodeKey}`,
      "Host *",
      "  User gardener",
      "  BatchMode yes",
      "  IdentitiesOnly yes",
      "  StrictHostKeyChecking yes",
      `  UserKnownHostsFile ${o.knownHosts}`,
      "  GlobalKnownHostsFile /dev/null",
      "  ConnectTimeout 5",
      "  ServerAliveInterval 1",
      "  ServerAliveCountMax 3",
      "",
    ].join("\n"),
  );
  return path;
}
