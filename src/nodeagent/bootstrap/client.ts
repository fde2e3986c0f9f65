// The node's client identity (docs/node-bootstrap.md): with a missing kubeconfig, or one whose
// certificate is not system:node:<name> or is 80 % through its lifetime, a new certificate is
// requested (signer kube-apiserver-client-kubelet) with the still valid own certificate (a
// self-node-client renewal) or else the bootstrap kubeconfig (a bootstrap token), and the
// kubeconfig is written atomically with mode 0600. ClientCertificateManager renews it on time.
import type { Logger } from "pino";
import { NODES_GROUP, NODE_USER_PREFIX } from "../../api/certificates/csr.ts";
import { SIGNER_KUBELET_CLIENT } from "../../apis/certificates/v1/types.ts";
import { writeKubeconfig } from "../../apiserver/certs/kubeconfig.ts";
import { Client } from "../../client/client.ts";
import type { Clock, Timer } from "../../utils/clock.ts";
import { requestCertificate } from "./csr.ts";
import { type KubeconfigCredentials, certificateInfo, readCredentials } from "./kubeconfig.ts";

export const CLIENT_USAGES = ["digital signature", "client auth"];

export interface ClientBootstrapOptions {
  nodeName: string;
  /** The node's own kubeconfig (written here). */
  kubeconfig: string;
  /** A kubeconfig with a bootstrap token; needed when there is no valid own certificate. */
  bootstrapKubeconfig?: string;
  clock: Clock;
  logger?: Logger;
  /** How long to wait for a certificate; default 15 minutes. */
  timeoutMs?: number;
  /** Requested validity (spec.expirationSeconds); default: the signer's maximum. */
  expirationSeconds?: number;
  signal?: AbortSignal;
}

/** Why the kubeconfig must be replaced now, or undefined when its certificate is good. */
export function renewalReason(creds: KubeconfigCredentials | undefined, nodeName: string, nowMs: number): string | undefined {
  if (!creds?.certPem || !creds.keyPem) return "no client certificate";
  const info = certificateInfo(creds.certPem);
  if (!info) return "unreadable client certificate";
  if (info.commonName !== `${NODE_USER_PREFIX}${nodeName}` || !info.organizations.includes(NODES_GROUP)) return `the certificate is for ${info.commonName}`;
  if (nowMs >= info.notAfterMs) return "the certificate has expired";
  if (nowMs >= info.renewAtMs) return "the certificate is 80 % through its lifetime";
  return undefined;
}

/** Makes sure o.kubeconfig holds a good node certificate; returns when it must be renewed next (ms since the epoch). */
export async function ensureClientKubeconfig(o: ClientBootstrapOptions): Promise<number> {
  const own = readCredentials(o.kubeconfig);
  const reason = renewalReason(own, o.nodeName, o.clock.nowMs());
  if (!reason) return certificateInfo(own!.certPem!)!.renewAtMs;
  const ownStillValid = own?.certPem && own.keyPem && (certificateInfo(own.certPem)?.notAfterMs ?? 0) > o.clock.nowMs() && reason.includes("80 %");
  const via = ownStillValid ? o.kubeconfig : o.bootstrapKubeconfig;
  if (!via) throw new Error(`cannot get a client certificate (${reason}) without --bootstrap-kubeconfig`);
  const target = readCredentials(via);
  if (!target) throw new Error(`cannot read kubeconfig ${via}`);
  o.logger?.info({ reason, via: ownStillValid ? "own certificate" : "bootstrap kubeconfig" }, "requesting a client certificate");
  const client = Client.fromKubeconfigFile(via, { fieldManager: "gardener-node-agent", userAgent: "gardener-node-agent" });
  try {
    const issued = await requestCertificate(
      client,
      {
        commonName: `${NODE_USER_PREFIX}${o.nodeName}`,
        organizations: [NODES_GROUP],
        signerName: SIGNER_KUBELET_CLIENT,
        usages: CLIENT_USAGES,
        ...(o.expirationSeconds ? { expirationSeconds: o.expirationSeconds } : {}),
      },
      { clock: o.clock, logger: o.logger, timeoutMs: o.timeoutMs, signal: o.signal },
    );
    await writeKubeconfig(o.kubeconfig, {
      server: target.server,
      caPem: target.caPem,
      clusterName: "default-cluster",
      userName: "default-auth",
      contextName: "default-context",
      user: { certPem: issued.certPem, keyPem: issued.keyPem },
    });
    const info = certificateInfo(issued.certPem);
    if (!info) throw new Error(`certificate signing request ${issued.csrName} returned an unreadable certificate`);
    o.logger?.info({ csr: issued.csrName, notAfter: new Date(info.notAfterMs).toISOString() }, "client certificate written");
    return info.renewAtMs;
  } finally {
    client.close();
  }
}

/** Renews the node's client certificate at 80 % of its lifetime and tells onRenewed (e.g. to swap a transport). */
export class ClientCertificateManager {
  private timer: Timer | undefined;
  private stopped = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly o: ClientBootstrapOptions & { onRenewed?: () => void; retryMs?: number },
  ) {}

  /** Ensures a good certificate now, then keeps renewing it. */
  async start(): Promise<void> {
    const next = await ensureClientKubeconfig({ ...this.o, signal: this.abort.signal });
    this.schedule(next);
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    this.timer?.cancel();
  }

  private schedule(atMs: number): void {
    if (this.stopped) return;
    this.timer = this.o.clock.setTimer(Math.max(0, atMs - this.o.clock.nowMs()), () => void this.renew());
  }

  private async renew(): Promise<void> {
    try {
      const next = await ensureClientKubeconfig({ ...this.o, signal: this.abort.signal });
      if (this.stopped) return;
      this.o.onRenewed?.();
      this.schedule(next);
    } catch (err) {
      if (this.stopped) return;
      this.o.logger?.warn({ err }, "client certificate renewal failed; retrying");
      this.schedule(this.o.clock.nowMs() + (this.o.retryMs ?? 30_000));
    }
  }
}
