import { test } from "node:test";
import assert from "node:assert/strict";
import { HostSpecError, MAX_IFNAME, Names, validateIfname, validatePrefix } from "./names.ts";

test("prefixes are 1-5 lowercase letters or digits and a dash", () => {
  assert.equal(validatePrefix("ga-"), "ga-");
  assert.equal(validatePrefix("gt1a-"), "gt1a-");
  for (const bad of ["ga", "Ga-", "-", "toolong-", "g_a-", "1a-"]) assert.throws(() => validatePrefix(bad), HostSpecError, bad);
});

test("netns and link names carry the prefix; long link names are hashed to 15 characters, stably", () => {
  const n = new Names("ga-");
  assert.equal(n.netns("public"), "ga-public");
  assert.equal(n.machineNetns("shoot--p--s-bastion-1"), "ga-m-shoot--p--s-bastion-1");
  assert.equal(n.link("public"), "ga-public");
  const long = n.link("m", "shoot--p--s-bastion-1", "0");
  assert.equal(long.length, MAX_IFNAME);
  assert.ok(long.startsWith("ga-"));
  assert.match(long, /^ga-[0-9a-f]{12}$/);
  assert.equal(n.machineLink("shoot--p--s-bastion-1", 0), long, "same parts give the same name after a restart");
  assert.notEqual(n.machineLink("shoot--p--s-bastion-1", 1), long);
  assert.notEqual(n.machineLink("shoot--p--s-bastion-2", 0), long);
});

test("name parts are validated, so no shell or path characters reach the host", () => {
  const n = new Names();
  for (const bad of ["A", "a b", "a/b", "", "-a", "a;b", "../x"]) assert.throws(() => n.netns(bad), HostSpecError, bad);
});

test("table names use underscores and are recognised by prefix", () => {
  const n = new Names("gt-");
  assert.equal(n.table("nat", "shoot-a.b"), "gt_nat_shoot_a_b");
  assert.ok(n.ownsTable("gt_nat_x"));
  assert.ok(!n.ownsTable("ga_nat_x"));
  assert.ok(n.owns("gt-public"));
  assert.ok(!n.owns("eth0"));
});

test("interface names: at most 15 characters, no slashes or spaces", () => {
  assert.equal(validateIfname("eth0"), "eth0");
  assert.equal(validateIfname("a".repeat(15)), "a".repeat(15));
  for (const bad of ["a".repeat(16), "", "a/b", "a b", ".", ".."]) assert.throws(() => validateIfname(bad), HostSpecError, bad);
});
