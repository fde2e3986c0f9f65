// The dashboard's terminal configuration (docs/dashboard.md#terminals): images, the garden's API
// server as terminals' kubeconfigs name it, the operators' garden terminal host and credentials, and
// the time bounds of `fetch`.
import { isRecord } from "../../utils/guards.ts";
import type { ClusterCredentials, ShootRef, TerminalRoleBinding } from "../../apis/dashboard/v1alpha1/types.ts";

export interface TerminalConfig {
  /** The garden API server the dashboard talks to as the user (and its CA, PEM). */
  garden: { url: string; caPem?: string };
  /** The garden API server as terminal pods reach it (the kubeconfig's `server` for target `garden`). */
  gardenApiServerUrl: string;
  container: { image: string };
  containerOperator: { image: string };
  /** Where operators' garden terminals run: a shoot, or a seed that is a ManagedSeed. */
  gardenTerminalHost?: { shootRef?: ShootRef; seedRef?: { name: string } };
  /**
   * Seeds that are not ManagedSeeds but host terminals (docs/dashboard.md#seed-hosts): seed name ->
   * a kubeconfig Secret in the garden, the host credential in place of a ManagedSeed's shoot.
   */
  seedHosts?: Record<string, { secretRef: { namespace: string; name: string } }>;
  operatorCredentials: ClusterCredentials;
  operatorRoleBindings: TerminalRoleBinding[];
  readyTimeoutSeconds: number;
  serviceAccountTokenExpiration: number;
}

export function terminalConfig(base: Pick<TerminalConfig, "garden"> & Partial<TerminalConfig>): TerminalConfig {
  return {
    gardenApiServerUrl: base.garden.url,
    container: { image: "busybox:1.36" },
    containerOperator: { image: "busybox:1.36" },
    operatorCredentials: { serviceAccountRef: { name: "dashboard-terminal-admin", namespace: "garden" } },
    operatorRoleBindings: [{ nameSuffix: "", bindingKind: "ClusterRoleBinding", roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "gardener.cloud:system:administrators" } }],
    readyTimeoutSeconds: 30,
    serviceAccountTokenExpiration: 43200,
    ...base,
  };
}

type FileConfig = Partial<Pick<TerminalConfig, "gardenTerminalHost" | "seedHosts" | "gardenApiServerUrl" | "container" | "containerOperator" | "readyTimeoutSeconds">>;
const isName = (v: unknown): v is string => typeof v === "string" && /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(v);

/**
 * The dashboard's `--terminal-config` file (JSON or YAML, parsed by the caller): `gardenTerminalHost`,
 * `seedHosts`, `gardenApiServerUrl`, `container`, `containerOperator`, `readyTimeoutSeconds`. Unknown
 * keys and malformed entries are errors, so a typo does not silently leave a seed without host.
 */
export function terminalConfigFromFile(doc: unknown): FileConfig {
  if (!isRecord(doc)) throw new Error("the terminal configuration must be a mapping");
  const known = new Set(["gardenTerminalHost", "seedHosts", "gardenApiServerUrl", "container", "containerOperator", "readyTimeoutSeconds"]);
  for (const k of Object.keys(doc)) if (!known.has(k)) throw new Error(`unknown terminal configuration key ${JSON.stringify(k)}`);
  const out: FileConfig = {};
  if (doc.seedHosts !== undefined) out.seedHosts = seedHostsOf(doc.seedHosts);
  if (doc.gardenTerminalHost !== undefined) out.gardenTerminalHost = gardenTerminalHostOf(doc.gardenTerminalHost);
  if (doc.gardenApiServerUrl !== undefined) {
    if (typeof doc.gardenApiServerUrl !== "string" || !/^https:\/\/[^\s]+$/.test(doc.gardenApiServerUrl)) throw new Error("gardenApiServerUrl must be an https URL");
    out.gardenApiServerUrl = doc.gardenApiServerUrl;
  }
  for (const k of ["container", "containerOperator"] as const) {
    const v = doc[k];
    if (v === undefined) continue;
    if (!isRecord(v) || typeof v.image !== "string" || !v.image) throw new Error(`${k} needs an image`);
    out[k] = { image: v.image };
  }
  if (doc.readyTimeoutSeconds !== undefined) {
    const t = doc.readyTimeoutSeconds;
    if (typeof t !== "number" || !Number.isInteger(t) || t < 1 || t > 600) throw new Error("readyTimeoutSeconds must be a whole number of seconds from 1 to 600");
    out.readyTimeoutSeconds = t;
  }
  return out;
}

function seedHostsOf(v: unknown): NonNullable<FileConfig["seedHosts"]> {
  if (!isRecord(v)) throw new Error("seedHosts must map seed names to {secretRef: {namespace, name}}");
  const out: NonNullable<FileConfig["seedHosts"]> = {};
  for (const [seed, host] of Object.entries(v)) {
    const ref = isRecord(host) && isRecord(host.secretRef) ? host.secretRef : undefined;
    if (!isName(seed) || !ref || !isName(ref.namespace) || !isName(ref.name)) throw new Error(`seedHosts.${seed}: needs secretRef with a namespace and a name`);
    out[seed] = { secretRef: { namespace: ref.namespace, name: ref.name } };
  }
  return out;
}

function gardenTerminalHostOf(h: unknown): NonNullable<FileConfig["gardenTerminalHost"]> {
  const seed = isRecord(h) && isRecord(h.seedRef) ? h.seedRef.name : undefined;
  const shoot = isRecord(h) && isRecord(h.shootRef) ? h.shootRef : undefined;
  if (isName(seed)) return { seedRef: { name: seed } };
  if (shoot && isName(shoot.name) && (shoot.namespace === undefined || isName(shoot.namespace))) return { shootRef: { namespace: (shoot.namespace as string | undefined) ?? "garden", name: shoot.name } };
  throw new Error("gardenTerminalHost needs seedRef.name or shootRef.name");
}
