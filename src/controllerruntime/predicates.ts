// Predicates filter the events of a watch before they become requests (controller-runtime's
// predicate package). A missing method means "let the event through".
import type { KubeObject, LabelSelector as MetaLabelSelector } from "../apis/meta/v1/types.ts";
import { type LabelSelector, matches, parseLabelSelector, selectorFromLabelSelector } from "../apimachinery/labels/selector.ts";

export interface Predicate<T extends KubeObject = KubeObject> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

export function passesCreate<T extends KubeObject>(preds: readonly Predicate<T>[], obj: T): boolean {
  return preds.every((p) => p.create?.(obj) ?? true);
}

export function passesUpdate<T extends KubeObject>(preds: readonly Predicate<T>[], oldObj: T, newObj: T): boolean {
  return preds.every((p) => p.update?.(oldObj, newObj) ?? true);
}

export function passesDelete<T extends KubeObject>(preds: readonly Predicate<T>[], obj: T): boolean {
  return preds.every((p) => p.delete?.(obj) ?? true);
}

/** The same test for every event kind; updates are judged on the new object. */
export function objectPredicate<T extends KubeObject = KubeObject>(test: (obj: T) => boolean): Predicate<T> {
  return { create: test, update: (_o, n) => test(n), delete: test };
}

/** Updates pass only when metadata.generation changed (spec changes, not status or metadata). */
export function generationChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return { update: (o, n) => o.metadata.generation !== n.metadata.generation };
}

/** Updates pass only when metadata.resourceVersion changed (drops resync-style no-op updates). */
export function resourceVersionChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return { update: (o, n) => o.metadata.resourceVersion !== n.metadata.resourceVersion };
}

/** Every event passes only for objects carrying the annotation (with that value, if given). */
export function annotationPresent<T extends KubeObject = KubeObject>(key: string, value?: string): Predicate<T> {
  return objectPredicate<T>((obj) => {
    const v = obj.metadata.annotations?.[key];
    return v !== undefined && (value === undefined || v === value);
  });
}

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => a![k] === b?.[k]);
}

/** Updates pass only when the annotations changed (or, with a key, that one annotation). */
export function annotationChanged<T extends KubeObject = KubeObject>(key?: string): Predicate<T> {
  return {
    update: (o, n) =>
      key === undefined ? !sameRecord(o.metadata.annotations, n.metadata.annotations) : o.metadata.annotations?.[key] !== n.metadata.annotations?.[key],
  };
}

/** Updates pass only when the labels changed. */
export function labelsChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return { update: (o, n) => !sameRecord(o.metadata.labels, n.metadata.labels) };
}

/** Every event passes only for objects whose labels match (a selector string or a metav1 LabelSelector). */
export function labelSelector<T extends KubeObject = KubeObject>(selector: string | MetaLabelSelector): Predicate<T> {
  const sel: LabelSelector = typeof selector === "string" ? parseLabelSelector(selector) : selectorFromLabelSelector(selector);
  return objectPredicate<T>((obj) => matches(sel, obj.metadata.labels));
}

export function and<T extends KubeObject>(...preds: Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => passesCreate(preds, o),
    update: (o, n) => passesUpdate(preds, o, n),
    delete: (o) => passesDelete(preds, o),
  };
}

export function or<T extends KubeObject>(...preds: Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => preds.some((p) => p.create?.(o) ?? true),
    update: (o, n) => preds.some((p) => p.update?.(o, n) ?? true),
    delete: (o) => preds.some((p) => p.delete?.(o) ?? true),
  };
}

export function not<T extends KubeObject>(pred: Predicate<T>): Predicate<T> {
  return {
    create: (o) => !(pred.create?.(o) ?? true),
    update: (o, n) => !(pred.update?.(o, n) ?? true),
    delete: (o) => !(pred.delete?.(o) ?? true),
  };
}
