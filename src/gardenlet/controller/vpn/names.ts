// Names and labels of the gardenlet's VPN objects (docs/reversed-vpn.md#gardenlet), as Gardener names them.

/** Seed, control-plane namespace. */
export const SECRET_CA = "ca-vpn";
/** The previous CA while a CA rotation is prepared. */
export const SECRET_CA_OLD = "ca-vpn-old";
export const SECRET_CA_BUNDLE = "ca-vpn-bundle";
export const SECRET_SERVER = "vpn-seed-server";
export const SECRET_TLS_AUTH = "vpn-seed-server-tlsauth";
export const SECRET_EGRESS_CLIENT = "kube-apiserver-http-proxy-client";
/** Shoot, kube-system. */
export const SHOOT_NAMESPACE = "kube-system";
export const SHOOT_SECRET_CA = "vpn-shoot-ca";
export const SHOOT_SECRET_TLS_AUTH = "vpn-shoot-tlsauth";
export const SHOOT_CLIENT = "vpn-shoot-client";

/** The vpn-shoot-client certificate(s): `vpn-shoot-client`, or in HA `vpn-shoot-client-0` and `-1`. */
export function shootClientNames(ha: boolean): string[] {
  return ha ? [`${SHOOT_CLIENT}-0`, `${SHOOT_CLIENT}-1`] : [SHOOT_CLIENT];
}

export const DATA_CA_CERT = "ca.crt";
export const DATA_CA_KEY = "ca.key";
export const DATA_BUNDLE = "bundle.crt";
export const DATA_TLS_CERT = "tls.crt";
export const DATA_TLS_KEY = "tls.key";
export const DATA_TLS_AUTH = "vpn.tlsauth";

/** Gardener's secrets-manager labels. */
export const LABEL_NAME = "name";
export const LABEL_MANAGED_BY = "managed-by";
export const MANAGED_BY = "secrets-manager";
export const LABEL_MANAGER_IDENTITY = "manager-identity";
export const MANAGER_IDENTITY = "gardenlet";
export const LABEL_CHECKSUM = "checksum-of-config";
export const LABEL_ISSUED_AT = "issued-at-time";
export const LABEL_VALID_UNTIL = "valid-until-time";
export const LABEL_LAST_ROTATION_INITIATION = "last-rotation-initiation-time";

/** The vpn-seed-server's Services and Endpoints. */
export const LABEL_APP = "app";
export const APP_SEED_SERVER = "vpn-seed-server";
export const PORT_OPENVPN = 1194;
export const PORT_EGRESS = 9443;
export const PORT_METRICS = 15000;
