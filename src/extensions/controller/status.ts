// lastOperation and lastError of extension objects (docs/bastion.md#lastoperation-and-lasterror), as Gardener's
// extensions library writes them: Processing at the start, Error with the cause on failure,
// Succeeded (and lastError removed) on success. The updater sends explicit status merge patches
// (no diff against a possibly stale cached copy), so a removed lastError is really removed.
import type { DefaultStatus, LastError, LastOperation, LastOperationType } from "../../apis/extensions/v1alpha1/types.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import type { Client } from "../../client/client.ts";
import { keyOf, type ResourceType } from "../../client/resource.ts";
import type { Clock } from "../../utils/clock.ts";
import { extractErrorCodes, messageOf } from "./errors.ts";
import { metaTime } from "../../utils/time.ts";

/** Upper-cases the first letter (Gardener's FormatLastErrDescription). */
export function capitalize(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1);
}

/** The `<Prefix>: <cause>` description of a failed operation, first letter upper-cased. */
export function errorDescription(prefix: string, err: unknown): string {
  return capitalize(`${prefix}: ${messageOf(err)}`);
}

export function processingPatch(type: LastOperationType, description: string, now: number): Partial<DefaultStatus> {
  const lastOperation: LastOperation = { type, state: "Processing", progress: 1, description, lastUpdateTime: metaTime(now) };
  return { lastOperation };
}

export function errorPatch(type: LastOperationType, prefix: string, err: unknown, generation: number | undefined, now: number): Partial<DefaultStatus> {
  const description = errorDescription(prefix, err);
  const time = metaTime(now);
  const lastError: LastError = { description, lastUpdateTime: time };
  const codes = extractErrorCodes(err);
  if (codes.length > 0) lastError.codes = codes;
  return {
    lastOperation: { type, state: "Error", progress: 50, description, lastUpdateTime: time },
    lastError,
    observedGeneration: generation ?? 0,
  };
}

/** Success: note the `lastError: null`, which removes it in a merge patch. */
export function successPatch(type: LastOperationType, description: string, generation: number | undefined, now: number): Record<string, unknown> {
  return {
    lastOperation: { type, state: "Succeeded", progress: 100, description, lastUpdateTime: metaTime(now) },
    lastError: null,
    observedGeneration: generation ?? 0,
  };
}

/** Writes lastOperation/lastError of one kind of extension object through its status subresource. */
export class StatusUpdater<T extends KubeObject & { status?: DefaultStatus }> {
  constructor(
    private readonly client: Client,
    private readonly type: ResourceType<T>,
    private readonly clock: Clock,
  ) {}

  processing(obj: T, op: LastOperationType, description: string, signal?: AbortSignal): Promise<T> {
    return this.patch(obj, processingPatch(op, description, this.clock.nowMs()), signal);
  }

  error(obj: T, op: LastOperationType, prefix: string, err: unknown, signal?: AbortSignal): Promise<T> {
    return this.patch(obj, errorPatch(op, prefix, err, obj.metadata.generation, this.clock.nowMs()), signal);
  }

  /** `extra`: further status fields written in the same patch (what the actuator reported). */
  success(obj: T, op: LastOperationType, description: string, signal?: AbortSignal, extra: object = {}): Promise<T> {
    return this.patch(obj, { ...extra, ...successPatch(op, description, obj.metadata.generation, this.clock.nowMs()) }, signal);
  }

  private patch(obj: T, status: object, signal?: AbortSignal): Promise<T> {
    return this.client.patchStatus(this.type, keyOf(obj), { type: "merge", body: { status } }, { signal });
  }
}
