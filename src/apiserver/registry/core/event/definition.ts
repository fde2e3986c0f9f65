// core/v1 Event (the legacy event API kubectl get events reads).
import type { Event } from "../../../../apis/core/v1/types.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { int32, microTime, obj, str, time } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import type { ResourceDefinition } from "../../types.ts";
import { asRecord, asString } from "../keys.ts";
import { objectReferenceSchema } from "../schemas.ts";
import { eventStrategy } from "./strategy.ts";
import { eventTable } from "./table.ts";

export const eventSchema = kindSchema({
  description: "Event is a report of an event somewhere in the cluster.",
  required: ["metadata", "involvedObject"],
  properties: {
    involvedObject: objectReferenceSchema("The object that this event is about."),
    reason: str("This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    message: str("A human-readable description of the status of this operation."),
    source: obj(
      { component: str("Component from which the event is generated."), host: str("Node name on which the event is generated.") },
      "The component reporting this event. Should be a short machine understandable string.",
    ),
    firstTimestamp: time("The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"),
    lastTimestamp: time("The time at which the most recent occurrence of this event was recorded."),
    count: int32("The number of times this event has occurred."),
    type: str("Type of this event (Normal, Warning), new types could be added in the future"),
    eventTime: microTime("Time when this Event was first observed."),
    series: obj(
      {
        count: int32("Number of occurrences in this series up to the last heartbeat time"),
        lastObservedTime: microTime("Time of the last occurrence observed"),
      },
      "Data about the Event series this event represents or nil if it's a singleton Event.",
    ),
    action: str("What action was taken/failed regarding to the Regarding object."),
    related: objectReferenceSchema("Optional secondary object for more complex actions."),
    reportingComponent: str("Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`."),
    reportingInstance: str("ID of the controller instance, e.g. `kubelet-xyzf`."),
  },
});

const involved = (key: string) => (o: KubeObject) => asString(asRecord((o as Event).involvedObject)?.[key]);

export const eventDefinition: ResourceDefinition = {
  group: "",
  version: "v1",
  kind: "Event",
  listKind: "EventList",
  plural: "events",
  singular: "event",
  namespaced: true,
  shortNames: ["ev"],
  schema: eventSchema,
  hasStatus: false,
  strategy: eventStrategy,
  table: eventTable,
  fieldSelectors: {
    "involvedObject.kind": involved("kind"),
    "involvedObject.namespace": involved("namespace"),
    "involvedObject.name": involved("name"),
    "involvedObject.uid": involved("uid"),
    "involvedObject.apiVersion": involved("apiVersion"),
    "involvedObject.resourceVersion": involved("resourceVersion"),
    "involvedObject.fieldPath": involved("fieldPath"),
    reason: (o) => asString(o.reason),
    reportingComponent: (o) => asString(o.reportingComponent),
    source: (o) => asString(asRecord(o.source)?.component) || asString(o.reportingComponent),
    type: (o) => asString(o.type),
  },
  strategicMergePatch: true,
  tracksGeneration: false,
};
