// kubectl get events: LAST SEEN TYPE REASON OBJECT MESSAGE, and with -o wide SUBOBJECT, SOURCE,
// FIRST SEEN and COUNT (pkg/printers/internalversion printEvent).
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { TableConvertor } from "../../types.ts";
import { translateTimestampSince } from "../age.ts";
import { asRecord, asString } from "../keys.ts";
import { column } from "../printers.ts";

function eventSource(e: KubeObject): string {
  const source = asRecord(e.source) ?? {};
  const component = asString(source.component) || asString(e.reportingComponent);
  const instance = asString(source.host) || asString(e.reportingInstance);
  return instance ? `${component}, ${instance}` : component;
}

export const eventTable: TableConvertor = {
  columns: [
    column("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded."),
    column("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future"),
    column("Reason", "string", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    column("Object", "string", "The object that this event is about."),
    column("Subobject", "string", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.", { priority: 1 }),
    column("Source", "string", "The component reporting this event. Should be a short machine understandable string.", { priority: 1 }),
    column("Message", "string", "A human-readable description of the status of this operation."),
    column("First Seen", "string", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", { priority: 1 }),
    column("Count", "string", "The number of times this event has occurred.", { priority: 1 }),
  ],
  cells(e: KubeObject, now: Date): unknown[] {
    const first = asString(e.firstTimestamp) || asString(e.eventTime);
    const firstSeen = translateTimestampSince(first, now);
    let lastSeen = asString(e.lastTimestamp) ? translateTimestampSince(asString(e.lastTimestamp), now) : firstSeen;
    let count = typeof e.count === "number" ? e.count : 0;
    const series = asRecord(e.series);
    if (series) {
      lastSeen = translateTimestampSince(asString(series.lastObservedTime), now);
      count = typeof series.count === "number" ? series.count : 0;
    } else if (count === 0) {
      // Singleton events of the new API have no count.
      count = 1;
    }
    const involved = asRecord(e.involvedObject) ?? {};
    const kind = asString(involved.kind).toLowerCase();
    const name = asString(involved.name);
    return [
      lastSeen,
      asString(e.type),
      asString(e.reason),
      name ? `${kind}/${name}` : kind,
      asString(involved.fieldPath),
      eventSource(e),
      asString(e.message).trim(),
      firstSeen,
      count,
    ];
  },
};
