import { test } from "node:test";
import assert from "node:assert/strict";
import { parseProviderLocalFlags } from "./options.ts";

test("defaults and flags", () => {
  const r = parseProviderLocalFlags(["--kubeconfig", "/k", "--public-cidr", "172.31.0.0/24", "--metrics-bind-address", "0"]);
  assert.equal(r.kind, "options");
  if (r.kind !== "options") return;
  assert.deepEqual(r.options, {
    kubeconfig: "/k",
    stateDir: "/var/lib/gardener-local/provider-local",
    prefix: undefined,
    publicCidr: "172.31.0.0/24",
    nodeCidrPool: "10.250.0.0/16",
    concurrentSyncs: 16,
    bastionPoolSize: 10,
    metricsBindAddress: undefined,
    logLevel: "info",
  });
});

test("bad flags: one line and exit 2; help exits 0", () => {
  for (const [argv, re] of [
    [[], /--kubeconfig is required/],
    [["--kubeconfig", "/k", "--public-cidr", "10.0.0.1"], /invalid value "10\.0\.0\.1" for --public-cidr/],
    [["--kubeconfig", "/k", "--node-cidr-pool", "fd00::/64"], /only IPv4/],
    [["--kubeconfig", "/k", "--concurrent-syncs", "0"], /--concurrent-syncs/],
    [["--kubeconfig", "/k", "--bastion-pool-size", "-1"], /--bastion-pool-size/],
    [["--kubeconfig", "/k", "--bastion-pool-size", "65"], /--bastion-pool-size/],
    [["--bogus"], /unknown option/],
  ] as const) {
    const r = parseProviderLocalFlags([...argv]);
    assert.equal(r.kind, "exit");
    if (r.kind !== "exit") continue;
    assert.equal(r.code, 2);
    assert.match(r.stderr, re);
    assert.equal(r.stderr.trim().split("\n").length, 1);
  }
  const help = parseProviderLocalFlags(["--help"]);
  assert.equal(help.kind === "exit" && help.code, 0);
  assert.match(help.kind === "exit" ? help.stdout : "", /--public-cidr/);
});
