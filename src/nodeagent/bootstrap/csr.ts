// Requesting a certificate through a CertificateSigningRequest (kubelet's
// pkg/kubelet/certificate/bootstrap and client-go's certificate/csr): a fresh ECDSA P-256 key, a
// CSR named node-csr-<digest of key, subject and usages>, then waiting (watch, bounded, logging
// progress) until it is issued, denied or failed.
import { createHash, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import type { Logger } from "pino";
import type { CertificateSigningRequest } from "../../apis/certificates/v1/types.ts";
import { isAlreadyExists } from "../../apimachinery/errors.ts";
import { EC_P256, exportKeyPairPem, generateKeyPair } from "../../apiserver/certs/keys.ts";
import type { Client } from "../../client/client.ts";
import { resourceType } from "../../client/resource.ts";
import type { Clock } from "../../utils/clock.ts";

export const CertificateSigningRequests = resourceType<CertificateSigningRequest>({
  group: "certificates.k8s.io",
  version: "v1",
  kind: "CertificateSigningRequest",
  plural: "certificatesigningrequests",
  namespaced: false,
});

export const DEFAULT_WAIT_MS = 15 * 60 * 1000;
const PROGRESS_MS = 30 * 1000;

export interface CertificateRequest {
  commonName: string;
  organizations: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  signerName: string;
  usages: string[];
  expirationSeconds?: number;
}

export interface RequestOptions {
  clock: Clock;
  logger?: Logger;
  /** How long to wait for the certificate; default 15 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface IssuedPair {
  certPem: string;
  keyPem: string;
  csrName: string;
}

/** Creates the CSR and resolves with the issued certificate and its key; throws when denied, failed or timed out. */
export async function requestCertificate(client: Client, r: CertificateRequest, o: RequestOptions): Promise<IssuedPair> {
  const keys = await generateKeyPair(EC_P256);
  const names: x509.JsonGeneralName[] = [...(r.dnsNames ?? []).map((v) => ({ type: "dns" as const, value: v })), ...(r.ipAddresses ?? []).map((v) => ({ type: "ip" as const, value: v }))];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [...r.organizations.map((o) => ({ O: [o] })), { CN: [r.commonName] }],
    keys,
    signingAlgorithm: EC_P256,
    extensions: names.length ? [new x509.SubjectAlternativeNameExtension(names)] : [],
  });
  const spki = Buffer.from(await webcrypto.subtle.exportKey("spki", keys.publicKey));
  const digest = createHash("sha256").update(spki).update(`\0${r.commonName}\0${r.organizations.join(",")}\0${r.usages.join(",")}`).digest("base64url");
  const name = `node-csr-${digest}`;
  const body: CertificateSigningRequest = {
    metadata: { name },
    spec: {
      request: Buffer.from(csr.toString("pem")).toString("base64"),
      signerName: r.signerName,
      usages: r.usages as CertificateSigningRequest["spec"]["usages"],
      ...(r.expirationSeconds ? { expirationSeconds: r.expirationSeconds } : {}),
    },
  };
  try {
    await client.create(CertificateSigningRequests, body, { signal: o.signal });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  o.logger?.info({ csr: name, signer: r.signerName, subject: r.commonName }, "certificate signing request created");
  const certPem = await waitForCertificate(client, name, o);
  return { certPem, keyPem: (await exportKeyPairPem(keys)).privateKeyPem, csrName: name };
}

/** The issued certificate (PEM) of CSR name, once it has one. */
export async function waitForCertificate(client: Client, name: string, o: RequestOptions): Promise<string> {
  const timeoutMs = o.timeoutMs ?? DEFAULT_WAIT_MS;
  const started = o.clock.nowMs();
  const done = new AbortController();
  const onAbort = () => done.abort();
  o.signal?.addEventListener("abort", onAbort, { once: true });
  let timedOut = false;
  const deadline = o.clock.setTimer(timeoutMs, () => {
    timedOut = true;
    done.abort();
  });
  const progress = () => {
    if (done.signal.aborted) return;
    o.logger?.info({ csr: name, waitedSeconds: Math.round((o.clock.nowMs() - started) / 1000) }, "waiting for the certificate signing request to be approved and issued");
    timer = o.clock.setTimer(PROGRESS_MS, progress);
  };
  let timer = o.clock.setTimer(PROGRESS_MS, progress);
  let result: string | Error | undefined;
  const check = (csr: CertificateSigningRequest): boolean => {
    const conds = csr.status?.conditions ?? [];
    const bad = conds.find((c) => (c.type === "Denied" || c.type === "Failed") && c.status === "True");
    if (bad) result = new Error(`certificate signing request ${name} was ${bad.type === "Denied" ? "denied" : "failed"}: ${bad.reason ?? ""} ${bad.message ?? ""}`.trim());
    else if (csr.status?.certificate) result = Buffer.from(csr.status.certificate, "base64").toString("utf8");
    return result !== undefined;
  };
  try {
    while (!done.signal.aborted) {
      const csr = await client.get(CertificateSigningRequests, { name }, { signal: done.signal });
      if (check(csr)) break;
      await client
        .watch(CertificateSigningRequests, { fieldSelector: `metadata.name=${name}`, resourceVersion: csr.metadata.resourceVersion, timeoutSeconds: 60 }, (ev) => {
          if ((ev.type === "ADDED" || ev.type === "MODIFIED") && check(ev.object)) done.abort();
          if (ev.type === "DELETED") {
            result = new Error(`certificate signing request ${name} was deleted`);
            done.abort();
          }
        }, done.signal)
        .catch((err: unknown) => {
          // A broken watch is re-opened after a fresh get (410, network); the deadline bounds the loop.
          o.logger?.debug({ err, csr: name }, "watch ended");
        });
      if (result === undefined && !done.signal.aborted) await o.clock.sleep(1000, done.signal).catch(() => undefined);
    }
  } catch (err) {
    if (result === undefined && !timedOut && !o.signal?.aborted) throw err;
  } finally {
    deadline.cancel();
    timer.cancel();
    o.signal?.removeEventListener("abort", onAbort);
  }
  if (typeof result === "string") return result;
  if (result) throw result;
  if (timedOut) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)}s waiting for certificate signing request ${name} to be issued`);
  throw new Error(`stopped waiting for certificate signing request ${name}`);
}
