import { test } from "node:test";
import assert from "node:assert/strict";
import { NestedExec, rewriteIpNetns } from "./nested-exec.ts";
import { RecordingExec } from "./exec.ts";

test("ip -n and ip netns exec become nsenter --net, with family flags kept", () => {
  assert.deepEqual(rewriteIpNetns("ip", ["-n", "ga-p", "link", "set", "dev", "lo", "up"]), ["nsenter", ["--net=/run/netns/ga-p", "--", "ip", "link", "set", "dev", "lo", "up"]]);
  assert.deepEqual(rewriteIpNetns("ip", ["-6", "-n", "ga-p", "route", "replace", "default"]), ["nsenter", ["--net=/run/netns/ga-p", "--", "ip", "-6", "route", "replace", "default"]]);
  assert.deepEqual(rewriteIpNetns("ip", ["netns", "exec", "ga-p", "sysctl", "-qw", "x=1"]), ["nsenter", ["--net=/run/netns/ga-p", "--", "sysctl", "-qw", "x=1"]]);
});

test("other commands and ip without a namespace pass unchanged", () => {
  assert.deepEqual(rewriteIpNetns("ip", ["link", "add", "name", "a", "netns", "ga-p", "type", "veth"]), ["ip", ["link", "add", "name", "a", "netns", "ga-p", "type", "veth"]]);
  assert.deepEqual(rewriteIpNetns("ip", ["netns", "add", "ga-p"]), ["ip", ["netns", "add", "ga-p"]]);
  assert.deepEqual(rewriteIpNetns("mount", ["-n", "x"]), ["mount", ["-n", "x"]]);
});

test("NestedExec hands rewritten calls to the inner Exec", async () => {
  const inner = new RecordingExec();
  await new NestedExec(inner).run("ip", ["-n", "ga-p", "-o", "link", "show"]);
  assert.deepEqual(inner.lines(), ["nsenter --net=/run/netns/ga-p -- ip -o link show"]);
});
