// coordination.k8s.io/v1 Lease.
import { int32, microTime, obj, str } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import type { ResourceDefinition } from "../../types.ts";
import { leaseStrategy } from "./strategy.ts";
import { leaseTable } from "./table.ts";

export const leaseSchema = kindSchema({
  description: "Lease defines a lease concept.",
  properties: {
    spec: obj(
      {
        holderIdentity: str("holderIdentity contains the identity of the holder of a current lease."),
        leaseDurationSeconds: int32(
          "leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it. This is measured against the time of last observed renewTime.",
        ),
        acquireTime: microTime("acquireTime is a time when the current lease was acquired."),
        renewTime: microTime("renewTime is a time when the current holder of a lease has last updated the lease."),
        leaseTransitions: int32("leaseTransitions is the number of transitions of a lease between holders."),
        strategy: str("Strategy indicates the strategy for picking the leader for coordinated leader election."),
        preferredHolder: str("PreferredHolder signals to a lease holder that the lease has a more optimal holder and should be given up."),
      },
      "LeaseSpec is a specification of a Lease.",
    ),
  },
});

export const leaseDefinition: ResourceDefinition = {
  group: "coordination.k8s.io",
  version: "v1",
  kind: "Lease",
  listKind: "LeaseList",
  plural: "leases",
  singular: "lease",
  namespaced: true,
  schema: leaseSchema,
  hasStatus: false,
  strategy: leaseStrategy,
  table: leaseTable,
  strategicMergePatch: true,
  tracksGeneration: false,
};
