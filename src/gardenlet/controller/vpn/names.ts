// Names and labels of the gardenlet's VPN objects (docs/reversed-vpn.md#gardenlet), as Gardener names them.

export {
  SECRET_CA, SECRET_CA_OLD, SECRET_CA_BUNDLE, SECRET_SERVER, SECRET_TLS_AUTH, SECRET_EGRESS_CLIENT,
  SHOOT_NAMESPACE, SHOOT_SECRET_CA, SHOOT_SECRET_TLS_AUTH, SHOOT_CLIENT, shootClientNames,
  DATA_CA_CERT, DATA_CA_KEY, DATA_BUNDLE, DATA_TLS_CERT, DATA_TLS_KEY, DATA_TLS_AUTH,
  VPN_SHOOT_LABELS, VPN_SHOOT_HEALTH_PORT,
} from "../../../api/gardencore/vpnsecrets.ts";

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
