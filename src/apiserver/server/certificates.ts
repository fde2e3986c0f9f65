// The node TLS bootstrapping controllers of the server (docs/node-bootstrap.md), started once the
// authorizer's caches are warm (the approver asks it): the bootstrap token cleaner, the CSR
// approver and the kubelet signers.
import type { Logger } from "pino";
import type { Clock } from "../../utils/clock.ts";
import type { Authorizer } from "../authorization/types.ts";
import type { CertificateAuthority } from "../certs/issue.ts";
import { CSRApprover } from "../controllers/certificates/approver.ts";
import { CSRSigner } from "../controllers/certificates/signer.ts";
import { TokenCleaner } from "../controllers/tokencleaner.ts";
import type { InternalClient } from "../registry/client.ts";

export interface CertificateControllerDeps {
  client: InternalClient;
  clock: Clock;
  logger: Logger;
  authorizer: () => Authorizer;
  ca: CertificateAuthority;
  maxSigningDurationMs: number;
}

export async function startCertificateControllers(d: CertificateControllerDeps): Promise<{ stop(): void }> {
  const log = d.logger.child({ controller: "certificates" });
  const onError = (err: unknown, name?: string) => log.warn({ err, name }, "sync failed");
  const started: { stop(): void }[] = [];
  const stop = () => {
    for (const c of started.reverse()) c.stop();
  };
  try {
    const cleaner = new TokenCleaner({ client: d.client, clock: d.clock, onError, onDeleted: (name) => log.info({ secret: name }, "deleted expired bootstrap token") });
    started.push(cleaner);
    await cleaner.start();
    const approver = new CSRApprover({ client: d.client, clock: d.clock, onError, authorizer: d.authorizer, onDecision: (name, decision) => log.info({ csr: name }, decision) });
    started.push(approver);
    await approver.start();
    const signer = new CSRSigner({ client: d.client, clock: d.clock, onError, ca: d.ca, maxDurationMs: d.maxSigningDurationMs });
    started.push(signer);
    await signer.start();
  } catch (err) {
    stop();
    throw err;
  }
  return { stop };
}
