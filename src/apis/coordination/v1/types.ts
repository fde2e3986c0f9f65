// coordination.k8s.io/v1: Lease, used for leader election and node heartbeats.
import type { KubeObject } from "../../meta/v1/types.ts";

export const GROUP = "coordination.k8s.io";
export const VERSION = "v1";
export const API_VERSION = "coordination.k8s.io/v1";

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** MicroTime: RFC 3339 with microseconds, e.g. "2024-01-01T00:00:00.000000Z". */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
  strategy?: string;
  preferredHolder?: string;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}
