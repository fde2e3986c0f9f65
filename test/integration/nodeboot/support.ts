// An in-process API server with bootstrap token authentication and a fake clock (near real time,
// so issued certificates are valid for TLS), and helpers to mint bootstrap tokens and CSRs.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as x509 from "@peculiar/x509";
import { bootstrapTokenSecret, generateBootstrapToken } from "../../../src/api/bootstraptoken/token.ts";
import type { CertificateSigningRequest } from "../../../src/apis/certificates/v1/types.ts";
import { writeKubeconfig } from "../../../src/apiserver/certs/kubeconfig.ts";
import { EC_P256, exportKeyPairPem, generateKeyPair } from "../../../src/apiserver/certs/keys.ts";
import type { RunningServer } from "../../../src/apiserver/server/server.ts";
import { Secrets } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { FakeClock } from "../../../src/utils/clock.ts";
import { startInProcessApiServer } from "../../support/inprocess.ts";
import { writeTokenKubeconfig } from "../../support/kubeconfig.ts";

export interface Env {
  dir: string;
  server: RunningServer;
  clock: FakeClock;
  admin: Client;
  /** A bootstrap token Secret (expiring at `expiration`) and a kubeconfig using it. */
  bootstrapToken(expiration?: Date, extraGroups?: string[]): Promise<{ id: string; token: string; kubeconfig: string; client: Client }>;
  /** A kubeconfig authenticating with the certificate and key. */
  certKubeconfig(name: string, certPem: string, keyPem: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startEnv(extra: string[] = []): Promise<Env> {
  const dir = mkdtempSync(join(tmpdir(), "nodeboot-it-"));
  const clock = new FakeClock(Math.floor(Date.now() / 1000) * 1000);
  const api = await startInProcessApiServer({ dataDir: join(dir, "server"), flags: ["--enable-bootstrap-token-auth", ...extra], clock });
  const { server, admin } = api;
  const clients: Client[] = [];
  let n = 0;
  return {
    dir,
    server,
    clock,
    admin,
    async bootstrapToken(expiration, extraGroups) {
      const t = generateBootstrapToken();
      await admin.create(Secrets, bootstrapTokenSecret({ id: t.id, secret: t.secret, expiration, extraGroups }));
      const kubeconfig = writeTokenKubeconfig(server.adminKubeconfigPath, join(dir, `bootstrap-${t.id}.kubeconfig`), "bootstrap", t.token);
      const client = Client.fromKubeconfigFile(kubeconfig, { fieldManager: "test" });
      clients.push(client);
      return { id: t.id, token: t.token, kubeconfig, client };
    },
    async certKubeconfig(name, certPem, keyPem) {
      const path = join(dir, `${name}-${n++}.kubeconfig`);
      await writeKubeconfig(path, { server: server.url, caPem: server.caPem, clusterName: "test", userName: name, user: { certPem, keyPem } });
      return path;
    },
    async stop() {
      for (const c of clients) c.close();
      await api.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Who the client is, as the server sees it (SelfSubjectReview). */
export async function whoami(client: Client): Promise<{ username: string; groups: string[] }> {
  const review = await client.transport.request<{ status: { userInfo: { username: string; groups: string[] } } }>({
    method: "POST",
    path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
  });
  return review.status.userInfo;
}

export interface CSRInput {
  cn: string;
  o?: string[];
  dns?: string[];
  ips?: string[];
  signer: string;
  usages: string[];
  name?: string;
  expirationSeconds?: number;
}

let seq = 0;

/** A CSR object (and its private key) for the given subject. */
export async function makeCSR(i: CSRInput): Promise<{ csr: CertificateSigningRequest; keyPem: string }> {
  const keys = await generateKeyPair(EC_P256);
  const names = [...(i.dns ?? []).map((value) => ({ type: "dns" as const, value })), ...(i.ips ?? []).map((value) => ({ type: "ip" as const, value }))];
  const req = await x509.Pkcs10CertificateRequestGenerator.create(
    { name: [...(i.o ?? []).map((o) => ({ O: [o] })), { CN: [i.cn] }], keys, signingAlgorithm: EC_P256, extensions: names.length ? [new x509.SubjectAlternativeNameExtension(names)] : [] },
  );
  const csr: CertificateSigningRequest = {
    metadata: { name: i.name ?? `csr-${process.pid}-${seq++}` },
    spec: {
      request: Buffer.from(req.toString("pem")).toString("base64"),
      signerName: i.signer,
      usages: i.usages as CertificateSigningRequest["spec"]["usages"],
      ...(i.expirationSeconds ? { expirationSeconds: i.expirationSeconds } : {}),
    },
  };
  return { csr, keyPem: (await exportKeyPairPem(keys)).privateKeyPem };
}
