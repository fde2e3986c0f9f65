// The extension Bastion the gardenlet wants for a garden Bastion, and what the existing one says
// (docs/bastion.md#reconcile steps 3-4, docs/bastion.md#status-sync), pure.
import type { ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import type { Bastion, BastionIngressPolicy, LoadBalancerIngress } from "../../../apis/operations/v1alpha1/types.ts";
import { semanticEqual } from "../../../api/equality.ts";
import { bastionUserDataBase64 } from "../../../api/extensions/userdata.ts";

export interface DesiredSpec {
  type: string;
  userData: string;
  ingress: BastionIngressPolicy[];
}

export function desiredSpec(bastion: Bastion): DesiredSpec {
  const type = bastion.spec.providerType;
  if (!type) throw new Error(`bastion ${bastion.metadata.namespace}/${bastion.metadata.name} has no spec.providerType`);
  const ingress = (bastion.spec.ingress ?? []).map((i) => ({
    ipBlock: { cidr: i.ipBlock.cidr, ...(i.ipBlock.except !== undefined ? { except: [...i.ipBlock.except] } : {}) },
  }));
  return { type, userData: bastionUserDataBase64(bastion.spec.sshPublicKey), ingress };
}

export interface Observation {
  mustCreate: boolean;
  mustPatch: boolean;
  /** Why the extension is not (yet) ready, if it says so. */
  observedError?: string;
  /** The codes of the extension's lastError (e.g. ERR_CONFIGURATION_PROBLEM: retrying will not help). */
  observedCodes?: string[];
}

export function observe(ext: ExtensionBastion | undefined, desired: DesiredSpec): Observation {
  if (!ext) return { mustCreate: true, mustPatch: false };
  const spec = ext.spec ?? ({} as ExtensionBastion["spec"]);
  let mustPatch =
    spec.type !== desired.type || spec.userData !== desired.userData || !semanticEqual(spec.ingress, desired.ingress) || spec.providerConfig !== undefined;
  const last = ext.status?.lastOperation;
  const lastError = ext.status?.lastError;
  let observedError: string | undefined;
  if (!last) observedError = "extension did not record a last operation yet";
  else if (lastError || last.state === "Error" || last.state === "Failed") {
    observedError = lastError ? `error during reconciliation: ${lastError.description}` : `extension state is not Succeeded but ${last.state}`;
  }
  if (last?.state === "Failed") mustPatch = true;
  const codes = observedError !== undefined ? (lastError?.codes ?? []).filter((c): c is string => typeof c === "string") : [];
  return { mustCreate: false, mustPatch, ...(observedError !== undefined ? { observedError } : {}), ...(codes.length > 0 ? { observedCodes: codes } : {}) };
}

/** A merge-patch value replacing `status.ingress` wholly (known fields absent in `next` become null). */
export function ingressPatch(next: LoadBalancerIngress | undefined): Record<string, unknown> | null {
  if (!next) return null;
  return { ip: null, hostname: null, ipMode: null, ports: null, ...next };
}

/** `providerStatus.sshHostKeys` when it is a list of strings. */
export function hostKeysOf(ext: ExtensionBastion): string[] | undefined {
  const keys = ext.status?.providerStatus?.sshHostKeys;
  return Array.isArray(keys) && keys.every((k) => typeof k === "string") ? [...(keys as string[])] : undefined;
}
