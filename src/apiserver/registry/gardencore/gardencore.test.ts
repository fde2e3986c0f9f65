import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { FakeClock } from "../../../utils/clock.ts";
import { simulateCreate, simulateUpdate } from "../core/testing.ts";
import { gardenDefinitions } from "../garden.ts";
import { projectDefinition } from "./project/definition.ts";
import { seedDefinition } from "./seed/definition.ts";
import { shootDefinition } from "./shoot/definition.ts";

const NOW = new Date("2026-01-02T00:00:00Z");
const CREATED = "2026-01-01T00:00:00Z";

const project = (spec: Record<string, unknown>, name = "dev"): KubeObject => ({ metadata: { name }, spec });
const shoot = (spec: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: "local", namespace: "garden-dev", ...meta },
  spec: { provider: { type: "local", workers: [{ name: "w1", minimum: 1, maximum: 2 }] }, ...spec },
});

describe("garden definitions", () => {
  it("serve Project, Seed, Shoot, Bastion and Terminal", () => {
    const defs = gardenDefinitions({ clock: new FakeClock() });
    assert.deepEqual(defs.map((d) => `${d.group}/${d.version}/${d.plural}/${d.namespaced ? "ns" : "cluster"}`), [
      "core.gardener.cloud/v1beta1/projects/cluster",
      "core.gardener.cloud/v1beta1/seeds/cluster",
      "core.gardener.cloud/v1beta1/shoots/ns",
      "operations.gardener.cloud/v1alpha1/bastions/ns",
      "dashboard.gardener.cloud/v1alpha1/terminals/ns",
    ]);
    assert.ok(defs.every((d) => d.hasStatus));
  });
});

describe("Project", () => {
  it("validates namespace, owner, members and roles", () => {
    const ok = { namespace: "garden-dev", owner: { kind: "User", name: "alice" }, members: [{ kind: "User", name: "bob", role: "admin", roles: ["viewer", "extension:foo"] }] };
    assert.deepEqual(simulateCreate(projectDefinition, project(ok)).errors, []);
    const bad = {
      namespace: "Garden_dev",
      owner: { kind: "Robot", name: "x" },
      members: [
        { kind: "User", name: "bob", role: "boss" },
        { kind: "User", name: "bob", roles: ["extension:"] },
        { kind: "ServiceAccount", name: "sa" },
      ],
    };
    assert.deepEqual(simulateCreate(projectDefinition, project(bad)).errors, [
      'spec.namespace: Invalid value: "Garden_dev": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\', or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
      'spec.owner.kind: Unsupported value: "Robot": supported values: "User", "Group", "ServiceAccount"',
      'spec.members[0].role: Unsupported value: "boss": supported values: "owner", "admin", "viewer", "uam", "serviceaccountmanager", "extension:<name>"',
      'spec.members[1]: Duplicate value: "bob"',
      'spec.members[1].roles[0]: Invalid value: "extension:": extension role name a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\', or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
      "spec.members[2].namespace: Required value",
    ]);
    // The store applies the definition's name rule to metadata.name: DNS-1123 labels, no dots.
    assert.match(projectDefinition.nameValidator?.("a.b", false)[0] ?? "", /must not contain dots/);
  });

  it("keeps the namespace once set, and prints NAMESPACE, STATUS and AGE", () => {
    const old = simulateCreate(projectDefinition, project({ namespace: "garden-dev" })).obj;
    assert.deepEqual(simulateUpdate(projectDefinition, project({ namespace: "garden-x" }), old).errors, ['spec.namespace: Invalid value: "garden-x": field is immutable']);
    const unset = simulateCreate(projectDefinition, project({})).obj;
    assert.deepEqual(simulateUpdate(projectDefinition, project({ namespace: "garden-dev" }), unset).errors, []);
    assert.deepEqual(projectDefinition.table!.columns.map((c) => c.name), ["Namespace", "Status", "Age"]);
    const p = { metadata: { name: "dev", creationTimestamp: CREATED }, spec: { namespace: "garden-dev" }, status: { phase: "Ready" } };
    assert.deepEqual(projectDefinition.table!.cells(p, NOW), ["garden-dev", "Ready", "24h"]);
    assert.equal(projectDefinition.fieldSelectors!["spec.namespace"]!(p), "garden-dev");
  });
});

describe("Seed", () => {
  it("keeps unknown spec fields and prints Gardener's columns, STATUS from GardenletReady, ExtensionsReady and friends", () => {
    const out = simulateCreate(seedDefinition, { metadata: { name: "local" }, spec: { provider: { type: "local", region: "local" }, networks: { nodes: "10.0.0.0/16" } } });
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.removed, []);
    const cells = (conditions?: unknown[], extra: Record<string, unknown> = {}) =>
      seedDefinition.table!.cells({ metadata: { creationTimestamp: CREATED }, spec: { provider: { type: "local", region: "r" } }, status: { ...(conditions ? { conditions } : {}), ...extra } }, NOW);
    const status = (...conds: [string, string][]) => cells(conds.map(([type, s]) => ({ type, status: s })))[0];
    // Without any report Gardener prints NotReady (only an Unknown GardenletReady is Unknown).
    assert.deepEqual(cells(), ["NotReady", "<pending>", "local", "r", "24h", "<unknown>", "<unknown>"]);
    assert.equal(status(["GardenletReady", "True"]), "NotReady", "ExtensionsReady is required");
    assert.equal(status(["GardenletReady", "True"], ["ExtensionsReady", "True"]), "Ready");
    assert.equal(status(["GardenletReady", "True"], ["ExtensionsReady", "Progressing"]), "Ready");
    assert.equal(status(["GardenletReady", "Unknown"], ["ExtensionsReady", "True"]), "Unknown");
    assert.equal(status(["GardenletReady", "False"], ["ExtensionsReady", "True"]), "NotReady");
    assert.equal(status(["GardenletReady", "True"], ["ExtensionsReady", "True"], ["BackupBucketsReady", "False"]), "NotReady");
    assert.equal(status(["GardenletReady", "True"], ["ExtensionsReady", "True"], ["SeedSystemComponentsHealthy", "Unknown"]), "NotReady");
    const full = cells([], { gardener: { version: "v1.2.3" }, kubernetesVersion: "v1.30.0", lastOperation: { type: "Reconcile", state: "Succeeded", progress: 100 } });
    assert.deepEqual(full.slice(1), ["Reconcile Succeeded (100%)", "local", "r", "24h", "v1.2.3", "v1.30.0"]);
  });

  it("defaults the VPN transfer network of seeds with networks, keeps it immutable and disjoint from the seed's networks", () => {
    const created = simulateCreate(seedDefinition, { metadata: { name: "s" }, spec: { networks: { nodes: "10.0.0.0/16" } } });
    assert.deepEqual((created.obj.spec as { networks: unknown }).networks, { nodes: "10.0.0.0/16", vpn: "192.168.123.0/24" });
    assert.deepEqual(simulateCreate(seedDefinition, { metadata: { name: "s" }, spec: { provider: { type: "local" } } }).errors, []);
    assert.deepEqual(simulateCreate(seedDefinition, { metadata: { name: "s" }, spec: { networks: { vpn: "192.168.123.0/24", pods: "192.168.0.0/16" } } }).errors, [
      'spec.networks.vpn: Invalid value: "192.168.123.0/24": must not be a subset of "spec.networks.pods" ("192.168.0.0/16")',
    ]);
    const changed = simulateUpdate(seedDefinition, { metadata: { name: "s" }, spec: { networks: { nodes: "10.0.0.0/16", vpn: "192.168.7.0/24" } } }, created.obj);
    assert.deepEqual(changed.errors, ['spec.networks.vpn: Invalid value: "192.168.7.0/24": field is immutable']);
    const unchanged = simulateUpdate(seedDefinition, { metadata: { name: "s" }, spec: { networks: { nodes: "10.1.0.0/16" } } }, created.obj);
    assert.deepEqual(unchanged.errors, [], "an update without vpn gets the same default");
  });
});

describe("Shoot", () => {
  it("types the fields bastions rely on and keeps the rest of Gardener's Shoot", () => {
    const out = simulateCreate(shootDefinition, {
      ...shoot({
        seedName: "local",
        hibernation: { enabled: false },
        maintenance: { timeWindow: { begin: "220000+0100", end: "010000-0100" } },
        networking: { type: "calico", nodes: "10.250.0.0/16", pods: "100.96.0.0/11", services: "100.64.0.0/13" },
        kubernetes: { version: "1.32.0" },
        region: "local",
      }),
      status: { technicalID: "shoot--dev--local", lastOperation: { type: "Create" } },
    });
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.removed, []);
    assert.deepEqual((out.obj.spec as { kubernetes: unknown }).kubernetes, { version: "1.32.0" });
  });

  it("validates provider, workers, seed name, maintenance window and networks", () => {
    const out = simulateCreate(
      shootDefinition,
      shoot({
        seedName: "Local",
        provider: { type: "", workers: [{ name: "w1", minimum: 3, maximum: 2 }, { name: "w1", minimum: -1, maximum: 1 }] },
        maintenance: { timeWindow: { begin: "250000+0000", end: "230000" } },
        networking: { nodes: "10.250.0.0/33" },
      }),
    );
    assert.deepEqual(out.errors, [
      "spec.provider.type: Required value: must specify a provider type",
      "spec.provider.workers[0].maximum: Invalid value: 2: maximum value must not be less than minimum value",
      'spec.provider.workers[1].name: Duplicate value: "w1"',
      "spec.provider.workers[1].minimum: Invalid value: -1: minimum value must not be negative",
      'spec.seedName: Invalid value: "Local": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\', or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
      'spec.maintenance.timeWindow.begin: Invalid value: "250000+0000": must be in the format HHMMSS+ZZZZ',
      'spec.maintenance.timeWindow.end: Invalid value: "230000": must be in the format HHMMSS+ZZZZ',
      'spec.networking.nodes: Invalid value: "10.250.0.0/33": invalid CIDR address',
    ]);
  });

  it("defaults sshAccess.enabled, selects on spec.seedName and prints SEED, HIBERNATED and AGE", () => {
    const out = simulateCreate(shootDefinition, shoot({ provider: { type: "local", workers: [{ name: "w" }], workersSettings: { sshAccess: {} } } }));
    assert.deepEqual((out.obj.spec as { provider: { workersSettings: unknown } }).provider.workersSettings, { sshAccess: { enabled: true } });
    assert.equal(shootDefinition.fieldSelectors!["spec.seedName"]!(shoot({ seedName: "local" })), "local");
    assert.equal(shootDefinition.fieldSelectors!["spec.seedName"]!(shoot({})), "");
    assert.deepEqual(shootDefinition.table!.columns.map((c) => c.name), ["Seed", "Hibernated", "Age"]);
    const row = (spec: Record<string, unknown>) => shootDefinition.table!.cells({ ...shoot(spec), metadata: { creationTimestamp: CREATED } }, NOW);
    assert.deepEqual(row({ seedName: "local", hibernation: { enabled: true } }), ["local", true, "24h"]);
    assert.deepEqual(row({}), ["<none>", false, "24h"]);
  });
});
