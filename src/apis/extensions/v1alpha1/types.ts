// extensions.gardener.cloud/v1alpha1 Bastion and Cluster (docs/bastion.md#cluster, docs/bastion.md#the-seed-bastion, docs/bastion.md#extension-contract): the
// seed-side kinds, shipped as CRDs (manifests/crds/). Field names are Gardener's.
import type { KubeObject } from "../../meta/v1/types.ts";
import type { Condition } from "../../gardencore/v1beta1/types.ts";
import type { BastionIngressPolicy, LoadBalancerIngress } from "../../operations/v1alpha1/types.ts";

export const GROUP = "extensions.gardener.cloud";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;

/** Finalizer of the extension library's generic bastion reconciler. */
export const FINALIZER_BASTION = "extensions.gardener.cloud/bastion";
/** Error code of configuration problems (ConfigValidator errors, docs/bastion.md#config-validator). */
export const ERR_CONFIGURATION_PROBLEM = "ERR_CONFIGURATION_PROBLEM";

export type ExtensionClass = "garden" | "seed" | "shoot";
export const EXTENSION_CLASSES: ExtensionClass[] = ["garden", "seed", "shoot"];

export type LastOperationState = "Processing" | "Succeeded" | "Error" | "Failed" | "Pending" | "Aborted";
export type LastOperationType = "Create" | "Reconcile" | "Delete" | "Migrate" | "Restore";

export interface LastOperation {
  description: string;
  lastUpdateTime: string;
  progress: number;
  state: LastOperationState;
  type: LastOperationType;
}

export interface LastError {
  description: string;
  taskID?: string;
  codes?: string[];
  lastUpdateTime?: string;
}

/** Status fields every extension kind has (extensionsv1alpha1.DefaultStatus). */
export interface DefaultStatus {
  providerStatus?: Record<string, unknown>;
  conditions?: Condition[];
  lastError?: LastError;
  lastOperation?: LastOperation;
  observedGeneration?: number;
  state?: unknown;
  resources?: { name: string; resourceRef: { kind: string; name: string; apiVersion?: string } }[];
}

export interface ExtensionBastionSpec {
  type: string;
  class?: ExtensionClass;
  providerConfig?: Record<string, unknown>;
  /** Bytes: base64 in JSON. */
  userData: string;
  ingress: BastionIngressPolicy[];
}

export interface ExtensionBastionStatus extends DefaultStatus {
  ingress?: LoadBalancerIngress;
}

export interface ExtensionBastion extends KubeObject {
  spec: ExtensionBastionSpec;
  status?: ExtensionBastionStatus;
}

export interface ClusterSpec {
  cloudProfile: unknown;
  seed: unknown;
  /** The garden Shoot as it was when the gardenlet last wrote the Cluster. */
  shoot: unknown;
}

/** One per shoot of a seed, named after the shoot's control-plane namespace. */
export interface Cluster extends KubeObject {
  spec: ClusterSpec;
}
