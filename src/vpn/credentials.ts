// The VPN credentials of one shoot (docs/reversed-vpn.md#certificates): a per-shoot CA (CN `vpn-<issued at>-<random>`), the
// vpn-seed-server's serving certificate, the vpn-shoot-client's client certificate(s), the shoot API
// server's egress client certificate and the tls-auth key.
import { randomBytes } from "node:crypto";
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
  type CertificateAuthority,
  type IssuedCertificate,
} from "../apiserver/certs/issue.ts";
import type { KeyAlgorithm } from "../apiserver/certs/keys.ts";
import { EGRESS_CLIENT_CN } from "./egressproxy.ts";
import { SEED_SERVER_CN, SHOOT_CLIENT_CN, generateTlsAuthKey, haName } from "./openvpn-config.ts";

/** Gardener's VPN keys: RSA 3072. */
export const VPN_KEY_ALGORITHM: KeyAlgorithm = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256", modulusLength: 3072, publicExponent: new Uint8Array([1, 0, 1]) };

export interface VpnCredentials {
  ca: CertificateAuthority;
  /** The CA bundle (the current CA, plus the old one during rotation). */
  bundle: string;
  server: IssuedCertificate;
  /** Plain mode: one entry `vpn-shoot-client`; HA: `vpn-shoot-client-0` and `-1`. */
  clients: Record<string, IssuedCertificate>;
  egressClient: IssuedCertificate;
  tlsAuth: string;
}

export interface CredentialOptions {
  /** The control-plane namespace, for the server's DNS names. */
  namespace: string;
  /** The VPN namespace's addresses (IP SANs of the server certificate). */
  serverAddresses: readonly string[];
  /** HA: two client certificates. */
  highAvailability?: boolean;
  /** Default RSA 3072; tests may pass a faster algorithm. */
  alg?: KeyAlgorithm;
  now?: Date;
}

export function clientNames(highAvailability = false): string[] {
  return highAvailability ? [haName(SHOOT_CLIENT_CN, 0), haName(SHOOT_CLIENT_CN, 1)] : [SHOOT_CLIENT_CN];
}

/**
 * The CA's CN: `vpn-<issued at, unix seconds>-<4 random hex digits>`. During a CA rotation the bundle holds the
 * old and the new CA, and an OpenVPN server refuses a CA file in which two certificates share a subject name
 * ("only 1 of 2 entries were valid X509 names").
 */
export function caCommonName(now: Date): string {
  return `vpn-${Math.floor(now.getTime() / 1000)}-${randomBytes(2).toString("hex")}`;
}

/**
 * The VPN's certificate contents, one certificate at a time: what the gardenlet's VPN controller issues and
 * renews (docs/reversed-vpn.md#gardenlet), and what issueVpnCredentials issues at once.
 */
export function vpnIssuer(alg: KeyAlgorithm = VPN_KEY_ALGORITHM) {
  return {
    ca: (now: Date): Promise<CertificateAuthority> => createCertificateAuthority({ commonName: caCommonName(now), days: 3650, alg, now }),
    server(ca: CertificateAuthority, o: { namespace: string; addresses: readonly string[] }, now: Date): Promise<IssuedCertificate> {
      const dns = [SEED_SERVER_CN, `${SEED_SERVER_CN}.${o.namespace}`, `${SEED_SERVER_CN}.${o.namespace}.svc`, `${SEED_SERVER_CN}.${o.namespace}.svc.cluster.local`];
      return issueServingCertificate(ca, { commonName: SEED_SERVER_CN, hosts: [...dns, ...o.addresses], alg, now });
    },
    client: (ca: CertificateAuthority, commonName: string, now: Date): Promise<IssuedCertificate> => issueClientCertificate(ca, { commonName, alg, now }),
    tlsAuth: (): string => generateTlsAuthKey(),
  };
}

export async function issueVpnCredentials(o: CredentialOptions): Promise<VpnCredentials> {
  const issuer = vpnIssuer(o.alg);
  const now = o.now ?? new Date();
  const ca = await issuer.ca(now);
  const [server, egressClient, ...clientCerts] = await Promise.all([
    issuer.server(ca, { namespace: o.namespace, addresses: o.serverAddresses }, now),
    issuer.client(ca, EGRESS_CLIENT_CN, now),
    ...clientNames(o.highAvailability).map((cn) => issuer.client(ca, cn, now)),
  ]);
  const clients: Record<string, IssuedCertificate> = {};
  clientNames(o.highAvailability).forEach((cn, i) => (clients[cn] = clientCerts[i]!));
  return { ca, bundle: ca.certPem, server: server!, clients, egressClient: egressClient!, tlsAuth: issuer.tlsAuth() };
}
