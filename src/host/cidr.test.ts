import { test } from "node:test";
import assert from "node:assert/strict";
import { addressOf, contains, familyOf, minimalCidrs, normalizeCidr, parseCidr } from "./cidr.ts";
import { HostSpecError } from "./names.ts";

test("CIDRs normalise to their network; full-length prefixes to the bare address", () => {
  assert.equal(normalizeCidr("10.1.2.3/8"), "10.0.0.0/8");
  assert.equal(normalizeCidr("10.1.2.3/32"), "10.1.2.3");
  assert.equal(normalizeCidr("10.1.2.3"), "10.1.2.3");
  assert.equal(normalizeCidr("0.0.0.0/0"), "0.0.0.0/0");
  assert.equal(normalizeCidr("2001:DB8::1/32"), "2001:db8::/32");
  assert.equal(normalizeCidr("fd00:0:0:0:0:0:0:1/128"), "fd00::1");
  assert.equal(normalizeCidr("::/0"), "::/0");
  assert.equal(normalizeCidr("::ffff:10.0.0.1"), "::ffff:a00:1");
  assert.equal(normalizeCidr("1:0:0:1:0:0:0:1"), "1:0:0:1::1");
});

test("invalid input is refused", () => {
  for (const bad of ["10.0.0.1/33", "10.0.0/8", "fd00::/129", "x", "10.0.0.1/8/1", "10.0.0.1/-1", "1.2.3.4/ 8"]) {
    assert.throws(() => parseCidr(bad), HostSpecError, bad);
  }
});

test("family, address and containment", () => {
  assert.equal(familyOf("10.0.0.1/24"), 4);
  assert.equal(familyOf("fd00::1/64"), 6);
  assert.equal(addressOf("10.250.0.10/16"), "10.250.0.10");
  assert.ok(contains(parseCidr("10.0.0.0/8"), parseCidr("10.250.0.0/16")));
  assert.ok(!contains(parseCidr("10.250.0.0/16"), parseCidr("10.0.0.0/8")));
  assert.ok(!contains(parseCidr("10.0.0.0/8"), parseCidr("fd00::/8")));
});

test("minimalCidrs drops duplicates and contained prefixes and sorts", () => {
  assert.deepEqual(minimalCidrs(["10.1.0.0/16", "10.0.0.0/8", "192.168.0.1", "10.0.0.5/8", "192.168.0.1/32", "fd00::/8", "1.2.3.4"]), [
    "1.2.3.4",
    "10.0.0.0/8",
    "192.168.0.1",
    "fd00::/8",
  ]);
  assert.deepEqual(minimalCidrs([]), []);
});

test("minimalCidrs of a thousand addresses with nested and repeated prefixes keeps what no other prefix contains", () => {
  const texts: string[] = [];
  for (let i = 0; i < 1000; i++) texts.push(`10.250.${i >> 8}.${i & 255}`);
  texts.push("10.250.1.0/24", "10.250.1.7", "10.250.0.0/30", "10.250.0.0/30", "fd00::1", "fd00::/120", "10.251.0.1/32");
  const out = minimalCidrs(texts);
  // The definition, pair by pair.
  const norm = texts.map(normalizeCidr);
  const nets = norm.map((t) => parseCidr(t));
  const expected = norm.filter((_, i) => !nets.some((o, j) => j !== i && contains(o, nets[i]!) && (o.prefix < nets[i]!.prefix || j < i)));
  assert.deepEqual([...out].sort(), [...expected].sort());
  assert.equal(out.length, 1000 - 256 - 4 + 4);
  assert.deepEqual(out.slice(0, 2), ["10.250.0.0/30", "10.250.0.4"], "sorted by address");
  assert.equal(out.at(-1), "fd00::/120");
});
