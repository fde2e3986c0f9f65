// When the gardenlet renews a VPN certificate (docs/reversed-vpn.md#gardenlet): Gardener's secrets-manager
// rule (once 80 % of the validity has passed or less than 10 days remain), and whether a certificate was
// signed by the current CA. Decided from the stored certificate itself, never from labels.
import { X509Certificate } from "node:crypto";

const DAY_MS = 24 * 60 * 60 * 1000;
export const RENEW_FRACTION = 0.8;
export const RENEW_REMAINING_MS = 10 * DAY_MS;

export interface PemPair {
  certPem: string;
  keyPem: string;
}

/** The issuer of the VPN's certificates and keys (src/vpn/credentials.ts' vpnIssuer; tests pass faster keys). */
export interface VpnIssuer {
  /** The per-shoot CA, CN `vpn-<issued at>-<random>` (distinct subjects in a rotation's bundle), 10 years. */
  ca(now: Date): Promise<PemPair>;
  /** `vpn-seed-server`: serverAuth, the DNS names of the namespace and the given addresses as IP SANs. */
  server(ca: PemPair, o: { namespace: string; addresses: readonly string[] }, now: Date): Promise<PemPair>;
  /** A client certificate (clientAuth) with this CN. */
  client(ca: PemPair, commonName: string, now: Date): Promise<PemPair>;
  /** A tls-auth key in `openvpn --genkey secret` format. */
  tlsAuth(): string;
}

export interface Validity {
  notBeforeMs: number;
  notAfterMs: number;
}

function parse(pem: string | undefined): X509Certificate | undefined {
  if (!pem || pem.length > 64 * 1024) return undefined;
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}

export function validityOf(certPem: string | undefined): Validity | undefined {
  const c = parse(certPem);
  if (!c) return undefined;
  const notBeforeMs = Date.parse(c.validFrom);
  const notAfterMs = Date.parse(c.validTo);
  return Number.isNaN(notBeforeMs) || Number.isNaN(notAfterMs) ? undefined : { notBeforeMs, notAfterMs };
}

/** The time from which the certificate must be renewed. */
export function renewAtMs(v: Validity): number {
  return Math.min(v.notBeforeMs + RENEW_FRACTION * (v.notAfterMs - v.notBeforeMs), v.notAfterMs - RENEW_REMAINING_MS);
}

/** True when the certificate is unreadable or due for renewal at nowMs. */
export function mustRenew(certPem: string | undefined, nowMs: number): boolean {
  const v = validityOf(certPem);
  return v === undefined || nowMs >= renewAtMs(v);
}

/** True when `certPem` was issued and signed by the CA `caPem`. */
export function signedBy(certPem: string | undefined, caPem: string | undefined): boolean {
  const cert = parse(certPem);
  const ca = parse(caPem);
  if (!cert || !ca) return false;
  try {
    return cert.checkIssued(ca) && cert.verify(ca.publicKey);
  } catch {
    return false;
  }
}

const TLS_AUTH = /^-----BEGIN OpenVPN Static key V1-----\n(?:[0-9a-f]{32}\n){16}-----END OpenVPN Static key V1-----\n?$/;

/** A tls-auth key in `openvpn --genkey secret` format (16 lines of 32 lowercase hex digits). */
export function isTlsAuthKey(s: string | undefined): boolean {
  return s !== undefined && s.length < 1024 && TLS_AUTH.test(s);
}
