// kubectl get bastions (docs/bastion.md#table): NAME SHOOT SEED IP HEARTBEAT EXPIRES AGE.
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { humanDuration, translateTimestampSince } from "../../core/age.ts";
import { asRecord, asString } from "../../core/keys.ts";
import { CREATION_TIMESTAMP_DESCRIPTION, column } from "../../core/printers.ts";
import type { TableConvertor } from "../../types.ts";

const PENDING = "<pending>";

function parse(v: unknown): number | undefined {
  if (typeof v !== "string" || v === "") return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

function ipCell(status: Record<string, unknown>): string {
  const ingress = asRecord(status.ingress);
  if (!ingress) return PENDING;
  return asString(ingress.hostname) || asString(ingress.ip) || PENDING;
}

function heartbeatCell(status: Record<string, unknown>, now: Date): string {
  const t = parse(status.lastHeartbeatTimestamp);
  return t === undefined ? "<never>" : `${humanDuration(now.getTime() - t)} ago`;
}

function expiresCell(status: Record<string, unknown>, now: Date): string {
  const t = parse(status.expirationTimestamp);
  if (t === undefined) return PENDING;
  if (t < now.getTime()) return "<expired>";
  return humanDuration(t - now.getTime());
}

export const bastionTable: TableConvertor = {
  columns: [
    column("Shoot", "string", "The shoot the bastion gives access to."),
    column("Seed", "string", "The seed the bastion is scheduled to."),
    column("IP", "string", "The bastion host's public hostname or IP address."),
    column("Heartbeat", "string", "Time since the last heartbeat."),
    column("Expires", "string", "Time until the bastion expires without further heartbeats."),
    column("Age", "date", CREATION_TIMESTAMP_DESCRIPTION),
  ],
  cells(obj: KubeObject, now: Date): unknown[] {
    const spec = asRecord(obj.spec) ?? {};
    const status = asRecord(obj.status) ?? {};
    return [
      asString(asRecord(spec.shootRef)?.name),
      asString(spec.seedName) || PENDING,
      ipCell(status),
      heartbeatCell(status, now),
      expiresCell(status, now),
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
    ];
  },
};
