// Shoot predicates of the reversed VPN (docs/reversed-vpn.md#gardenlet): whether a shoot's VPN runs in
// HA mode and which shoot ranges the tunnel carries. They tolerate partial objects.

/** Overrides the control plane's failure tolerance for the VPN: "true" or "false". */
export const ANNOTATION_HA_VPN = "alpha.control-plane.shoot.gardener.cloud/high-availability-vpn";

/** Gardener's defaults of `spec.networking.nodes`, `.pods` and `.services`. */
export const DEFAULT_SHOOT_NODES = "10.250.0.0/16";
export const DEFAULT_SHOOT_PODS = "100.96.0.0/11";
export const DEFAULT_SHOOT_SERVICES = "100.64.0.0/13";

function field(obj: unknown, ...path: string[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/**
 * HA is on when `spec.controlPlane.highAvailability.failureTolerance.type` is `node` or `zone`; the
 * annotation `alpha.control-plane.shoot.gardener.cloud/high-availability-vpn` ("true" | "false") overrides it.
 */
export function isVpnHighAvailability(shoot: object): boolean {
  const annotation = field(shoot, "metadata", "annotations", ANNOTATION_HA_VPN);
  if (annotation === "true") return true;
  if (annotation === "false") return false;
  const type = field(shoot, "spec", "controlPlane", "highAvailability", "failureTolerance", "type");
  return type === "node" || type === "zone";
}

/** The shoot's node, pod and service ranges (Gardener's defaults where unset), de-duplicated. */
export function vpnShootRanges(shoot: object): string[] {
  const pick = (name: string, fallback: string): string => {
    const v = field(shoot, "spec", "networking", name);
    return typeof v === "string" && v !== "" ? v : fallback;
  };
  return [...new Set([pick("nodes", DEFAULT_SHOOT_NODES), pick("pods", DEFAULT_SHOOT_PODS), pick("services", DEFAULT_SHOOT_SERVICES)])];
}

/** Workerless shoots get no VPN. */
export function hasWorkers(shoot: object): boolean {
  const workers = field(shoot, "spec", "provider", "workers");
  return Array.isArray(workers) && workers.length > 0;
}

export type CARotationPhase = "Preparing" | "Prepared" | "Completing" | "Completed";

/**
 * The shoot's CA rotation as the VPN credentials follow it (`status.credentials.rotation.certificateAuthorities`):
 * `prepared` while old and new CA are both trusted (Preparing, Prepared), `initiation` names the rotation
 * (its lastInitiationTime). Undefined without a rotation.
 */
export function caRotation(shoot: object): { phase: CARotationPhase; initiation: string; prepared: boolean } | undefined {
  const phase = field(shoot, "status", "credentials", "rotation", "certificateAuthorities", "phase");
  const initiation = field(shoot, "status", "credentials", "rotation", "certificateAuthorities", "lastInitiationTime");
  if (phase !== "Preparing" && phase !== "Prepared" && phase !== "Completing" && phase !== "Completed") return undefined;
  return { phase, initiation: typeof initiation === "string" ? initiation : "", prepared: phase === "Preparing" || phase === "Prepared" };
}
