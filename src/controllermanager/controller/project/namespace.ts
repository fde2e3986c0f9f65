// The project namespace, as Gardener's project controller keeps it (docs/bastion.md#project): created
// with the project labels, the project's uid annotation and the Project as controller owner, or an
// existing one adopted (then marked to be kept after the project's deletion); released on deletion.
import { type Project, LABEL_PROJECT_NAME, LABEL_ROLE, ROLE_PROJECT, API_VERSION } from "../../../apis/gardencore/v1beta1/types.ts";
import type { OwnerReference } from "../../../apis/meta/v1/types.ts";
import { unlessNotFound } from "../../../apimachinery/errors.ts";
import { Namespaces } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";

/** Annotation holding the uid of the project a namespace belongs to. */
export const ANNOTATION_NAMESPACE_PROJECT = "namespace.gardener.cloud/project";
/** Annotation: the namespace stays (unlabelled) when its project is deleted; set on adopted namespaces. */
export const ANNOTATION_KEEP_AFTER_PROJECT_DELETION = "namespace.gardener.cloud/keep-after-project-deletion";
/** Annotation: the project controller created the namespace. */
export const ANNOTATION_CREATED_BY_PROJECT_CONTROLLER = "namespace.gardener.cloud/created-by-project-controller";

export function projectLabels(p: Project): Record<string, string> {
  return { [LABEL_ROLE]: ROLE_PROJECT, [LABEL_PROJECT_NAME]: p.metadata.name ?? "" };
}

function ownerOf(p: Project): OwnerReference {
  return { apiVersion: API_VERSION, kind: "Project", name: p.metadata.name ?? "", uid: p.metadata.uid ?? "", controller: true, blockOwnerDeletion: true };
}

const hasAll = (have: Record<string, string> | undefined, want: Record<string, string>) => Object.entries(want).every(([k, v]) => have?.[k] === v);

/** Creates or adopts the project namespace; an error names why it cannot be used. */
export async function ensureNamespace(client: Client, p: Project, name: string, signal: AbortSignal): Promise<void> {
  const labels = projectLabels(p);
  const annotations = { [ANNOTATION_NAMESPACE_PROJECT]: p.metadata.uid ?? "" };
  const ns = await unlessNotFound(client.get(Namespaces, { name }, { signal }));
  if (!ns) {
    const created = { metadata: { name, labels, annotations: { ...annotations, [ANNOTATION_CREATED_BY_PROJECT_CONTROLLER]: "true" }, ownerReferences: [ownerOf(p)] } };
    await client.create(Namespaces, created, { signal });
    return;
  }
  const owner = ns.metadata.labels?.[LABEL_PROJECT_NAME];
  if (owner !== undefined && owner !== labels[LABEL_PROJECT_NAME]) throw new Error(`namespace cannot be used as it needs the project labels ${JSON.stringify(labels)}`);
  const uid = ns.metadata.annotations?.[ANNOTATION_NAMESPACE_PROJECT];
  if (uid !== undefined && uid !== annotations[ANNOTATION_NAMESPACE_PROJECT]) throw new Error("namespace is already in-use by another project");
  const refs = ns.metadata.ownerReferences ?? [];
  const keep: Record<string, string> = ns.metadata.annotations?.[ANNOTATION_CREATED_BY_PROJECT_CONTROLLER] === undefined ? { [ANNOTATION_KEEP_AFTER_PROJECT_DELETION]: "true" } : {};
  const missingOwner = !refs.some((r) => r.uid === p.metadata.uid);
  if (hasAll(ns.metadata.labels, labels) && hasAll(ns.metadata.annotations, { ...annotations, ...keep }) && !missingOwner) return;
  const body = {
    metadata: {
      resourceVersion: ns.metadata.resourceVersion,
      labels,
      annotations: { ...annotations, ...keep },
      ...(missingOwner ? { ownerReferences: [...refs, { ...ownerOf(p), controller: refs.some((r) => r.controller) ? undefined : true }] } : {}),
    },
  };
  await client.patch(Namespaces, { name }, { type: "merge", body }, { signal });
}

/**
 * Releases the project namespace of a Project being deleted: gone or not the project's, released;
 * marked to be kept, its project labels, annotations and owner reference go and it is released;
 * else it is deleted (or its deletion is under way) and not released yet.
 */
export async function releaseNamespace(client: Client, p: Project, name: string, signal: AbortSignal): Promise<boolean> {
  const ns = await unlessNotFound(client.get(Namespaces, { name }, { signal }));
  if (!ns) return true;
  if (ns.metadata.deletionTimestamp) return false;
  if (!hasAll(ns.metadata.labels, projectLabels(p))) return true;
  if (ns.metadata.annotations?.[ANNOTATION_KEEP_AFTER_PROJECT_DELETION] === "true") {
    const annotations = { [ANNOTATION_NAMESPACE_PROJECT]: null, [ANNOTATION_KEEP_AFTER_PROJECT_DELETION]: null, [ANNOTATION_CREATED_BY_PROJECT_CONTROLLER]: null };
    const ownerReferences = (ns.metadata.ownerReferences ?? []).filter((r) => !(r.kind === "Project" && r.uid === p.metadata.uid));
    const body = { metadata: { resourceVersion: ns.metadata.resourceVersion, labels: { [LABEL_PROJECT_NAME]: null, [LABEL_ROLE]: null }, annotations, ownerReferences } };
    await client.patch(Namespaces, { name }, { type: "merge", body }, { signal });
    return true;
  }
  await unlessNotFound(client.delete(Namespaces, { name }, { signal }));
  return false;
}
