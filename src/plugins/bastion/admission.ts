// Admission plugin `Bastion` (docs/bastion.md#admission): binds a garden Bastion to its Shoot's seed and
// provider and refuses Bastions for shoots that cannot have one. Mutating; CREATE and UPDATE of
// the main `bastions` resource only. Guard clauses in the order of docs/bastion.md#admission, with Gardener's messages.
// On UPDATE every decision reads the stored object (deletion, creator, shoot, seed, owners,
// finalizers), never the request's claims about itself.
import { ANNOTATION_CREATED_BY, API_VERSION as CORE_API_VERSION, FINALIZER_GARDENER, type Shoot } from "../../apis/gardencore/v1beta1/types.ts";
import type { KubeObject, OwnerReference } from "../../apis/meta/v1/types.ts";
import { GROUP, KIND_BASTION, RESOURCE_BASTIONS, type Bastion } from "../../apis/operations/v1alpha1/types.ts";
import { seedNameOfUser } from "../../api/gardencore/identity.ts";
import { isHibernated, isSSHAccessEnabled, providerTypeOf, seedNameOf } from "../../api/gardencore/shoot.ts";
import { semanticEqual } from "../../api/equality.ts";
import { newBadRequest, newForbidden, newInternalError, newInvalid } from "../../apimachinery/errors.ts";
import { Path, invalid, required } from "../../apimachinery/field/errors.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../../apiserver/admission/types.ts";
import { GROUP_MASTERS, type UserInfo } from "../../apiserver/authentication/types.ts";
import type { InternalClient } from "../../apiserver/registry/client.ts";
import { isRecord } from "../../utils/guards.ts";

export const PLUGIN_NAME = "Bastion";

const BASTIONS = { group: GROUP, resource: RESOURCE_BASTIONS };
const SHOOTS = { group: "core.gardener.cloud", resource: "shoots" };
const GK = { group: GROUP, kind: KIND_BASTION };
const SHOOT_PATH = Path.root("spec").child("shootRef", "name");

export interface BastionAdmissionOptions {
  /** False until the plugin's dependencies are ready (answers 403 meanwhile). Default: always ready. */
  ready?: () => boolean;
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

function shootNameOf(bastion: Bastion): string {
  const ref = bastion.spec.shootRef;
  return isRecord(ref) && typeof ref.name === "string" ? ref.name : "";
}

/**
 * UPDATE: the fields clients never change are taken from the stored object, whatever the request
 * says (the seed binding, the provider, the owner references); the stored object alone then
 * decides (deletion, creator, shoot).
 */
function keepStored(bastion: Bastion, old: Bastion): void {
  setOrDelete(bastion.spec, "seedName", old.spec.seedName);
  setOrDelete(bastion.spec, "providerType", old.spec.providerType);
  if (old.metadata.ownerReferences?.length) bastion.metadata.ownerReferences = structuredClone(old.metadata.ownerReferences);
  else delete bastion.metadata.ownerReferences;
}

/** Only the gardenlet of the Bastion's seed (or system:masters) may release its seed-side cleanup. */
function mayRemoveGardenerFinalizer(user: UserInfo, old: Bastion): boolean {
  if (user.groups.includes(GROUP_MASTERS)) return true;
  const seed = seedNameOfUser(user);
  return seed !== undefined && seed === old.spec.seedName;
}

export class BastionAdmission implements AdmissionPlugin {
  readonly name = PLUGIN_NAME;

  constructor(private readonly opts: BastionAdmissionOptions = {}) {}

  async admit(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    if (!handles(attrs)) return;
    const isCreate = attrs.operation === "CREATE";

    if (this.opts.ready && !this.opts.ready()) throw newForbidden(BASTIONS, attrs.name, "not yet ready to handle request");

    const bastion = asBastion(attrs.object);
    if (!bastion) throw newBadRequest("could not convert object to Bastion");
    const name = bastion.metadata.name ?? attrs.name;
    // Every decision on UPDATE reads the stored object, never what the request claims about itself.
    const old = isCreate ? undefined : asBastion(structuredClone(attrs.oldObject));
    if (!isCreate && !old) throw newInternalError(new Error(`no stored Bastion ${name} to update`));

    const requestedShoot = shootNameOf(bastion);
    if (requestedShoot === "") throw newInvalid(GK, name, [required(SHOOT_PATH, "shoot is required")]);
    // A changed shootRef is refused by validation (field is immutable); the stored one decides.
    const shootName = old ? shootNameOf(old) || requestedShoot : requestedShoot;
    if (old) checkUpdate(bastion, old, attrs.user, name);

    const namespace = attrs.namespace ?? bastion.metadata.namespace ?? "";
    const shoot = await getShoot(client, namespace, shootName);
    // Decision: a Bastion being deleted (as stored) stays updatable once its Shoot is gone, so that
    // its finalizers can be removed (Gardener relies on Shoot deletion waiting for its Bastions,
    // which would otherwise strand them when a Shoot disappears first).
    const deleting = Boolean(old?.metadata.deletionTimestamp);
    if (!shoot && deleting) return;
    const refusal = shoot ? shootRefusal(shoot, isCreate, deleting) : `shoot ${namespace}/${shootName} not found`;
    if (refusal !== undefined || !shoot) throw newInvalid(GK, name, [invalid(SHOOT_PATH, shootName, refusal ?? "")]);
    if (isCreate) bindToShoot(bastion, shoot, attrs.user);
    bastion.metadata.ownerReferences = mergeOwnerReferences(bastion.metadata.ownerReferences, shootOwner(shoot, shootName));
  }
}

/** CREATE and UPDATE of the main `bastions` resource. */
function handles(attrs: AdmissionAttributes): boolean {
  if (attrs.resource.group !== GROUP || attrs.resource.plural !== RESOURCE_BASTIONS || attrs.subresource !== "") return false;
  return attrs.operation === "CREATE" || attrs.operation === "UPDATE";
}

/** UPDATE: keeps the fields clients never change and refuses what only the creator or the seed's gardenlet may do. */
function checkUpdate(bastion: Bastion, old: Bastion, user: UserInfo, name: string): void {
  keepStored(bastion, old);
  if (!semanticEqual(bastion.spec.ingress, old.spec.ingress)) {
    const creator = old.metadata.annotations?.[ANNOTATION_CREATED_BY] ?? "";
    if (creator === "" || creator !== user.username) {
      throw newForbidden(BASTIONS, name, `only the creator of this bastion (${creator}) may change spec.ingress`);
    }
  }
  const releases = old.metadata.finalizers?.includes(FINALIZER_GARDENER) && !bastion.metadata.finalizers?.includes(FINALIZER_GARDENER);
  if (releases && !mayRemoveGardenerFinalizer(user, old)) {
    throw newForbidden(BASTIONS, name, `only the gardenlet of seed ${old.spec.seedName ?? ""} may remove finalizer ${FINALIZER_GARDENER}`);
  }
}

async function getShoot(client: InternalClient, namespace: string, shootName: string): Promise<Shoot | undefined> {
  try {
    return (await client.get(SHOOTS, namespace, shootName)) as Shoot | undefined;
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw newInternalError(new Error(`could not get shoot ${namespace}/${shootName}: ${msg}`));
  }
}

/** Why the Shoot cannot have this Bastion (Gardener's messages, in Gardener's order), or undefined. */
function shootRefusal(shoot: Shoot, isCreate: boolean, deleting: boolean): string | undefined {
  if (isCreate && shoot.metadata.deletionTimestamp) return "shoot is in deletion";
  if (seedNameOf(shoot) === "") return "shoot is not yet assigned to a seed";
  if (isCreate && isHibernated(shoot)) return "shoot is hibernated";
  if (!deleting && !isSSHAccessEnabled(shoot)) return "ssh access is disabled for worker nodes";
  return undefined;
}

/** CREATE: binds the Bastion to its Shoot's seed and provider and records its creator. */
function bindToShoot(bastion: Bastion, shoot: Shoot, user: UserInfo): void {
  setOrDelete(bastion.spec, "seedName", seedNameOf(shoot));
  setOrDelete(bastion.spec, "providerType", providerTypeOf(shoot));
  bastion.metadata.annotations = { ...(bastion.metadata.annotations ?? {}), [ANNOTATION_CREATED_BY]: user.username };
}

/** Bastions never move: a Shoot migrated to another seed gets its Bastions deleted (GCM), not re-bound. */
function shootOwner(shoot: Shoot, shootName: string): OwnerReference {
  return {
    apiVersion: CORE_API_VERSION,
    kind: "Shoot",
    name: shoot.metadata.name ?? shootName,
    uid: shoot.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}
