import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { isStatusError } from "../../apimachinery/errors.ts";
import { watchTransform } from "./resource.ts";
import { parseIncludeObject, toTable } from "./table.ts";
import { FakeClock } from "../../utils/clock.ts";
import { widgetDef } from "./testing.ts";

const w1: KubeObject = {
  apiVersion: "demo.io/v1",
  kind: "Widget",
  metadata: { name: "w1", namespace: "default", labels: { a: "b" }, resourceVersion: "7", creationTimestamp: "2024-01-01T00:00:00Z" },
  spec: { color: "red" },
};
const now = new Date("2024-01-02T00:00:00Z");

void describe("toTable", () => {
  void it("uses Name and Created At by default, with PartialObjectMetadata rows and the list RV", () => {
    const t = toTable(widgetDef(), [w1], { resourceVersion: "101", continue: "c1" }, { includeObject: "Metadata", version: "v1", now });
    assert.equal(t.kind, "Table");
    assert.equal(t.apiVersion, "meta.k8s.io/v1");
    assert.deepEqual(t.metadata, { resourceVersion: "101", continue: "c1" });
    assert.deepEqual(
      t.columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority]),
      [
        ["Name", "string", "name", 0],
        ["Created At", "date", "", 0],
      ],
    );
    assert.deepEqual(t.rows[0]?.cells, ["w1", "2024-01-01T00:00:00Z"]);
    assert.deepEqual(t.rows[0]?.object, { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: w1.metadata });
  });

  void it("uses the definition's columns after Name", () => {
    const def = widgetDef({
      table: {
        columns: [{ name: "Color", type: "string", format: "", description: "color", priority: 0 }, { name: "Age", type: "string", format: "", description: "", priority: 1 }],
        cells: (obj, at) => [(obj.spec as { color: string }).color, `${(at.getTime() - Date.parse(obj.metadata.creationTimestamp ?? "")) / 3600000}h`],
      },
    });
    const t = toTable(def, [w1], { resourceVersion: "5" }, { includeObject: "Object", version: "v1beta1", now });
    assert.deepEqual(t.columnDefinitions.map((c) => c.name), ["Name", "Color", "Age"]);
    assert.deepEqual(t.rows[0]?.cells, ["w1", "red", "24h"]);
    assert.deepEqual(t.rows[0]?.object, w1);
    assert.equal(t.apiVersion, "meta.k8s.io/v1beta1");
  });

  void it("omits row objects with includeObject=None", () => {
    const t = toTable(widgetDef(), [w1], { resourceVersion: "5" }, { includeObject: "None", version: "v1", now });
    assert.equal(t.rows[0]?.object, undefined);
  });

  void it("parses includeObject", () => {
    assert.equal(parseIncludeObject(new URLSearchParams("")), "Metadata");
    assert.equal(parseIncludeObject(new URLSearchParams("includeObject=")), "Metadata");
    assert.equal(parseIncludeObject(new URLSearchParams("includeObject=Object")), "Object");
    assert.throws(() => parseIncludeObject(new URLSearchParams("includeObject=All")), (e) => isStatusError(e) && e.code === 400);
  });
});

void describe("Table watch events", () => {
  void it("sends column definitions with the first event only, one row per event", () => {
    const transform = watchTransform(widgetDef(), { kind: "table", version: "v1" }, new URLSearchParams(), new FakeClock());
    assert.ok(transform);
    const first = transform({ type: "ADDED", object: w1 }).object as unknown as { kind: string; columnDefinitions: unknown[]; rows: unknown[]; metadata: { resourceVersion: string } };
    const second = transform({ type: "MODIFIED", object: { ...w1, metadata: { ...w1.metadata, resourceVersion: "8" } } }).object as unknown as typeof first;
    assert.equal(first.kind, "Table");
    assert.equal(first.columnDefinitions.length, 2);
    assert.equal(first.rows.length, 1);
    assert.equal(second.columnDefinitions.length, 0);
    assert.equal(second.rows.length, 1);
    assert.equal(second.metadata.resourceVersion, "8");
  });
});
