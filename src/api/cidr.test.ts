import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isCIDR, parseCIDR } from "./cidr.ts";
import { semanticDiff, semanticEqual } from "./equality.ts";

describe("CIDR syntax (Go's net.ParseCIDR)", () => {
  it("accepts IPv4 and IPv6 prefixes, host bits included", () => {
    assert.deepEqual(parseCIDR("1.2.3.4/8"), { family: 4, address: "1.2.3.4", prefix: 8 });
    assert.deepEqual(parseCIDR("2001:db8::/128"), { family: 6, address: "2001:db8::", prefix: 128 });
    for (const ok of ["0.0.0.0/0", "::/0", "::ffff:1.2.3.4/104", "10.250.0.0/16"]) assert.equal(isCIDR(ok), true, ok);
  });

  it("rejects everything else", () => {
    for (const bad of ["", "1.2.3.4", "1.2.3.4/", "1.2.3.4/33", "::/129", "01.2.3.4/8", "1.2.3.4/+8", "1.2.3.4/ 8", "fe80::1%eth0/64", "a.b.c.d/8", "1.2.3.4/8/8"]) {
      assert.equal(isCIDR(bad), false, bad);
    }
  });
});

describe("semantic equality", () => {
  it("treats absent, null, empty lists and empty maps alike and ignores key order", () => {
    assert.equal(semanticEqual({ a: 1, b: [] }, { a: 1 }), true);
    assert.equal(semanticEqual({ a: { x: 1, y: 2 } }, { a: { y: 2, x: 1 } }), true);
    assert.equal(semanticEqual([{ a: null }], [{}]), true);
    assert.equal(semanticEqual([1, 2], [2, 1]), false);
    assert.equal(semanticEqual({ a: "" }, {}), false);
  });

  it("lists differences with paths", () => {
    assert.deepEqual(semanticDiff({ a: [1, 2], b: "x" }, { a: [1, 3] }, "spec"), ["spec.a[1]: 2 != 3", "spec.b: x != <nil>"]);
    assert.deepEqual(semanticDiff({ a: [1] }, { a: [1, 2] }, "spec"), ["spec.a: [1] != [1,2]"]);
  });
});
