// The node agent as kubelet with the pod runtime in memory (fake-runtime.ts), as the kubelet suites
// start it against an in-process API server (test/support/inprocess.ts).
import { join } from "node:path";
import { pino } from "pino";
import { Client } from "../../../src/client/client.ts";
import { type NodeAgent, createNodeAgent } from "../../../src/nodeagent/agent.ts";
import type { PodRuntime } from "../../../src/nodeagent/kubelet/runtime/runtime.ts";
import { RecordingSshd } from "../../../src/nodeagent/sshd.ts";
import { fixedUserManager } from "../../../src/nodeagent/users.ts";
import type { FakeClock } from "../../../src/utils/clock.ts";
import type { InProcessServer } from "../../support/inprocess.ts";
import type { FakeRuntime } from "./fake-runtime.ts";

export const NODE = "worker-1";

/** Starts node NODE's agent with its kubelet on `runtime`, its state under `root`. */
export async function startFakeKubelet(api: InProcessServer, root: string, clock: FakeClock, runtime: FakeRuntime): Promise<NodeAgent> {
  const agent = createNodeAgent({
    client: Client.fromKubeconfigFile(api.server.adminKubeconfigPath, { fieldManager: "kubelet" }),
    nodeName: NODE,
    pool: "worker",
    root,
    users: fixedUserManager(),
    sshd: new RecordingSshd(),
    internalIP: "10.250.0.10",
    hostname: NODE,
    clock,
    logger: pino({ level: process.env.KUBELET_LOG_LEVEL ?? "silent" }),
    server: false,
    defaultMetrics: false,
    // The kubelet only calls the KubeletRuntime methods; the cast stands for a PodRuntime.
    kubelet: { stateDir: join(root, "kubelet"), podCIDR: "10.96.1.0/24", runtime: runtime as unknown as PodRuntime },
  });
  await agent.start();
  return agent;
}
