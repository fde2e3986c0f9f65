import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Service } from "../../apis/core/v1/service.ts";
import { FakeClock } from "../../utils/clock.ts";
import { serviceDefinition } from "../registry/core/service/definition.ts";
import { rejects } from "../registry/generic/testing/assert.ts";
import { newTestServer } from "../registry/generic/testing/server.ts";
import { simulateCreate } from "../registry/core/testing.ts";
import { NamespaceLifecycle } from "./namespace-lifecycle.ts";
import { kubernetesServiceIP, parseServiceRange, ServiceIPAllocation } from "./service-ip.ts";

const SVC = { group: "", resource: "services" };
const svc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: "v1", kind: "Service", metadata: { name, namespace: "dev" }, spec });

describe("ServiceIPAllocation", () => {
  it("parses ranges as kube-apiserver limits them", () => {
    assert.deepEqual(parseServiceRange("10.96.0.0/12"), { cidr: "10.96.0.0/12", first: 0x0a600001, last: 0x0a6ffffe });
    assert.equal(kubernetesServiceIP(parseServiceRange("10.0.0.0/24")), "10.0.0.1");
    assert.throws(() => parseServiceRange("10.0.0.0/8"), /from \/12 to \/29/);
    assert.throws(() => parseServiceRange("fd00::/112"), /IPv4 CIDR/);
  });

  it("allocates free addresses, never the kubernetes one unasked, and checks requested ones", async () => {
    const range = parseServiceRange("10.0.0.0/29"); // usable .1-.6; .1 is the kubernetes Service's
    const s = newTestServer([serviceDefinition], [new NamespaceLifecycle(), new ServiceIPAllocation(range, new FakeClock(0), () => 0)]);
    await s.client.create({ group: "", resource: "namespaces" }, { metadata: { name: "dev" } });
    const ips: string[] = [];
    for (let i = 0; i < 5; i++) ips.push(((await s.client.create(SVC, svc(`s${i}`, { ports: [{ port: 80 }] }))) as Service).spec!.clusterIP!);
    assert.deepEqual(ips, ["10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5", "10.0.0.6"]);
    await rejects(s.client.create(SVC, svc("full", { ports: [{ port: 80 }] })), 422, "Invalid", /range is full/);
    await rejects(s.client.create(SVC, svc("taken", { clusterIP: "10.0.0.3", ports: [{ port: 80 }] })), 422, "Invalid", /failed to allocate IP 10.0.0.3: provided IP is already allocated/);
    await rejects(
      s.client.create(SVC, svc("out", { clusterIP: "10.9.9.9", ports: [{ port: 80 }] })),
      422,
      "Invalid",
      /provided IP is not in the valid range. The range of valid IPs is 10.0.0.0\/29/,
    );
    const kube = (await s.client.create(SVC, svc("kubernetes", { clusterIP: "10.0.0.1", ports: [{ port: 443 }] }))) as Service;
    assert.deepEqual(kube.spec!.clusterIPs, ["10.0.0.1"]);
    const headless = (await s.client.create(SVC, svc("h", { clusterIP: "None" }))) as Service;
    assert.equal(headless.spec!.clusterIP, "None");
  });

  it("validates services as upstream does", () => {
    assert.deepEqual(simulateCreate(serviceDefinition, svc("x", {})).errors, ["spec.ports: Required value"]);
    assert.deepEqual(simulateCreate(serviceDefinition, svc("x", { ports: [{ port: 80 }, { port: 0, name: "b" }] })).errors, [
      "spec.ports[0].name: Required value",
      "spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive",
      "spec.ports[1].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive",
    ]);
    const ok = simulateCreate(serviceDefinition, svc("x", { ports: [{ port: 80 }] }));
    assert.deepEqual(ok.errors, []);
    assert.deepEqual((ok.obj.spec as Record<string, unknown>).ports, [{ port: 80, protocol: "TCP", targetPort: 80 }]);
    assert.deepEqual(serviceDefinition.table!.cells({ ...ok.obj, spec: { ...(ok.obj.spec as object), clusterIP: "10.0.0.9", selector: { b: "2", a: "1" } } }, new Date()).slice(0, 4), ["ClusterIP", "10.0.0.9", "<none>", "80/TCP"]);
  });
});
