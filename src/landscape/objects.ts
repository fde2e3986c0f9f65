// The objects of the local landscape: extension CRDs in the seed; Seed `local`, Project `local`
// (namespace garden-local, member `local-member` with roles admin and serviceaccountmanager) and Shoot `local` with its worker
// pool in the garden; the shoot's control-plane namespace and Cluster in the seed. Every step is
// create-if-absent, so `up` on an existing state directory converges.
import type { CustomResourceDefinition } from "../apis/apiextensions/v1/types.ts";
import type { KubeObject } from "../apis/meta/v1/types.ts";
import type { ProjectMember, Shoot } from "../apis/gardencore/v1beta1/types.ts";
import { isAlreadyExists } from "../apimachinery/errors.ts";
import { readExtensionCRDs } from "../api/extensions/crds.ts";
import { ConfigMaps, Namespaces, Secrets } from "../client/builtins.ts";
import { CA_CLIENT_NAMESPACE, caClientSecretName, caClusterConfigMapName } from "../api/gardencore/shootcredentials.ts";
import type { Client } from "../client/client.ts";
import { retryOnConflict } from "../client/helpers.ts";
import { Projects, Seeds, Shoots } from "../client/garden.ts";
import { type ResourceType, resourceType } from "../client/resource.ts";
import { Clusters } from "../extensions/resources.ts";
import { ANNOTATION_HA_VPN } from "../api/gardencore/vpn.ts";
import { metaTime } from "../utils/time.ts";
import { LANDSCAPE_VPN_HA } from "./vpn.ts";
import { MEMBER_USER, PROJECT, PROJECT_NAMESPACE, SEED, SHOOT, SHOOT_TECHNICAL_ID, WORKER_POOL, WORKERS } from "./layout.ts";

const CRDs = resourceType<CustomResourceDefinition>({ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false });

export async function createIfAbsent<T extends KubeObject>(client: Client, type: ResourceType<T>, obj: T): Promise<void> {
  try {
    await client.create(type, obj);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

export async function applySeedCRDs(seed: Client): Promise<void> {
  for (const crd of readExtensionCRDs()) await createIfAbsent(seed, CRDs, crd);
}

/**
 * The member `local-member`: `admin` and, as Gardener's dashboard expects of a member who opens garden
 * terminals, `serviceaccountmanager` (the project's ServiceAccounts and their tokens, docs/terminals.md#roles).
 */
export const LANDSCAPE_MEMBER: ProjectMember & { role: string; roles: string[] } = { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: MEMBER_USER, role: "admin", roles: ["serviceaccountmanager"] };

/** Seed and Project (the controller manager then creates garden-local and the member's RoleBindings). */
export async function createGardenObjects(garden: Client): Promise<void> {
  await createIfAbsent(garden, Seeds, { metadata: { name: SEED } });
  await createIfAbsent(garden, Projects, {
    metadata: { name: PROJECT },
    spec: {
      namespace: PROJECT_NAMESPACE,
      owner: { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "local-owner" },
      members: [LANDSCAPE_MEMBER],
    },
  });
  // A Project of an earlier run gets the member's roles it lacks; other members stay as they are. The
  // project controller writes the Project meanwhile (finalizer, status, several writes in a row), so a
  // conflict reads it again after a pause.
  await retryOnConflict(
    async () => {
      const project = await garden.get(Projects, { name: PROJECT });
      const members = project.spec?.members ?? [];
      const current = members.find((m) => m.kind === "User" && m.name === MEMBER_USER);
      const roles = [current?.role, ...(current?.roles ?? [])];
      if (current && [LANDSCAPE_MEMBER.role, ...LANDSCAPE_MEMBER.roles].every((r) => roles.includes(r))) return;
      const others = members.filter((m) => m !== current);
      await garden.update(Projects, { ...project, spec: { ...project.spec, members: [...others, LANDSCAPE_MEMBER] } });
    },
    { backoff: { steps: 10, durationMs: 10, factor: 1.5, jitter: 0.1 } },
  );
}

/** The Shoot (scheduled to seed local, nodes in `nodeCidr`, pods in `podCidr`), its technicalID, seed namespace and Cluster. */
/** The Kubernetes version of the landscape's shoot: the one its API server reports on `/version` (1.30). */
export const SHOOT_KUBERNETES_VERSION = "1.30.0";

export async function createShoot(garden: Client, seed: Client, nodeCidr: string, podCidr: string): Promise<Shoot> {
  const n = WORKERS.length;
  await createIfAbsent(garden, Shoots, {
    metadata: { name: SHOOT, namespace: PROJECT_NAMESPACE },
    spec: {
      seedName: SEED,
      kubernetes: { version: SHOOT_KUBERNETES_VERSION },
      provider: { type: "local", workers: [{ name: WORKER_POOL, minimum: n, maximum: n }] },
      networking: { nodes: nodeCidr, pods: podCidr },
    },
  });
  // The landscape runs the shoot's VPN highly available (vpn.ts); the Shoot says so, also one of an earlier run.
  await garden.patch(Shoots, { namespace: PROJECT_NAMESPACE, name: SHOOT }, { type: "merge", body: { metadata: { annotations: { [ANNOTATION_HA_VPN]: String(LANDSCAPE_VPN_HA) } } } });
  const shoot = await garden.patchStatus(Shoots, { namespace: PROJECT_NAMESPACE, name: SHOOT }, { type: "merge", body: { status: { technicalID: SHOOT_TECHNICAL_ID } } });
  await createIfAbsent(seed, Namespaces, { metadata: { name: SHOOT_TECHNICAL_ID } });
  await createIfAbsent(seed, Clusters, { metadata: { name: SHOOT_TECHNICAL_ID }, spec: { cloudProfile: {}, seed: { metadata: { name: SEED } }, shoot } });
  return shoot;
}

/**
 * The Shoot's last operation once the landscape is ready, as a gardenlet reports a finished reconcile
 * (the dashboard's Status column and `kubectl get shoots` read it).
 */
export async function reportShootReconciled(garden: Client, nowMs: number): Promise<void> {
  const lastOperation = { type: "Reconcile", state: "Succeeded", progress: 100, description: "Shoot cluster has been successfully reconciled.", lastUpdateTime: metaTime(nowMs) };
  await garden.patchStatus(Shoots, { namespace: PROJECT_NAMESPACE, name: SHOOT }, { type: "merge", body: { status: { lastOperation } } });
}

/**
 * The garden Secret `<shoot>.kubeconfig` in the project namespace (what gardenctl falls back to for the
 * shoot's Nodes where `shoots/viewerkubeconfig` is not served), kept equal to the shoot admin kubeconfig.
 */
export async function publishShootKubeconfig(garden: Client, kubeconfig: string): Promise<void> {
  const data = { kubeconfig: Buffer.from(kubeconfig, "utf8").toString("base64") };
  try {
    await garden.create(Secrets, { metadata: { name: `${SHOOT}.kubeconfig`, namespace: PROJECT_NAMESPACE }, type: "Opaque", data });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    await garden.patch(Secrets, { namespace: PROJECT_NAMESPACE, name: `${SHOOT}.kubeconfig` }, { type: "merge", body: { data } });
  }
}

/**
 * What the garden needs to answer `shoots/adminkubeconfig` for the shoot (docs/terminals.md#shoot-credentials),
 * published by the landscape, which owns the shoot API server's CA as a gardenlet owns a shoot's: the Shoot's
 * `status.advertisedAddresses`, the ConfigMap `<shoot>.ca-cluster` (key ca.crt) in the project namespace and
 * the client CA in namespace `garden`, where project members have no access. Kept equal on every `up`.
 */
export async function publishShootCredentials(garden: Client, o: { server: string; clusterCaPem: string; clientCa: { certPem: string; keyPem: string } }): Promise<void> {
  await garden.patchStatus(Shoots, { namespace: PROJECT_NAMESPACE, name: SHOOT }, { type: "merge", body: { status: { advertisedAddresses: [{ name: "external", url: o.server }] } } });
  await createIfAbsent(garden, Namespaces, { metadata: { name: CA_CLIENT_NAMESPACE } });
  await createOrMerge(garden, ConfigMaps, { name: caClusterConfigMapName(SHOOT), namespace: PROJECT_NAMESPACE }, { data: { "ca.crt": o.clusterCaPem } });
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  await createOrMerge(garden, Secrets, { name: caClientSecretName(PROJECT_NAMESPACE, SHOOT), namespace: CA_CLIENT_NAMESPACE }, { type: "Opaque", data: { "ca.crt": b64(o.clientCa.certPem), "ca.key": b64(o.clientCa.keyPem) } });
}

async function createOrMerge<T extends KubeObject>(client: Client, type: ResourceType<T>, key: { name: string; namespace: string }, fields: Record<string, unknown>): Promise<void> {
  try {
    await client.create(type, { metadata: key, ...fields } as unknown as T);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    await client.patch(type, key, { type: "merge", body: fields });
  }
}
