// Admission plugin `Bastion` (spec/bastion.md §7): binds a garden Bastion to its Shoot's seed and
// provider and refuses Bastions for shoots that cannot have one. Mutating; CREATE and UPDATE of
// the main `bastions` resource only. Guard clauses in the spec's order, with Gardener's messages.
import { ANNOTATION_CREATED_BY, API_VERSION as CORE_API_VERSION, type Shoot } from "../../apis/gardencore/v1beta1/types.ts";
import type { KubeObject, OwnerReference } from "../../apis/meta/v1/types.ts";
import { GROUP, KIND_BASTION, RESOURCE_BASTIONS, type Bastion } from "../../apis/operations/v1alpha1/types.ts";
import { isHibernated, isSSHAccessEnabled, providerTypeOf, seedNameOf } from "../../api/gardencore/shoot.ts";
import { semanticEqual } from "../../api/equality.ts";
import { newBadRequest, newForbidden, newInternalError, newInvalid, type StatusError } from "../../apimachinery/errors.ts";
import { Path, invalid, required } from "../../apimachinery/field/errors.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../../apiserver/admission/types.ts";
import type { InternalClient } from "../../apiserver/registry/client.ts";

export const PLUGIN_NAME = "Bastion";

const BASTIONS = { group: GROUP, resource: RESOURCE_BASTIONS };
const SHOOTS = { group: "core.gardener.cloud", resource: "shoots" };
const GK = { group: GROUP, kind: KIND_BASTION };
const SHOOT_PATH = Path.root("spec").child("shootRef", "name");

export interface BastionAdmissionOptions {
  /** False until the plugin's dependencies are ready (answers 403 meanwhile). Default: always ready. */
  ready?: () => boolean;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function asBastion(obj: KubeObject | undefined): Bastion | undefined {
  if (!isRecord(obj) || !isRecord(obj.metadata)) return undefined;
  if (obj.kind !== undefined && obj.kind !== KIND_BASTION) return undefined;
  if (obj.spec !== undefined && !isRecord(obj.spec)) return undefined;
  obj.spec ??= {};
  return obj as Bastion;
}

/** Adds refs whose uid is not present yet; existing references are kept as they are. */
export function mergeOwnerReferences(existing: OwnerReference[] | undefined, ...refs: OwnerReference[]): OwnerReference[] {
  const out = [...(existing ?? [])];
  for (const ref of refs) if (!out.some((r) => r.uid === ref.uid)) out.push(ref);
  return out;
}

function setOrDelete(spec: Bastion["spec"], field: "seedName" | "providerType", value: string | undefined): void {
  if (value) spec[field] = value;
  else delete spec[field];
}

export class BastionAdmission implements AdmissionPlugin {
  readonly name = PLUGIN_NAME;

  constructor(private readonly opts: BastionAdmissionOptions = {}) {}

  async admit(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    if (attrs.resource.group !== GROUP || attrs.resource.plural !== RESOURCE_BASTIONS) return;
    if (attrs.subresource !== "" || (attrs.operation !== "CREATE" && attrs.operation !== "UPDATE")) return;
    const isCreate = attrs.operation === "CREATE";

    if (this.opts.ready && !this.opts.ready()) throw newForbidden(BASTIONS, attrs.name, "not yet ready to handle request");

    const bastion = asBastion(attrs.object);
    if (!bastion) throw newBadRequest("could not convert object to Bastion");
    const name = bastion.metadata.name ?? attrs.name;

    const shootName = isRecord(bastion.spec.shootRef) && typeof bastion.spec.shootRef.name === "string" ? bastion.spec.shootRef.name : "";
    if (shootName === "") throw newInvalid(GK, name, [required(SHOOT_PATH, "shoot is required")]);
    const rejectFor = (detail: string): StatusError => newInvalid(GK, name, [invalid(SHOOT_PATH, shootName, detail)]);

    const old = attrs.oldObject as Bastion | undefined;
    if (!isCreate && old && !semanticEqual(bastion.spec.ingress, old.spec?.ingress)) {
      const creator = old.metadata.annotations?.[ANNOTATION_CREATED_BY] ?? "";
      if (creator === "" || creator !== attrs.user.username) {
        throw newForbidden(BASTIONS, name, `only the creator of this bastion (${creator}) may change spec.ingress`);
      }
    }

    const namespace = attrs.namespace ?? bastion.metadata.namespace ?? "";
    let shoot: Shoot | undefined;
    try {
      shoot = (await client.get(SHOOTS, namespace, shootName)) as Shoot | undefined;
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      throw newInternalError(new Error(`could not get shoot ${namespace}/${shootName}: ${msg}`));
    }
    // Decision: a Bastion being deleted stays updatable once its Shoot is gone, so that its
    // finalizers can be removed (Gardener relies on Shoot deletion waiting for its Bastions,
    // which would otherwise strand them when a Shoot disappears first).
    if (!shoot && !isCreate && bastion.metadata.deletionTimestamp) return;
    if (!shoot) throw rejectFor(`shoot ${namespace}/${shootName} not found`);
    if (isCreate && shoot.metadata.deletionTimestamp) throw rejectFor("shoot is in deletion");
    if (seedNameOf(shoot) === "") throw rejectFor("shoot is not yet assigned to a seed");
    if (isCreate && isHibernated(shoot)) throw rejectFor("shoot is hibernated");
    if (!bastion.metadata.deletionTimestamp && !isSSHAccessEnabled(shoot)) throw rejectFor("ssh access is disabled for worker nodes");

    if (isCreate) {
      setOrDelete(bastion.spec, "seedName", seedNameOf(shoot));
      setOrDelete(bastion.spec, "providerType", providerTypeOf(shoot));
      bastion.metadata.annotations = { ...(bastion.metadata.annotations ?? {}), [ANNOTATION_CREATED_BY]: attrs.user.username };
    } else {
      // Bastions never move: a Shoot migrated to another seed gets its Bastions deleted (GCM), not re-bound.
      setOrDelete(bastion.spec, "seedName", old?.spec?.seedName);
      setOrDelete(bastion.spec, "providerType", old?.spec?.providerType);
    }
    const owner: OwnerReference = {
      apiVersion: CORE_API_VERSION,
      kind: "Shoot",
      name: shoot.metadata.name ?? shootName,
      uid: shoot.metadata.uid ?? "",
      controller: true,
      blockOwnerDeletion: true,
    };
    bastion.metadata.ownerReferences = mergeOwnerReferences(bastion.metadata.ownerReferences, owner);
  }
}
