// Test helpers for the built-in kinds: a request context, and the decode -> prepare -> validate
// path a write takes through the generic store (schema pruning and defaulting, strategy hooks,
// schema and strategy validation), without storage.
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { type FieldError, formatFieldError } from "../../../apimachinery/field/errors.ts";
import { FakeClock } from "../../../utils/clock.ts";
import { compileSchema } from "../../schema/compile.ts";
import type { RequestContext, ResourceDefinition } from "../types.ts";

export function testContext(namespace?: string): RequestContext {
  return {
    user: { username: "tester", groups: ["system:authenticated"] },
    ...(namespace ? { namespace } : {}),
    clock: new FakeClock(Date.UTC(2024, 0, 1)),
    dryRun: false,
  };
}

export interface WriteOutcome {
  obj: KubeObject;
  removed: string[];
  errors: string[];
  fieldErrors: FieldError[];
}

function decode(def: ResourceDefinition, body: unknown): { obj: KubeObject; removed: string[] } {
  const obj = structuredClone(body) as KubeObject;
  obj.metadata ??= {};
  const schema = compileSchema(def.schema);
  const removed = schema.prune(obj);
  schema.applyDefaults(obj);
  return { obj, removed };
}

function outcome(def: ResourceDefinition, obj: KubeObject, removed: string[], strategyErrs: FieldError[]): WriteOutcome {
  // Like the generic store, the same error found by the schema and the strategy is reported once.
  const seen = new Set<string>();
  const fieldErrors = [...compileSchema(def.schema).validate(obj), ...strategyErrs].filter((e) => {
    const key = `${e.type}\0${e.field}\0${e.detail}`;
    return !seen.has(key) && !!seen.add(key);
  });
  return { obj, removed, fieldErrors, errors: fieldErrors.map(formatFieldError) };
}

/** What a create would store, and its validation errors. */
export function simulateCreate(def: ResourceDefinition, body: unknown, ctx = testContext()): WriteOutcome {
  const { obj, removed } = decode(def, body);
  if (def.hasStatus) delete obj.status;
  def.strategy.prepareForCreate?.(ctx, obj);
  return outcome(def, obj, removed, def.strategy.validate?.(ctx, obj) ?? []);
}

/** What an update of `old` with `body` would store, and its validation errors. */
export function simulateUpdate(def: ResourceDefinition, body: unknown, old: KubeObject, ctx = testContext()): WriteOutcome {
  const { obj, removed } = decode(def, body);
  if (def.hasStatus) {
    if (old.status === undefined) delete obj.status;
    else obj.status = structuredClone(old.status);
  }
  def.strategy.prepareForUpdate?.(ctx, obj, old);
  const s = def.strategy;
  return outcome(def, obj, removed, s.validateUpdate?.(ctx, obj, old) ?? s.validate?.(ctx, obj) ?? []);
}

/** A `/status` write: the old object with only status replaced. */
export function simulateStatusUpdate(def: ResourceDefinition, body: KubeObject, old: KubeObject, ctx = testContext()): WriteOutcome {
  const decoded = decode(def, body);
  const obj = structuredClone(old);
  obj.status = decoded.obj.status;
  def.strategy.prepareForStatusUpdate?.(ctx, obj, old);
  return outcome(def, obj, decoded.removed, def.strategy.validateStatusUpdate?.(ctx, obj, old) ?? []);
}
