// Event strategy: timestamps stored as Kubernetes serializes them (Time with seconds,
// MicroTime with six fractional digits, both UTC).
import type { Event } from "../../../../apis/core/v1/types.ts";
import type { Strategy } from "../../types.ts";
import { normalizeField } from "../time.ts";
import { validateEvent } from "./validation.ts";

function normalizeTimestamps(event: Event): void {
  normalizeField(event, "firstTimestamp", false);
  normalizeField(event, "lastTimestamp", false);
  normalizeField(event, "eventTime", true);
  normalizeField(event.series, "lastObservedTime", true);
}

export const eventStrategy: Strategy<Event> = {
  prepareForCreate: (_ctx, event) => normalizeTimestamps(event),
  prepareForUpdate: (_ctx, event) => normalizeTimestamps(event),
  validate: (_ctx, event) => validateEvent(event),
  validateUpdate: (_ctx, event) => validateEvent(event),
  // Events do not take part in garbage collection (kube's event strategy).
  defaultGarbageCollectionPolicy: "Unsupported",
};
