import assert from "node:assert/strict";
import { test } from "node:test";
import { KEY_POOL_SIZE } from "./controller/sshkeypair/keypool.ts";
import { MAX_SSH_KEYPAIR_POOL_SIZE, parseGardenletFlags } from "./options.ts";

const base = ["--garden-kubeconfig", "g", "--seed-kubeconfig", "s", "--seed-name", "local"];

test("--shoot-kubeconfig is repeatable and keyed by namespace/name", () => {
  const r = parseGardenletFlags([...base, "--shoot-kubeconfig", "garden-local/local=/a/b=c.kubeconfig", "--shoot-kubeconfig", "garden-p/s=/x"]);
  assert.equal(r.kind, "options");
  if (r.kind !== "options") return;
  assert.deepEqual([...r.options.shootKubeconfigs], [["garden-local/local", "/a/b=c.kubeconfig"], ["garden-p/s", "/x"]]);
});

test("without --shoot-kubeconfig the map is empty", () => {
  const r = parseGardenletFlags(base);
  assert.equal(r.kind === "options" && r.options.shootKubeconfigs.size, 0);
});

test("a malformed or repeated --shoot-kubeconfig is a flag error (exit 2)", () => {
  for (const bad of [["x=/f"], ["a/b/c=/f"], ["a/b="], ["a/b=/f", "a/b=/g"]]) {
    const r = parseGardenletFlags([...base, ...bad.flatMap((v) => ["--shoot-kubeconfig", v])]);
    assert.equal(r.kind, "exit", bad.join(" "));
    if (r.kind === "exit") {
      assert.equal(r.code, 2);
      assert.match(r.stderr, /--shoot-kubeconfig/);
    }
  }
});

test("--ssh-keypair-pool-size: default, a bounded whole number, else a flag error", () => {
  const def = parseGardenletFlags(base);
  assert.equal(def.kind === "options" && def.options.sshKeypairPoolSize, KEY_POOL_SIZE);
  const r = parseGardenletFlags([...base, "--ssh-keypair-pool-size", "24"]);
  assert.equal(r.kind === "options" && r.options.sshKeypairPoolSize, 24);
  for (const bad of ["0", "-1", "1.5", "x", String(MAX_SSH_KEYPAIR_POOL_SIZE + 1)]) {
    const e = parseGardenletFlags([...base, "--ssh-keypair-pool-size", bad]);
    assert.equal(e.kind, "exit", bad);
    if (e.kind === "exit") assert.match(e.stderr, /--ssh-keypair-pool-size/);
  }
});

test("--vpn-server-addresses is repeatable per control-plane namespace and enables the vpn flags' defaults", () => {
  const def = parseGardenletFlags(base);
  assert.ok(def.kind === "options");
  if (def.kind !== "options") return;
  assert.equal(def.options.vpnServerAddresses.size, 0);
  assert.equal(def.options.vpnKeyAlgorithm, "rsa-3072");
  assert.equal(def.options.vpnEgressSecretsDir, "/srv/kubernetes/vpn");
  const r = parseGardenletFlags([...base, "--vpn-server-addresses", "shoot--local--local=10.1.255.2,10.1.255.3", "--vpn-server-addresses", "shoot--p--s=10.1.255.4", "--vpn-key-algorithm", "ecdsa-p256", "--vpn-egress-secrets-dir", "/var/lib/x/vpn"]);
  assert.ok(r.kind === "options");
  if (r.kind !== "options") return;
  assert.deepEqual([...r.options.vpnServerAddresses], [["shoot--local--local", ["10.1.255.2", "10.1.255.3"]], ["shoot--p--s", ["10.1.255.4"]]]);
  assert.equal(r.options.vpnKeyAlgorithm, "ecdsa-p256");
  assert.equal(r.options.vpnEgressSecretsDir, "/var/lib/x/vpn");
});

test("a malformed, repeated or oversized --vpn-server-addresses, an unknown key algorithm or a relative egress directory is a flag error (exit 2)", () => {
  const cases: [string[], RegExp][] = [
    [["--vpn-server-addresses", "shoot--a=10.0.0.1", "--vpn-server-addresses", "shoot--a=10.0.0.2"], /--vpn-server-addresses: namespace shoot--a given twice/],
    [["--vpn-server-addresses", "10.0.0.1"], /--vpn-server-addresses/],
    [["--vpn-server-addresses", "Shoot=10.0.0.1"], /--vpn-server-addresses/],
    [["--vpn-server-addresses", "s=10.0.0.1,10.0.0.2,10.0.0.3"], /one or two distinct IPv4/],
    [["--vpn-server-addresses", "s=10.0.0.1,10.0.0.1"], /one or two distinct IPv4/],
    [["--vpn-server-addresses", "s=::1"], /one or two distinct IPv4/],
    [["--vpn-server-addresses", "s=host.example"], /one or two distinct IPv4/],
    [["--vpn-key-algorithm", "rsa-1024"], /--vpn-key-algorithm/],
    [["--vpn-egress-secrets-dir", "relative/dir"], /--vpn-egress-secrets-dir: expected an absolute path/],
  ];
  for (const [args, message] of cases) {
    const r = parseGardenletFlags([...base, ...args]);
    assert.equal(r.kind, "exit", args.join(" "));
    if (r.kind === "exit") {
      assert.equal(r.code, 2);
      assert.match(r.stderr, message);
    }
  }
});

test("--shoot-care-sync-period is the tunnel check's period (default 1m, 1s..1h); anything else is a flag error", () => {
  const def = parseGardenletFlags(base);
  assert.ok(def.kind === "options" && def.options.shootCareSyncPeriodMs === 60_000);
  const r = parseGardenletFlags([...base, "--shoot-care-sync-period", "10s"]);
  assert.ok(r.kind === "options" && r.options.shootCareSyncPeriodMs === 10_000);
  for (const [value, message] of [["0s", /must be positive/], ["500ms", /expected 1s to 1h/], ["2h", /expected 1s to 1h/], ["ten", /--shoot-care-sync-period/]] as const) {
    const bad = parseGardenletFlags([...base, "--shoot-care-sync-period", value]);
    assert.ok(bad.kind === "exit" && bad.code === 2 && message.test(bad.stderr), `${value}: ${JSON.stringify(bad)}`);
  }
});
