import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { simulateCreate, simulateStatusUpdate, simulateUpdate } from "../testing.ts";
import { nodeDefinition as def } from "./definition.ts";

const node = (extra: Record<string, unknown> = {}, labels?: Record<string, string>): KubeObject => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: "worker-1", creationTimestamp: "2024-01-01T00:00:00Z", ...(labels ? { labels } : {}) },
  ...extra,
});

const readyStatus = {
  conditions: [
    { type: "MemoryPressure", status: "False" },
    { type: "Ready", status: "True", lastHeartbeatTime: "2024-01-01T00:00:00Z" },
  ],
  addresses: [
    { type: "InternalIP", address: "10.250.0.2" },
    { type: "InternalIP", address: "fd00::2" },
    { type: "Hostname", address: "worker-1" },
  ],
  nodeInfo: { kubeletVersion: "v1.32.0", osImage: "Debian GNU/Linux 12", kernelVersion: "6.1.0", containerRuntimeVersion: "containerd://1.7" },
  capacity: { cpu: "4", memory: "8Gi", pods: 110 },
};

describe("Node", () => {
  it("is cluster-scoped with status and merges addresses and conditions by type", () => {
    assert.equal(def.namespaced, false);
    assert.equal(def.hasStatus, true);
    const status = def.schema.properties!.status!.properties!;
    for (const f of ["addresses", "conditions"]) {
      assert.equal(status[f]!["x-kubernetes-patch-strategy"], "merge");
      assert.equal(status[f]!["x-kubernetes-patch-merge-key"], "type");
    }
  });

  it("accepts a status with several addresses of one type and quantities as numbers or strings", () => {
    const old = simulateCreate(def, node({ spec: { podCIDR: "10.1.0.0/24" } })).obj;
    assert.deepEqual(old.spec, { podCIDR: "10.1.0.0/24", podCIDRs: ["10.1.0.0/24"] });
    const out = simulateStatusUpdate(def, { ...old, status: readyStatus }, old);
    assert.deepEqual(out.errors, []);
  });

  it("validates pod CIDRs and taints", () => {
    const out = simulateCreate(
      def,
      node({
        spec: {
          podCIDRs: ["10.1.0.0/24", "10.2.0.0/24", "nope"],
          taints: [
            { key: "a", effect: "NoSchedule" },
            { key: "a", effect: "NoSchedule" },
            { key: "bad key", effect: "Sometimes" },
          ],
        },
      }),
    );
    assert.deepEqual(out.errors, [
      'spec.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      'spec.podCIDRs[2]: Invalid value: "nope": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      'spec.podCIDRs: Invalid value: ["10.1.0.0/24","10.2.0.0/24","nope"]: may specify no more than one CIDR for each IP family',
      `spec.taints[1]: Invalid value: {"key":"a","effect":"NoSchedule"}: taints must be unique by key and effect pair`,
      `spec.taints[2].key: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
    assert.deepEqual(simulateCreate(def, node({ spec: { podCIDRs: ["10.1.0.0/24", "fd00:1::/64"] } })).errors, []);
  });

  it("lets pod CIDRs and providerID be set once", () => {
    const old = simulateCreate(def, node({ spec: { podCIDRs: ["10.1.0.0/24"], providerID: "local://worker-1" } })).obj;
    const out = simulateUpdate(def, { ...old, spec: { podCIDRs: ["10.9.0.0/24"], providerID: "local://other" } }, old);
    assert.deepEqual(out.errors, [
      'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
      'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
    ]);
    const fresh = simulateCreate(def, node()).obj;
    assert.deepEqual(simulateUpdate(def, { ...fresh, spec: { podCIDRs: ["10.9.0.0/24"] } }, fresh).errors, []);
  });

  it("rejects exact duplicate addresses on status updates", () => {
    const old = simulateCreate(def, node()).obj;
    const addr = { type: "InternalIP", address: "10.0.0.1" };
    const out = simulateStatusUpdate(def, { ...old, status: { addresses: [addr, addr] } }, old);
    assert.deepEqual(out.errors, ['status.addresses[1]: Duplicate value: {"type":"InternalIP","address":"10.0.0.1"}']);
  });

  it("prints STATUS, ROLES, AGE, VERSION and the wide columns", () => {
    const now = new Date("2024-01-01T03:00:00Z");
    const table = def.table!;
    assert.deepEqual(
      table.columns.map((c) => [c.name, c.priority]),
      [
        ["Status", 0],
        ["Roles", 0],
        ["Age", 0],
        ["Version", 0],
        ["Internal-IP", 1],
        ["External-IP", 1],
        ["OS-Image", 1],
        ["Kernel-Version", 1],
        ["Container-Runtime", 1],
      ],
    );
    const ready = node({ status: readyStatus }, { "node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "edge" });
    assert.deepEqual(table.cells(ready, now), [
      "Ready",
      "control-plane,edge,worker",
      "3h",
      "v1.32.0",
      "10.250.0.2",
      "<none>",
      "Debian GNU/Linux 12",
      "6.1.0",
      "containerd://1.7",
    ]);
    const notReady = node({ spec: { unschedulable: true }, status: { conditions: [{ type: "Ready", status: "Unknown" }] } });
    assert.deepEqual(table.cells(notReady, now), ["NotReady,SchedulingDisabled", "<none>", "3h", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"]);
    assert.equal(table.cells(node(), now)[0], "Unknown");
    assert.equal(def.fieldSelectors!["spec.unschedulable"]!(notReady), "true");
  });
});
