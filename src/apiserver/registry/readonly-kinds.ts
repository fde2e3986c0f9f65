// Kinds of kubectl's default prune allowlist that this server names but runs no controller for:
// PersistentVolumeClaims, PersistentVolumes, ReplicationControllers, apps/v1 Deployments,
// ReplicaSets, StatefulSets and DaemonSets, batch/v1 Jobs and CronJobs, networking.k8s.io/v1
// Ingresses. `kubectl apply --prune` without --prune-allowlist lists every kind of that list, so
// each must be discoverable and listable; since nothing would act on them, they cannot be created
// (405 MethodNotAllowed), so their lists are always empty (docs/kubernetes-api.md#kinds-without-controllers).
import { anyValue } from "../schema/builders.ts";
import { kindSchema } from "../schema/objectmeta.ts";
import { ageCell, ageColumn } from "./core/printers.ts";
import type { ResourceDefinition, TableConvertor } from "./types.ts";

/** What may be done with a kind nobody can create: read (always nothing) and delete (nothing). */
export const READ_ONLY_VERBS = ["delete", "deletecollection", "get", "list", "watch"];

/** kubectl get: NAME AGE (kubectl adds NAME). */
const ageTable: TableConvertor = { columns: [ageColumn()], cells: (obj, now) => [ageCell(obj, now)] };

function readOnly(group: string, kind: string, plural: string, namespaced: boolean, shortNames: string[] = []): ResourceDefinition {
  return {
    group,
    version: "v1",
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced,
    ...(shortNames.length ? { shortNames } : {}),
    verbs: READ_ONLY_VERBS,
    schema: kindSchema({
      description: `${kind}: served for discovery and lists only; this server runs no controller for it, so it cannot be created.`,
      properties: { spec: anyValue("Not interpreted by this server."), status: anyValue("Not interpreted by this server.") },
    }),
    hasStatus: false,
    strategy: {},
    table: ageTable,
    strategicMergePatch: true,
  };
}

export function readOnlyDefinitions(): ResourceDefinition[] {
  return [
    readOnly("", "PersistentVolumeClaim", "persistentvolumeclaims", true, ["pvc"]),
    readOnly("", "PersistentVolume", "persistentvolumes", false, ["pv"]),
    readOnly("", "ReplicationController", "replicationcontrollers", true, ["rc"]),
    readOnly("apps", "Deployment", "deployments", true, ["deploy"]),
    readOnly("apps", "ReplicaSet", "replicasets", true, ["rs"]),
    readOnly("apps", "StatefulSet", "statefulsets", true, ["sts"]),
    readOnly("apps", "DaemonSet", "daemonsets", true, ["ds"]),
    readOnly("batch", "Job", "jobs", true),
    readOnly("batch", "CronJob", "cronjobs", true, ["cj"]),
    readOnly("networking.k8s.io", "Ingress", "ingresses", true, ["ing"]),
  ];
}
