// The names of the reversed VPN's Secrets and ConfigMap (docs/reversed-vpn.md#gardenlet), as Gardener names
// them: the gardenlet writes them, and whoever deploys the VPN's processes (the landscape) reads them.

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

/** The shoot API server's egress selector configuration, in the control-plane namespace. */
export const EGRESS_CONFIGMAP = "kube-apiserver-egress-selector-config";
export const EGRESS_CONFIG_KEY = "egress-selector-configuration.yaml";
/** Where the shoot API server finds the VPN Secrets: `<dir>/<secret name>/<key>`, as Secret volumes are mounted. */
export const DEFAULT_EGRESS_SECRETS_DIR = "/srv/kubernetes/vpn";

/**
 * The vpn-shoot Pod in the shoot's kube-system (Gardener's labels): the tunnel check finds it by these labels and
 * asks its health port through the shoot API server's pods/proxy; whoever runs the vpn-shoot-client writes it.
 */
export const VPN_SHOOT_POD = "vpn-shoot";
export const VPN_SHOOT_LABELS: Readonly<Record<string, string>> = { app: "vpn-shoot", type: "tunnel" };
export const VPN_SHOOT_HEALTH_PORT = 8080;
