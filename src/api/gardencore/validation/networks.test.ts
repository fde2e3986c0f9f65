import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldErrors } from "../../../apimachinery/field/errors.ts";
import { intersects, validateSeedVpn, validateShootAgainstSeed, validateShootNetworksDisjoint } from "./networks.ts";

const messages = (errs: ReturnType<typeof validateSeedVpn>) => errs.map((e) => `${e.field}: ${e.detail}`);

void describe("network validation of the reversed VPN", () => {
  void it("two CIDRs intersect when either contains the other's network address", () => {
    assert.equal(intersects("10.0.0.0/8", "10.1.0.0/16"), true);
    assert.equal(intersects("10.1.0.0/16", "10.0.0.0/8"), true);
    assert.equal(intersects("10.1.2.3/16", "10.1.255.0/24"), true, "host bits do not matter");
    assert.equal(intersects("10.0.0.0/16", "10.1.0.0/16"), false);
    assert.equal(intersects("10.0.0.0/8", "fd00::/8"), false);
  });

  void it("checks the seed's transfer network: syntax, family and prefix, immutability, both subset directions", () => {
    assert.deepEqual(validateSeedVpn({ vpn: "192.168.123.0/24", pods: "10.1.0.0/16" }), []);
    assert.deepEqual(messages(validateSeedVpn({ vpn: "nope" })), ["spec.networks.vpn: invalid CIDR address: nope"]);
    assert.deepEqual(messages(validateSeedVpn({ vpn: "192.168.0.0/16" })), ["spec.networks.vpn: must be an IPv4 network with prefix length 24"]);
    assert.deepEqual(messages(validateSeedVpn({ vpn: "fd00::/24" })), ["spec.networks.vpn: must be an IPv4 network with prefix length 24"]);
    assert.deepEqual(messages(validateSeedVpn({ vpn: "192.168.124.0/24" }, { vpn: "192.168.123.0/24" })), ["spec.networks.vpn: field is immutable"]);
    assert.deepEqual(messages(validateSeedVpn({ vpn: "192.168.123.0/24", pods: "192.168.123.0/24" })), [
      'spec.networks.pods: must not be a subset of "spec.networks.vpn" ("192.168.123.0/24")',
      'spec.networks.vpn: must not be a subset of "spec.networks.pods" ("192.168.123.0/24")',
    ]);
    assert.deepEqual(messages(validateSeedVpn({ vpn: "192.168.123.0/24", nodes: "192.168.123.128/25" })), ['spec.networks.nodes: must not be a subset of "spec.networks.vpn" ("192.168.123.0/24")']);
    assert.deepEqual(messages(validateSeedVpn({ vpn: "192.168.123.0/24", shootDefaults: { services: "192.168.0.0/16" } })), [
      'spec.networks.vpn: must not be a subset of "spec.networks.shootDefaults.services" ("192.168.0.0/16")',
    ]);
  });

  void it("refuses overlapping shoot ranges with Gardener's messages", () => {
    assert.deepEqual(validateShootNetworksDisjoint({ nodes: "10.250.0.0/16", pods: "100.96.0.0/11", services: "100.64.0.0/13" }), []);
    assert.equal(
      formatFieldErrors(validateShootNetworksDisjoint({ nodes: "10.0.0.0/8", pods: "10.1.0.0/16", services: "10.1.0.0/20" })),
      '[spec.networking.services: Invalid value: "10.1.0.0/20": shoot pod network intersects with shoot service network, spec.networking.pods: Invalid value: "10.1.0.0/16": shoot pod network intersects with shoot node network, spec.networking.services: Invalid value: "10.1.0.0/20": shoot service network intersects with shoot node network]',
    );
  });

  void it("refuses shoot ranges that overlap the seed's networks or its transfer network (default when unset)", () => {
    const shoot = { nodes: "192.168.123.0/28", pods: "10.1.0.0/16", services: "10.2.0.0/16" };
    assert.deepEqual(messages(validateShootAgainstSeed(shoot, undefined)), ["spec.networking.nodes: shoot node network intersects with default vpn network (192.168.123.0/24)"]);
    assert.deepEqual(messages(validateShootAgainstSeed({ ...shoot, nodes: "10.250.0.0/16" }, { vpn: "192.168.50.0/24" })), []);
    assert.deepEqual(messages(validateShootAgainstSeed({ nodes: "10.3.0.0/16", pods: "10.1.0.0/16", services: "10.2.0.0/16" }, { nodes: "10.3.0.0/24", pods: "10.2.0.0/16", services: "10.1.0.0/16" })), [
      "spec.networking.nodes: shoot node network intersects with seed node network",
      "spec.networking.pods: shoot pod network intersects with seed service network",
      "spec.networking.services: shoot service network intersects with seed pod network",
    ]);
  });
});
