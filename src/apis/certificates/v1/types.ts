// certificates.k8s.io/v1: CertificateSigningRequest (cluster-scoped; spec.request and
// status.certificate are base64 of PEM, as Go's []byte fields serialise).
import type { KubeObject } from "../../meta/v1/types.ts";

export const GROUP = "certificates.k8s.io";
export const VERSION = "v1";
export const API_VERSION = "certificates.k8s.io/v1";

/** Signer of kubelet client certificates (CN system:node:<name>, O system:nodes). */
export const SIGNER_KUBELET_CLIENT = "kubernetes.io/kube-apiserver-client-kubelet";
/** Signer of kubelet serving certificates. */
export const SIGNER_KUBELET_SERVING = "kubernetes.io/kubelet-serving";
/** Signer of other client certificates for the API server. */
export const SIGNER_APISERVER_CLIENT = "kubernetes.io/kube-apiserver-client";
export const SIGNER_LEGACY_UNKNOWN = "kubernetes.io/legacy-unknown";

export type KeyUsage =
  | "signing"
  | "digital signature"
  | "content commitment"
  | "key encipherment"
  | "key agreement"
  | "data encipherment"
  | "cert sign"
  | "crl sign"
  | "encipher only"
  | "decipher only"
  | "any"
  | "server auth"
  | "client auth"
  | "code signing"
  | "email protection"
  | "s/mime"
  | "ipsec end system"
  | "ipsec tunnel"
  | "ipsec user"
  | "timestamping"
  | "ocsp signing"
  | "microsoft sgc"
  | "netscape sgc";

export const KEY_USAGES: readonly KeyUsage[] = [
  "signing",
  "digital signature",
  "content commitment",
  "key encipherment",
  "key agreement",
  "data encipherment",
  "cert sign",
  "crl sign",
  "encipher only",
  "decipher only",
  "any",
  "server auth",
  "client auth",
  "code signing",
  "email protection",
  "s/mime",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "timestamping",
  "ocsp signing",
  "microsoft sgc",
  "netscape sgc",
];

export interface CertificateSigningRequestSpec {
  /** base64 of a PEM "CERTIFICATE REQUEST". */
  request: string;
  signerName: string;
  expirationSeconds?: number;
  usages?: KeyUsage[];
  /** Set by the server from the requesting user; never from the body. */
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export type CSRConditionType = "Approved" | "Denied" | "Failed";

export interface CertificateSigningRequestCondition {
  type: CSRConditionType | string;
  status: "True" | "False" | "Unknown";
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CertificateSigningRequestStatus {
  conditions?: CertificateSigningRequestCondition[];
  /** base64 of PEM certificates, issued certificate first. */
  certificate?: string;
}

export interface CertificateSigningRequest extends KubeObject {
  spec: CertificateSigningRequestSpec;
  status?: CertificateSigningRequestStatus;
}
