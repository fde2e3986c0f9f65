// The node agent's identity as it is used (docs/node-bootstrap.md): with a bootstrap kubeconfig,
// the node's own client certificate is obtained (or renewed) before anything talks to the API
// server, and the agent's client follows every renewal; with --tls-cert-file/--tls-private-key-file
// a kubelet serving certificate is kept in those files.
import type { Logger } from "pino";
import { Client } from "../../client/client.ts";
import type { Clock, Timer } from "../../utils/clock.ts";
import { ClientCertificateManager } from "./client.ts";
import { ensureServingCertificate } from "./serving.ts";
import { ReloadingTransport } from "./transport.ts";

export interface NodeIdentityOptions {
  nodeName: string;
  kubeconfig: string;
  bootstrapKubeconfig?: string;
  clock: Clock;
  logger?: Logger;
  timeoutMs?: number;
  expirationSeconds?: number;
}

export interface NodeIdentity {
  /** A client of the node's own kubeconfig, following renewals. */
  client: Client;
  /** Keeps a serving certificate for these names in the files (renewed at 80 % of its lifetime). */
  keepServingCertificate(o: { hostname: string; ipAddresses: string[]; certFile: string; keyFile: string; onRenewed?: () => void }): Promise<void>;
  stop(): void;
}

export async function startNodeIdentity(o: NodeIdentityOptions): Promise<NodeIdentity> {
  // The transport exists once the first certificate does; renewals swap its credentials.
  const ref: { transport?: ReloadingTransport } = {};
  const manager = new ClientCertificateManager({ ...o, onRenewed: () => ref.transport?.swap(o.kubeconfig) });
  await manager.start();
  ref.transport = new ReloadingTransport(o.kubeconfig, "gardener-node-agent");
  const client = new Client(ref.transport, { fieldManager: "gardener-node-agent" });
  const abort = new AbortController();
  let servingTimer: Timer | undefined;
  return {
    client,
    async keepServingCertificate(s) {
      const renew = async (): Promise<void> => {
        try {
          const at = await ensureServingCertificate(client, { nodeName: o.nodeName, ...s, clock: o.clock, logger: o.logger, timeoutMs: o.timeoutMs, signal: abort.signal });
          s.onRenewed?.();
          if (!abort.signal.aborted) servingTimer = o.clock.setTimer(Math.max(0, at - o.clock.nowMs()), () => void renew());
        } catch (err) {
          if (abort.signal.aborted) return;
          o.logger?.warn({ err }, "serving certificate request failed; retrying");
          servingTimer = o.clock.setTimer(30_000, () => void renew());
        }
      };
      const first = await ensureServingCertificate(client, { nodeName: o.nodeName, ...s, clock: o.clock, logger: o.logger, timeoutMs: o.timeoutMs, signal: abort.signal });
      servingTimer = o.clock.setTimer(Math.max(0, first - o.clock.nowMs()), () => void renew());
    },
    stop() {
      abort.abort();
      servingTimer?.cancel();
      manager.stop();
      client.close();
    },
  };
}
