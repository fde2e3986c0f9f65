// operations.gardener.cloud/v1alpha1 Bastion (docs/bastion.md#the-garden-bastion): the garden-side request for
// time-limited SSH access to a shoot's nodes. Field names are Gardener's (docs/bastion.md#d1-gardeners-names); status.sshHostKeys
// is our addition (docs/bastion.md#d8-published-host-keys).
import type { KubeObject } from "../../meta/v1/types.ts";
import type { Condition } from "../../gardencore/v1beta1/types.ts";

export const GROUP = "operations.gardener.cloud";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND_BASTION = "Bastion";
export const RESOURCE_BASTIONS = "bastions";

/** The condition the gardenlet keeps on a garden Bastion (docs/bastion.md#bastionready). */
export const CONDITION_BASTION_READY = "BastionReady";

export interface IPBlock {
  cidr: string;
  except?: string[];
}

export interface BastionIngressPolicy {
  ipBlock: IPBlock;
}

export interface BastionSpec {
  shootRef: { name: string };
  seedName?: string;
  providerType?: string;
  sshPublicKey: string;
  ingress: BastionIngressPolicy[];
}

export interface PortStatus {
  port: number;
  protocol: string;
  error?: string;
}

/** core/v1 LoadBalancerIngress. */
export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
  ipMode?: string;
  ports?: PortStatus[];
}

export interface BastionStatus {
  ingress?: LoadBalancerIngress;
  /** `"<type> <base64>"` per host key, without comment (docs/bastion.md#d8-published-host-keys). */
  sshHostKeys?: string[];
  conditions?: Condition[];
  lastHeartbeatTimestamp?: string;
  expirationTimestamp?: string;
  observedGeneration?: number;
}

export interface Bastion extends KubeObject {
  spec: BastionSpec;
  status?: BastionStatus;
}
