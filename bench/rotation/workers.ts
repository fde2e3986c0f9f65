// More worker machines for the running local landscape's shoot, each with a real node agent, started the
// way the landscape starts its own two (src/landscape/run.ts: provider-local's startWorker on the shoot's
// node network, the landscape's worker user-data, the node agent's code bound read-only), and the
// authorized_keys of every worker machine read from the host (the machine's overlay upper layer: every
// file the machine wrote).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ANNOTATION_CHECKSUM_CLOUD_CONFIG, ANNOTATION_SSH_HOST_KEYS, oscSecretNameOf } from "../../src/api/gardencore/osc.ts";
import { Shoots } from "../../src/client/garden.ts";
import { LinuxHost, type MachineInfo } from "../../src/host/index.ts";
import { nodeAgentCode, workerUserData } from "../../src/landscape/components.ts";
import { PROJECT_NAMESPACE, SHOOT, SHOOT_TECHNICAL_ID, WORKER_POOL } from "../../src/landscape/layout.ts";
import { clusterOf, workerBootstrapKubeconfig } from "../../src/landscape/nodetokens.ts";
import { Nodes } from "../../src/nodeagent/node.ts";
import { startWorker, stopWorker, workerMachineName } from "../../src/provider-local/machines/workers.ts";
import { FileAddressBook } from "../../src/provider-local/network/addresses.ts";
import { LocalNetworks } from "../../src/provider-local/network/networks.ts";
import type { Landscape } from "../../test/e2e/support/landscape.ts";

const AUTHORIZED_KEYS = "home/gardener/.ssh/authorized_keys";

export interface Workers {
  /** Every worker machine of the shoot (the landscape's and the added ones), as the host records them. */
  machines: MachineInfo[];
  /** Each worker's authorized_keys, undefined when it has none (yet). */
  keys(): (string | undefined)[];
  /** Starts `names` (at most `concurrency` booting at once); resolves when each one's Node reports the given OSC checksum. */
  add(names: string[], concurrency: number, checksum: () => Promise<string | undefined>, progress: (line: string) => void): Promise<number[]>;
  /** Stops the added machines and releases their addresses. */
  removeAdded(): Promise<void>;
}

export const nodeNameOf = (worker: string): string => `${SHOOT_TECHNICAL_ID}-${WORKER_POOL}-${worker}`;

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

export async function landscapeWorkers(l: Landscape): Promise<Workers> {
  const host = new LinuxHost({ stateDir: l.layout.hostState, prefix: l.prefix });
  const networks = new LocalNetworks({ host, addresses: new FileAddressBook(join(l.layout.providerState, "addresses.json")) });
  const isWorker = (m: MachineInfo): boolean => m.name.startsWith(`${SHOOT_TECHNICAL_ID}.worker-`);
  const w: Workers = {
    machines: (await host.listMachines()).filter(isWorker),
    keys: () => w.machines.map((m) => readOrUndefined(join(m.upperDir, AUTHORIZED_KEYS))),
    async add(names, concurrency, checksum, progress) {
      // As the landscape's own workers: a bootstrap token each, the node agent's own identity, its pool's OSC Secret.
      const cluster = clusterOf(readFileSync(l.layout.shootKubeconfig, "utf8"));
      const shoot = await l.garden.get(Shoots, { namespace: PROJECT_NAMESPACE, name: SHOOT });
      const pool = shoot.spec.provider.workers?.find((x) => x.name === WORKER_POOL);
      if (!pool) throw new Error(`shoot ${SHOOT} has no worker pool ${WORKER_POOL}`);
      const secretName = oscSecretNameOf(shoot, pool);
      const bootMs: number[] = [];
      const queue = [...names];
      const one = async (name: string): Promise<void> => {
        const t0 = performance.now();
        addedNames.push(name);
        await startWorker(networks, {
          namespace: SHOOT_TECHNICAL_ID,
          name,
          userData: workerUserData({ bootstrapKubeconfig: await workerBootstrapKubeconfig(l.shoot, { nodeName: nodeNameOf(name), cluster, nowMs: Date.now() }), secretName, nodeName: nodeNameOf(name), pool: WORKER_POOL }),
          readyTimeoutMs: 300_000,
          readOnlyBinds: nodeAgentCode(),
        });
        // Booted: the node agent registered the Node and applied the current configuration.
        for (;;) {
          const node = await l.shoot.get(Nodes, { name: nodeNameOf(name) }).catch(() => undefined);
          const want = await checksum();
          if (node?.metadata.annotations?.[ANNOTATION_SSH_HOST_KEYS] && want && node.metadata.annotations[ANNOTATION_CHECKSUM_CLOUD_CONFIG] === want) break;
          if (performance.now() - t0 > 300_000) throw new Error(`worker ${name} did not apply the node configuration within 300 s`);
          await new Promise((r) => setTimeout(r, 200));
        }
        bootMs.push(performance.now() - t0);
        progress(`worker ${name} booted in ${((performance.now() - t0) / 1000).toFixed(1)} s (${bootMs.length}/${names.length})`);
      };
      await Promise.all(Array.from({ length: concurrency }, async () => {
        for (let name = queue.shift(); name !== undefined; name = queue.shift()) await one(name);
      }));
      const added = new Set(names.map((n) => workerMachineName(SHOOT_TECHNICAL_ID, n)));
      w.machines = (await host.listMachines()).filter(isWorker);
      if (w.machines.filter((m) => added.has(m.name)).length !== names.length) throw new Error("not every added worker is recorded by the host");
      return bootMs;
    },
    async removeAdded() {
      for (const name of addedNames.splice(0)) {
        await stopWorker(networks, SHOOT_TECHNICAL_ID, name).catch(() => undefined);
        await l.shoot.delete(Nodes, { name: nodeNameOf(name) }).catch(() => undefined);
      }
      w.machines = (await host.listMachines()).filter(isWorker);
    },
  };
  const addedNames: string[] = [];
  return w;
}
