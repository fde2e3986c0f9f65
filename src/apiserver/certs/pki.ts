// The API server's PKI in its data directory, created on first start and reused afterwards:
//   ca.crt/ca.key            self-signed CA (10 years), signs serving and client certificates
//   apiserver.crt/.key       serving certificate (1 year), SANs localhost, 127.0.0.1, ::1 + hosts
//   sa.key/sa.pub            service-account token signing key pair
//   admin.crt/.key           client certificate CN=system:admin, O=system:masters
//   scheduler.crt/.key       client certificate CN=system:kube-scheduler (the scheduler's identity)
//   apiserver-kubelet-client.crt/.key  client certificate CN=system:kube-apiserver:kubelet (to kubelets)
// A serving or client certificate is re-issued when it is missing, not signed by the CA, close to
// expiry, or (serving) its SANs differ from the wanted hosts.
import { X509Certificate, createPrivateKey, createPublicKey } from "node:crypto";
import { mkdir, readFile, rename, writeFile, chmod } from "node:fs/promises";
import { join } from "node:path";
import {
  type CertificateAuthority,
  type IssuedCertificate,
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
} from "./issue.ts";
import { exportKeyPairPem, generateKeyPair } from "./keys.ts";

export const DEFAULT_SERVING_HOSTS = ["localhost", "127.0.0.1", "::1"];
export const ADMIN_USER = "system:admin";
export const ADMIN_GROUP = "system:masters";
/** The scheduler's user (upstream's user.KubeScheduler), bound to ClusterRole system:kube-scheduler. */
export const SCHEDULER_USER = "system:kube-scheduler";
/** The identity the API server presents to kubelets (Gardener's kube-apiserver-kubelet secret). */
export const KUBELET_CLIENT_USER = "system:kube-apiserver:kubelet";
/** Leaf certificates expiring sooner than this are re-issued on start. */
const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

export interface PemFiles {
  certPem: string;
  keyPem: string;
  certPath: string;
  keyPath: string;
}

export interface Pki {
  dir: string;
  ca: PemFiles;
  serving: PemFiles;
  admin: PemFiles;
  scheduler: PemFiles;
  kubeletClient: PemFiles;
  serviceAccount: { privateKeyPem: string; publicKeyPem: string; privateKeyPath: string; publicKeyPath: string };
}

export interface EnsurePkiOptions {
  /** Extra DNS names / IPs for the serving certificate (besides localhost, 127.0.0.1, ::1). */
  hosts?: string[];
  now?: Date;
}

export async function ensurePki(dir: string, opts: EnsurePkiOptions = {}): Promise<Pki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const now = opts.now ?? new Date();
  const p = (f: string) => join(dir, f);

  let ca = await readPair(p("ca.crt"), p("ca.key"));
  let caNew = false;
  if (!ca || !validAt(ca.certPem, now, 0)) {
    ca = await createCertificateAuthority({ now });
    await writePair(p("ca.crt"), p("ca.key"), ca);
    caNew = true;
  }

  const hosts = servingHosts(opts.hosts ?? []);
  let serving = await readPair(p("apiserver.crt"), p("apiserver.key"));
  if (caNew || !serving || !leafOk(serving.certPem, ca, now) || !sameSet(sansOf(serving.certPem), hosts)) {
    serving = await issueServingCertificate(ca, { hosts, commonName: "gardener-apiserver", now });
    await writePair(p("apiserver.crt"), p("apiserver.key"), serving);
  }

  let admin = await readPair(p("admin.crt"), p("admin.key"));
  if (caNew || !admin || !leafOk(admin.certPem, ca, now)) {
    admin = await issueClientCertificate(ca, { commonName: ADMIN_USER, organizations: [ADMIN_GROUP], now });
    await writePair(p("admin.crt"), p("admin.key"), admin);
  }

  let scheduler = await readPair(p("scheduler.crt"), p("scheduler.key"));
  if (caNew || !scheduler || !leafOk(scheduler.certPem, ca, now)) {
    scheduler = await issueClientCertificate(ca, { commonName: SCHEDULER_USER, organizations: [], now });
    await writePair(p("scheduler.crt"), p("scheduler.key"), scheduler);
  }

  let kubeletClient = await readPair(p("apiserver-kubelet-client.crt"), p("apiserver-kubelet-client.key"));
  if (caNew || !kubeletClient || !leafOk(kubeletClient.certPem, ca, now)) {
    kubeletClient = await issueClientCertificate(ca, { commonName: KUBELET_CLIENT_USER, now });
    await writePair(p("apiserver-kubelet-client.crt"), p("apiserver-kubelet-client.key"), kubeletClient);
  }

  let saPriv = await readText(p("sa.key"));
  let saPub = await readText(p("sa.pub"));
  if (!saPriv || !saPub || !keyPairMatches(saPriv, saPub)) {
    const pems = await exportKeyPairPem(await generateKeyPair());
    saPriv = pems.privateKeyPem;
    saPub = pems.publicKeyPem;
    await writeAtomic(p("sa.key"), saPriv, 0o600);
    await writeAtomic(p("sa.pub"), saPub, 0o644);
  }

  const files = (base: string, pair: IssuedCertificate): PemFiles => ({
    ...pair,
    certPath: p(`${base}.crt`),
    keyPath: p(`${base}.key`),
  });
  return {
    dir,
    ca: files("ca", ca),
    serving: files("apiserver", serving),
    admin: files("admin", admin),
    scheduler: files("scheduler", scheduler),
    kubeletClient: files("apiserver-kubelet-client", kubeletClient),
    serviceAccount: { privateKeyPem: saPriv, publicKeyPem: saPub, privateKeyPath: p("sa.key"), publicKeyPath: p("sa.pub") },
  };
}

/** localhost, 127.0.0.1, ::1 and the given hosts, de-duplicated, in that order. */
export function servingHosts(extra: string[]): string[] {
  return [...new Set([...DEFAULT_SERVING_HOSTS, ...extra.filter((h) => h !== "")])];
}

/** SAN entries of a certificate as plain strings (DNS names and IPs). */
export function sansOf(certPem: string): string[] {
  const san = new X509Certificate(certPem).subjectAltName ?? "";
  return san
    .split(", ")
    .filter((s) => s.startsWith("DNS:") || s.startsWith("IP Address:"))
    .map((s) => normaliseIp(s.slice(s.indexOf(":") + 1)));
}

// Node prints IPv6 SANs expanded and upper case ("0:0:0:0:0:0:0:1"); compare in a canonical form.
function normaliseIp(s: string): string {
  if (!s.includes(":")) return s;
  try {
    return new URL(`http://[${s}]/`).hostname.slice(1, -1);
  } catch {
    return s;
  }
}

function sameSet(a: string[], b: string[]): boolean {
  const sa = new Set(a.map(normaliseIp));
  const sb = new Set(b.map(normaliseIp));
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

function validAt(certPem: string, now: Date, marginMs: number): boolean {
  try {
    const c = new X509Certificate(certPem);
    return new Date(c.validTo).getTime() - marginMs > now.getTime();
  } catch {
    return false;
  }
}

function leafOk(certPem: string, ca: CertificateAuthority, now: Date): boolean {
  try {
    const leaf = new X509Certificate(certPem);
    const caCert = new X509Certificate(ca.certPem);
    return leaf.checkIssued(caCert) && leaf.verify(caCert.publicKey) && validAt(certPem, now, RENEW_BEFORE_MS);
  } catch {
    return false;
  }
}

function keyPairMatches(privPem: string, pubPem: string): boolean {
  try {
    const derived = createPublicKey(createPrivateKey(privPem)).export({ format: "der", type: "spki" });
    const given = createPublicKey(pubPem).export({ format: "der", type: "spki" });
    return derived.equals(given);
  } catch {
    return false;
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

async function readPair(certPath: string, keyPath: string): Promise<IssuedCertificate | undefined> {
  const certPem = await readText(certPath);
  const keyPem = await readText(keyPath);
  if (!certPem || !keyPem) return undefined;
  return { certPem, keyPem };
}

async function writePair(certPath: string, keyPath: string, pair: IssuedCertificate): Promise<void> {
  await writeAtomic(keyPath, pair.keyPem, 0o600);
  await writeAtomic(certPath, pair.certPem, 0o644);
}

/** Writes via a temporary file and rename, so a crash never leaves a half-written key. */
export async function writeAtomic(path: string, data: string, mode: number): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, data, { mode });
  await chmod(tmp, mode);
  await rename(tmp, path);
}
