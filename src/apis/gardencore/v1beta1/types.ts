// core.gardener.cloud/v1beta1: the parts of Project, Seed and Shoot that operator access relies
// on (docs/bastion.md#objects-it-relies-on), as plain JSON shapes. Shoot and Seed carry more fields in Gardener;
// unknown ones are kept by the schemas. This module imports nothing outside apis/.
import type { KubeObject } from "../../meta/v1/types.ts";

export const GROUP = "core.gardener.cloud";
export const VERSION = "v1beta1";
export const API_VERSION = `${GROUP}/${VERSION}`;

/** Annotation asking a controller (or, for Bastions, the API server) for an operation. */
export const ANNOTATION_OPERATION = "gardener.cloud/operation";
export const OPERATION_KEEPALIVE = "keepalive";
export const OPERATION_RECONCILE = "reconcile";
export const OPERATION_MIGRATE = "migrate";
export const OPERATION_RESTORE = "restore";
export const OPERATION_WAIT_FOR_STATE = "wait-for-state";
/** Username of the creator of an object (set by admission, immutable). */
export const ANNOTATION_CREATED_BY = "gardener.cloud/created-by";
/** UTC RFC 3339 timestamp with nanoseconds, set together with the operation annotation. */
export const ANNOTATION_TIMESTAMP = "gardener.cloud/timestamp";
/** Delete without waiting for infrastructure cleanup; only the value "true" counts. */
export const ANNOTATION_CONFIRMATION_FORCE_DELETION = "confirmation.gardener.cloud/force-deletion";
/** Finalizer owned by the gardenlet on garden objects. */
export const FINALIZER_GARDENER = "gardener";

/** Identity of a seed's gardenlet: user `gardener.cloud:system:seed:<seed>` in this group. */
export const SEED_USER_PREFIX = "gardener.cloud:system:seed:";
export const SEEDS_GROUP = "gardener.cloud:system:seeds";

export const LABEL_PROJECT_NAME = "project.gardener.cloud/name";
export const LABEL_ROLE = "gardener.cloud/role";
export const ROLE_PROJECT = "project";

/** Project member roles (docs/bastion.md#project); `extension:<name>` roles are also allowed. */
export const PROJECT_ROLE_OWNER = "owner";
export const PROJECT_ROLE_ADMIN = "admin";
export const PROJECT_ROLE_VIEWER = "viewer";
export const PROJECT_ROLE_UAM = "uam";
export const PROJECT_ROLE_SERVICEACCOUNTMANAGER = "serviceaccountmanager";
export const PROJECT_ROLE_EXTENSION_PREFIX = "extension:";
/** The custom RBAC verb that lets a user add, change or remove a Project's human members and its owner. */
export const VERB_PROJECT_MANAGE_MEMBERS = "manage-members";
export const PROJECT_ROLES = [PROJECT_ROLE_OWNER, PROJECT_ROLE_ADMIN, PROJECT_ROLE_VIEWER, PROJECT_ROLE_UAM, PROJECT_ROLE_SERVICEACCOUNTMANAGER];

export type ConditionStatus = "True" | "False" | "Unknown" | "Progressing";

/** gardencore Condition (merge key `type`). */
export interface Condition {
  type: string;
  status: ConditionStatus;
  lastTransitionTime: string;
  lastUpdateTime: string;
  reason: string;
  message: string;
  codes?: string[];
}

// ---- Project (cluster-scoped) ----

export interface ProjectSubject {
  apiGroup?: string;
  kind: "User" | "Group" | "ServiceAccount";
  name: string;
  namespace?: string;
}

export interface ProjectMember extends ProjectSubject {
  role?: string;
  roles?: string[];
}

export type ProjectPhase = "Pending" | "Ready" | "Terminating" | "Failed";

export interface ProjectSpec {
  createdBy?: ProjectSubject;
  description?: string;
  owner?: ProjectSubject;
  purpose?: string;
  members?: ProjectMember[];
  /** The project namespace in the garden, conventionally `garden-<name>`. */
  namespace?: string;
}

export interface ProjectStatus {
  observedGeneration?: number;
  phase?: ProjectPhase;
  staleSinceTimestamp?: string;
  staleAutoDeleteTimestamp?: string;
  lastActivityTimestamp?: string;
}

export interface Project extends KubeObject {
  spec?: ProjectSpec;
  status?: ProjectStatus;
}

// ---- Seed (cluster-scoped) ----

export interface SeedSpec {
  provider?: { type?: string; region?: string; zones?: string[] };
  [field: string]: unknown;
}

export interface SeedStatus {
  conditions?: Condition[];
  observedGeneration?: number;
  /** The gardenlet that manages the seed. */
  gardener?: { id?: string; name?: string; version?: string };
  /** The seed cluster's Kubernetes version. */
  kubernetesVersion?: string;
  lastOperation?: { type?: string; state?: string; progress?: number };
  [field: string]: unknown;
}

export interface Seed extends KubeObject {
  spec?: SeedSpec;
  status?: SeedStatus;
}

/** The conditions a gardenlet keeps on its Seed (Gardener's; `kubectl get seeds` STATUS reads them). */
export const SEED_CONDITION_GARDENLET_READY = "GardenletReady";
export const SEED_CONDITION_EXTENSIONS_READY = "ExtensionsReady";
export const SEED_CONDITION_SYSTEM_COMPONENTS_HEALTHY = "SeedSystemComponentsHealthy";
export const SEED_CONDITION_BACKUP_BUCKETS_READY = "BackupBucketsReady";

// ---- Shoot (namespaced) ----

export interface Worker {
  name: string;
  minimum?: number;
  maximum?: number;
  machine?: { type?: string; image?: { name?: string; version?: string } };
  [field: string]: unknown;
}

export interface WorkersSettings {
  sshAccess?: { enabled?: boolean };
}

export interface ShootProvider {
  type: string;
  workers?: Worker[];
  workersSettings?: WorkersSettings;
  infrastructureConfig?: unknown;
  controlPlaneConfig?: unknown;
}

export interface ShootSpec {
  seedName?: string;
  provider: ShootProvider;
  hibernation?: { enabled?: boolean; schedules?: unknown[] };
  /** timeWindow: `HHMMSS+ZZZZ` begin and end. */
  maintenance?: {
    timeWindow?: { begin: string; end: string };
    autoUpdate?: unknown;
    /** rotationPeriod: a Go duration; 0 disables the automatic rotation of the node SSH key pair. */
    autoRotation?: { credentials?: { sshKeypair?: { rotationPeriod?: string } } };
  };
  networking?: { type?: string; nodes?: string; pods?: string; services?: string };
  cloudProfileName?: string;
  region?: string;
  secretBindingName?: string;
  kubernetes?: { version?: string };
  [field: string]: unknown;
}

export interface ShootStatus {
  /** Control-plane namespace in the seed: `shoot--<project>--<shoot>`. */
  technicalID?: string;
  seedName?: string;
  conditions?: Condition[];
  [field: string]: unknown;
}

export interface Shoot extends KubeObject {
  spec: ShootSpec;
  status?: ShootStatus;
}
