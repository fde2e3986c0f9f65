// Waiting for a CSR (or Secret) state through a watch, bounded.
import type { CertificateSigningRequest } from "../../../src/apis/certificates/v1/types.ts";
import type { Client } from "../../../src/client/client.ts";
import { CertificateSigningRequests } from "../../../src/nodeagent/bootstrap/csr.ts";

export async function waitForCSR(client: Client, name: string, done: (csr: CertificateSigningRequest) => boolean, timeoutMs = 20_000): Promise<CertificateSigningRequest> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  let found: CertificateSigningRequest | undefined;
  try {
    while (!found && !abort.signal.aborted) {
      const current = await client.get(CertificateSigningRequests, { name });
      if (done(current)) return current;
      await client
        .watch(CertificateSigningRequests, { fieldSelector: `metadata.name=${name}`, resourceVersion: current.metadata.resourceVersion, timeoutSeconds: 10 }, (ev) => {
          if (ev.type !== "DELETED" && done(ev.object)) {
            found = ev.object;
            abort.abort();
          }
        }, abort.signal)
        .catch(() => undefined);
    }
  } finally {
    clearTimeout(timer);
  }
  if (!found) throw new Error(`timed out waiting for CSR ${name}`);
  return found;
}

export const issued = (csr: CertificateSigningRequest): boolean => Boolean(csr.status?.certificate);
export const hasCondition = (type: string) => (csr: CertificateSigningRequest): boolean => (csr.status?.conditions ?? []).some((c) => c.type === type);
