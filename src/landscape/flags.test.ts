import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_BASTION_POOL_SIZE } from "../provider-local/options.ts";
import { parseBastionPoolSize, parsePorts, parsePublicCidr } from "./flags.ts";

test("--ports takes three ports; anything else names the flag and the expected form", () => {
  assert.deepEqual(parsePorts("7443,7444,7445"), { garden: 7443, seed: 7444, shoot: 7445 });
  for (const bad of ["7443,7444", "7443,7444,7445,7446", "0,1,2", "7443,x,7445", "7443,,7445", "1e3,7444,7445", "7443,7444,65536"]) {
    assert.throws(() => parsePorts(bad), new RegExp(`^Error: invalid --ports "${bad}": expected GARDEN,SEED,SHOOT$`));
  }
});

test("--public-cidr takes an IPv4 CIDR of at most /29", () => {
  assert.equal(parsePublicCidr("198.18.0.0/16"), "198.18.0.0/16");
  for (const bad of ["198.18.0.0", "198.18.0.0/30", "fd00::/64", "nonsense/8"]) assert.throws(() => parsePublicCidr(bad), /invalid --public-cidr .*at most \/29/);
});

test("--bastion-pool-size takes 0 (no pool) up to provider-local's bound", () => {
  assert.equal(parseBastionPoolSize("0"), 0);
  assert.equal(parseBastionPoolSize(String(MAX_BASTION_POOL_SIZE)), MAX_BASTION_POOL_SIZE);
  for (const bad of ["-1", "2.5", "", "ten", String(MAX_BASTION_POOL_SIZE + 1), "0x10"]) {
    assert.throws(() => parseBastionPoolSize(bad), new RegExp(`invalid --bastion-pool-size "${bad}": expected an integer from 0 to ${MAX_BASTION_POOL_SIZE}`));
  }
});
