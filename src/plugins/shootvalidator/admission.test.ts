import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { StatusError } from "../../apimachinery/errors.ts";
import type { AdmissionAttributes } from "../../apiserver/admission/types.ts";
import { FakeClient } from "../../apiserver/authorization/testing/fake-client.ts";
import { gardenDefinitions } from "../../apiserver/registry/garden.ts";
import { FakeClock } from "../../utils/clock.ts";
import { ShootValidator } from "./admission.ts";

const defs = gardenDefinitions({ clock: new FakeClock() });
const shootDef = defs.find((d) => d.plural === "shoots")!;
const shoot = (networking: Record<string, string>, seedName?: string): KubeObject => ({
  metadata: { name: "s", namespace: "garden-p" },
  spec: { ...(seedName ? { seedName } : {}), networking },
});
const attrs = (extra: Partial<AdmissionAttributes>): AdmissionAttributes => ({
  operation: "CREATE",
  resource: shootDef,
  subresource: "",
  namespace: "garden-p",
  name: "s",
  user: { username: "alice", groups: ["system:authenticated"] },
  dryRun: false,
  ...extra,
});

async function status(p: Promise<void>): Promise<[number, string] | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    assert.ok(err instanceof StatusError);
    return [err.code, err.message];
  }
}

void describe("ShootValidator's network checks (docs/reversed-vpn.md#network-validation)", () => {
  const plugin = new ShootValidator();
  const client = new FakeClient();
  const ok = { nodes: "10.250.0.0/16", pods: "100.96.0.0/11", services: "100.64.0.0/13" };

  void it("refuses a shoot whose own ranges overlap, seed or not", async () => {
    assert.equal(await status(plugin.validate(attrs({ object: shoot(ok) }), client)), undefined);
    assert.deepEqual(await status(plugin.validate(attrs({ operation: "UPDATE", object: shoot({ ...ok, pods: "10.250.0.0/24" }), oldObject: shoot(ok) }), client)), [
      403,
      'shoots.core.gardener.cloud "s" is forbidden: spec.networking.pods: Invalid value: "10.250.0.0/24": shoot pod network intersects with shoot node network',
    ]);
  });

  void it("checks against the stored Seed on create with a seed and when the seed changes, not otherwise", async () => {
    await client.create({ group: "core.gardener.cloud", resource: "seeds" }, { metadata: { name: "a" }, spec: { networks: { vpn: "10.250.7.0/24", pods: "100.64.0.0/16" } } });
    const bad = shoot(ok, "a");
    const want: [number, string] = [
      403,
      'shoots.core.gardener.cloud "s" is forbidden: [spec.networking.nodes: Invalid value: "10.250.0.0/16": shoot node network intersects with default vpn network (10.250.7.0/24), spec.networking.services: Invalid value: "100.64.0.0/13": shoot service network intersects with seed pod network]',
    ];
    assert.deepEqual(await status(plugin.validate(attrs({ object: bad }), client)), want);
    assert.deepEqual(await status(plugin.validate(attrs({ operation: "UPDATE", object: bad, oldObject: shoot(ok) }), client)), want);
    assert.equal(await status(plugin.validate(attrs({ operation: "UPDATE", object: bad, oldObject: bad }), client)), undefined, "an unchanged seed is not re-checked");
    assert.equal(await status(plugin.validate(attrs({ object: shoot(ok, "unknown") }), client)), undefined, "an unknown seed is the scheduler's and the reference checks' business");
    assert.equal(await status(plugin.validate(attrs({ object: bad, subresource: "status" }), client)), undefined);
  });
});
