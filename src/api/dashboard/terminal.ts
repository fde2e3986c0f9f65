// Pure functions over Terminals (docs/terminals.md): upstream's FNV hash and identifier, the
// mutating webhook's change, the labels and annotations of everything the controller creates,
// and the resource names derived from spec.identifier.
import { randomUUID } from "node:crypto";
import { metaTime } from "../../utils/time.ts";
import {
  ANNOTATION_CREATED_BY,
  ANNOTATION_LAST_HEARTBEAT,
  ANNOTATION_OPERATION,
  ANNOTATION_TARGET_NS,
  ANNOTATION_TCM_CREATED_BY,
  COMPONENT_TCM,
  LABEL_COMPONENT,
  LABEL_CREATED_BY_HASH,
  LABEL_IDENTIFIER,
  LABEL_TARGET_NS_HASH,
  OPERATION_KEEPALIVE,
  type Terminal,
} from "../../apis/dashboard/v1alpha1/types.ts";

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

/** FNV-1a 64-bit of the UTF-8 bytes, as unsigned decimal (upstream's helpers.ToFnvHash). */
export function fnvHash(value: string): string {
  let h = FNV_OFFSET;
  for (const b of Buffer.from(value, "utf8")) h = ((h ^ BigInt(b)) * FNV_PRIME) & MASK;
  return h.toString(10);
}

/** A new spec.identifier: the hash of a fresh random UUID. */
export function newIdentifier(): string {
  return fnvHash(randomUUID());
}

/**
 * The mutating webhook's change (upstream's mutatingTerminalFn), in place: on CREATE the creator
 * from the request's authenticated user (never the object's own claim), a new identifier, the
 * temporary namespaces and the first heartbeat; on any operation a keepalive request becomes a
 * new heartbeat.
 */
export function mutateTerminal(t: Terminal, operation: string, username: string, nowMs: number, identifier: () => string = newIdentifier): void {
  t.metadata.annotations ??= {};
  const annotations = t.metadata.annotations;
  if (operation === "CREATE") {
    annotations[ANNOTATION_CREATED_BY] = username;
    const id = identifier();
    t.spec = { ...(t.spec ?? {}) } as Terminal["spec"];
    t.spec.identifier = id;
    if (t.spec.host?.temporaryNamespace) t.spec.host.namespace = `term-${id}`;
    if (t.spec.target?.temporaryNamespace) t.spec.target.namespace = `term-${id}`;
    annotations[ANNOTATION_LAST_HEARTBEAT] = metaTime(nowMs);
  }
  if (annotations[ANNOTATION_OPERATION] === OPERATION_KEEPALIVE) {
    delete annotations[ANNOTATION_OPERATION];
    annotations[ANNOTATION_LAST_HEARTBEAT] = metaTime(nowMs);
  }
}

/** Labels of everything the controller creates (upstream's NewLabelsSet); an error text when a field is missing. */
export function terminalLabels(t: Terminal): Record<string, string> | string {
  if (!t.spec?.identifier) return "identifier not set";
  if (!t.spec.target?.namespace) return "target namespace not set";
  const createdBy = t.metadata.annotations?.[ANNOTATION_CREATED_BY];
  if (!createdBy) return "createdBy annotation not set";
  return {
    [LABEL_COMPONENT]: COMPONENT_TCM,
    [LABEL_IDENTIFIER]: t.spec.identifier,
    [LABEL_TARGET_NS_HASH]: fnvHash(t.spec.target.namespace),
    [LABEL_CREATED_BY_HASH]: fnvHash(createdBy),
  };
}

/** Annotations of everything the controller creates (upstream's NewAnnotationsSet). */
export function terminalAnnotations(t: Terminal): Record<string, string> {
  return { [ANNOTATION_TARGET_NS]: t.spec.target.namespace ?? "", [ANNOTATION_TCM_CREATED_BY]: t.metadata.annotations?.[ANNOTATION_CREATED_BY] ?? "" };
}

/** Host and target use the same credential (then the pod may use a projected token of the access service account). */
export function sameCluster(t: Terminal): boolean {
  const h = t.spec.host.credentials;
  const g = t.spec.target.credentials;
  if (h.shootRef && g.shootRef) return h.shootRef.namespace === g.shootRef.namespace && h.shootRef.name === g.shootRef.name;
  if (h.serviceAccountRef && g.serviceAccountRef) return h.serviceAccountRef.namespace === g.serviceAccountRef.namespace && h.serviceAccountRef.name === g.serviceAccountRef.name;
  if (h.secretRef && g.secretRef) return h.secretRef.namespace === g.secretRef.namespace && h.secretRef.name === g.secretRef.name;
  return false;
}
