// kubectl get terminals (docs/terminals.md#the-terminal-kind): NAME CREATED-BY READY HEARTBEAT AGE.
// READY is the dashboard's readiness: status.podName and status.attachServiceAccountName both set.
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { ANNOTATION_CREATED_BY, ANNOTATION_LAST_HEARTBEAT } from "../../../../apis/dashboard/v1alpha1/types.ts";
import { humanDuration, translateTimestampSince } from "../../core/age.ts";
import { asRecord, asString } from "../../core/keys.ts";
import { CREATION_TIMESTAMP_DESCRIPTION, column } from "../../core/printers.ts";
import type { TableConvertor } from "../../types.ts";

function heartbeatCell(value: string | undefined, now: Date): string {
  const t = value ? Date.parse(value) : Number.NaN;
  return Number.isNaN(t) ? "<none>" : `${humanDuration(Math.max(0, now.getTime() - t))} ago`;
}

export const terminalTable: TableConvertor = {
  columns: [
    column("Created By", "string", "The user who created the terminal."),
    column("Ready", "string", "True when the terminal's pod and attach service account exist."),
    column("Heartbeat", "string", "Time since the last heartbeat."),
    column("Age", "date", CREATION_TIMESTAMP_DESCRIPTION),
  ],
  cells(obj: KubeObject, now: Date): unknown[] {
    const status = asRecord(obj.status) ?? {};
    const annotations = obj.metadata?.annotations ?? {};
    const ready = asString(status.podName) !== "" && asString(status.attachServiceAccountName) !== "";
    return [
      annotations[ANNOTATION_CREATED_BY] ?? "",
      ready ? "True" : "False",
      heartbeatCell(annotations[ANNOTATION_LAST_HEARTBEAT], now),
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
    ];
  },
};
