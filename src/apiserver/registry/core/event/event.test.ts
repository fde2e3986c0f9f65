import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { simulateCreate } from "../testing.ts";
import { eventDefinition as def } from "./definition.ts";

const event = (extra: Record<string, unknown> = {}, namespace = "default"): KubeObject => ({
  apiVersion: "v1",
  kind: "Event",
  metadata: { name: "e1", namespace },
  involvedObject: { kind: "Pod", name: "web", namespace: "default", uid: "u1", fieldPath: "spec.containers{app}" },
  reason: "Started",
  message: "Started container app ",
  type: "Normal",
  source: { component: "kubelet", host: "worker-1" },
  ...extra,
});

describe("Event", () => {
  it("stores timestamps as Time and MicroTime in UTC", () => {
    const out = simulateCreate(
      def,
      event({
        firstTimestamp: "2024-01-01T01:00:00.123+01:00",
        eventTime: "2024-01-01T00:00:00.5Z",
        reportingComponent: "kubelet",
        reportingInstance: "worker-1",
        action: "Start",
      }),
    );
    assert.deepEqual(out.errors, []);
    assert.equal(out.obj.firstTimestamp, "2024-01-01T00:00:00Z");
    assert.equal(out.obj.eventTime, "2024-01-01T00:00:00.500000Z");
  });

  it("requires involvedObject and a matching namespace", () => {
    const { involvedObject: _i, ...noInvolved } = event();
    assert.deepEqual(simulateCreate(def, noInvolved).errors, ["involvedObject: Required value"]);
    assert.deepEqual(simulateCreate(def, event({}, "other")).errors, ['involvedObject.namespace: Invalid value: "default": does not match event.namespace']);
    // Events about cluster-scoped objects go to "default".
    const nodeEvent = event({ involvedObject: { kind: "Node", name: "worker-1" } });
    assert.deepEqual(simulateCreate(def, nodeEvent).errors, []);
  });

  it("requires reporter, action and reason on events with an eventTime", () => {
    const out = simulateCreate(def, event({ eventTime: "2024-01-01T00:00:00.000000Z", reason: "" }));
    assert.deepEqual(out.errors, ["reportingComponent: Required value", "reportingInstance: Required value", "action: Required value", "reason: Required value"]);
    const ok = event({ eventTime: "2024-01-01T00:00:00.000000Z", reportingComponent: "gardener.cloud/bastion", reportingInstance: "gcm-1", action: "Reconcile" });
    assert.deepEqual(simulateCreate(def, ok).errors, []);
  });

  it("rejects malformed timestamps through the schema", () => {
    assert.deepEqual(simulateCreate(def, event({ lastTimestamp: "yesterday" })).errors, [
      'lastTimestamp: Invalid value: "yesterday": lastTimestamp in body must be of type date-time: "yesterday"',
    ]);
  });

  it("offers kube's field selectors", () => {
    const e = event();
    const sel = def.fieldSelectors!;
    assert.equal(sel["involvedObject.kind"]!(e), "Pod");
    assert.equal(sel["involvedObject.name"]!(e), "web");
    assert.equal(sel["involvedObject.namespace"]!(e), "default");
    assert.equal(sel["involvedObject.uid"]!(e), "u1");
    assert.equal(sel.reason!(e), "Started");
    assert.equal(sel.type!(e), "Normal");
    assert.equal(sel.source!(e), "kubelet");
    assert.equal(sel.source!(event({ source: {}, reportingComponent: "ctrl" })), "ctrl");
  });

  it("prints LAST SEEN, TYPE, REASON, OBJECT, MESSAGE and the wide columns", () => {
    const now = new Date("2024-01-01T00:10:00Z");
    const table = def.table!;
    assert.deepEqual(
      table.columns.filter((c) => c.priority === 0).map((c) => c.name),
      ["Last Seen", "Type", "Reason", "Object", "Message"],
    );
    const e = event({ firstTimestamp: "2024-01-01T00:00:00Z", lastTimestamp: "2024-01-01T00:09:00Z", count: 3 });
    assert.deepEqual(table.cells(e, now), ["60s", "Normal", "Started", "pod/web", "spec.containers{app}", "kubelet, worker-1", "Started container app", "10m", 3]);
    const series = event({ eventTime: "2024-01-01T00:00:00.000000Z", series: { count: 7, lastObservedTime: "2024-01-01T00:08:00.000000Z" } });
    const cells = table.cells(series, now);
    assert.deepEqual([cells[0], cells[7], cells[8]], ["2m", "10m", 7]);
    assert.equal(table.cells(event({ involvedObject: { kind: "Node" } }), now)[3], "node");
    assert.equal(table.cells(event(), now)[8], 1);
  });
});
