// Status writes on garden Bastions (docs/bastion.md#status-sync): status merge patches whose owned fields
// carry absolute values (the whole conditions list, ingress with explicit nulls), so a write based
// on a lagging cached copy still leaves the server with exactly what was meant.
import type { ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import type { Client } from "../../../client/client.ts";
import { keyOf } from "../../../client/resource.ts";
import type { Clock } from "../../../utils/clock.ts";
import { Bastions } from "../../../client/garden.ts";
import { type ReadyUpdate, withReady } from "./conditions.ts";

export class GardenStatusWriter {
  constructor(
    private readonly client: Client,
    private readonly clock: Clock,
  ) {}

  /**
   * Writes BastionReady (plus, when `ext` is given, the extension's mirrored conditions) and any
   * further status fields; returns the Bastion as the server has it afterwards.
   */
  async write(bastion: Bastion, ready: ReadyUpdate, ext: ExtensionBastion | undefined, fields: Record<string, unknown> = {}): Promise<Bastion> {
    const mirrored = ext ? (ext.status?.conditions ?? []) : undefined;
    const conditions = withReady(bastion.status?.conditions, ready, this.clock.nowMs(), mirrored);
    const body = { status: { ...fields, conditions } };
    return this.client.patchStatus(Bastions, keyOf(bastion), { type: "merge", body });
  }
}
