// Where the store's writes meet the field manager: every create, update and non-apply patch
// records its managedFields (manager from ?fieldManager, else the User-Agent prefix the REST layer
// filled in, else IN_PROCESS_MANAGER for the server's own writes).
import type { KubeObject, ManagedFieldsEntry } from "../../../apis/meta/v1/types.ts";
import { type FieldManagerScope, managedFieldsAfterUpdate } from "../../fieldmanager/fieldmanager.ts";
import type { StoreCore } from "./core.ts";
import type { WriteOptions } from "./interface.ts";
import { metaTime } from "../../../utils/time.ts";

/** The manager of writes made in-process (controllers and admission running inside the server). */
export const IN_PROCESS_MANAGER = "gardener-apiserver";

export function fieldManagerScope(core: StoreCore, subresource: string): FieldManagerScope {
  const { schema, group, version, kind, hasStatus } = core.def;
  return { schema, group, version, kind, hasStatus, subresource, now: metaTime(core.clock.now()) };
}

export function managerOf(options: WriteOptions): string {
  return options.fieldManager ?? IN_PROCESS_MANAGER;
}

/** Sets obj's managedFields for a non-apply write over `live` (undefined: a create). */
export function trackWrite(core: StoreCore, live: KubeObject | undefined, obj: KubeObject, options: WriteOptions, subresource: string): void {
  let entries: ManagedFieldsEntry[] | undefined;
  try {
    entries = managedFieldsAfterUpdate(live, obj, managerOf(options), fieldManagerScope(core, subresource));
  } catch {
    // As kube-apiserver's UpdateNoErrors: bookkeeping never fails a write; the live entries stay.
    entries = live?.metadata.managedFields;
  }
  if (entries?.length) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
}
