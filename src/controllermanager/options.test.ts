import { test } from "node:test";
import assert from "node:assert/strict";
import { parseBindAddress } from "../utils/flags.ts";
import { parseControllerManagerFlags } from "./options.ts";
import { parseGardenletFlags } from "../gardenlet/options.ts";
import { fileURLToPath } from "node:url";

/** Any readable file: the parser checks only that --kubeconfig can be read. */
const KUBECONFIG = fileURLToPath(import.meta.url);

test("controller manager flags: defaults and Go durations", () => {
  const r = parseControllerManagerFlags(["--kubeconfig", KUBECONFIG]);
  assert.equal(r.kind, "options");
  if (r.kind !== "options") return;
  assert.equal(r.options.bastionMaxLifetimeMs, 24 * 3_600_000);
  assert.equal(r.options.leaderElect, true);
  assert.equal(r.options.leaderElectLeaseDurationMs, 15_000);
  assert.deepEqual(r.options.metricsBindAddress, { host: "127.0.0.1", port: 2718 });
  const s = parseControllerManagerFlags(["--kubeconfig", KUBECONFIG, "--bastion-max-lifetime", "1h30m", "--leader-elect=false", "--metrics-bind-address", "0"]);
  assert.ok(s.kind === "options");
  assert.equal(s.options.bastionMaxLifetimeMs, 5_400_000);
  assert.equal(s.options.leaderElect, false);
  assert.equal(s.options.metricsBindAddress, undefined);
});

test("controller manager flags: errors are one line and exit 2; help exits 0", () => {
  const bad = parseControllerManagerFlags(["--kubeconfig", KUBECONFIG, "--bastion-max-lifetime", "1d"]);
  assert.deepEqual(bad, { kind: "exit", code: 2, stdout: "", stderr: 'error: --bastion-max-lifetime: invalid duration "1d": unknown unit "d" (valid units: ns, us, ms, s, m, h)\n' });
  const zero = parseControllerManagerFlags(["--kubeconfig", KUBECONFIG, "--bastion-max-lifetime", "0s"]);
  assert.ok(zero.kind === "exit" && /must be positive/.test(zero.stderr));
  assert.deepEqual(parseControllerManagerFlags([]), { kind: "exit", code: 2, stdout: "", stderr: "error: --kubeconfig is required\n" });
  const unknown = parseControllerManagerFlags(["--kubeconfig", KUBECONFIG, "--nope"]);
  assert.ok(unknown.kind === "exit" && unknown.code === 2 && /unknown option '--nope'/.test(unknown.stderr));
  const help = parseControllerManagerFlags(["--help"]);
  assert.ok(help.kind === "exit" && help.code === 0 && help.stdout.includes("--bastion-max-lifetime"));
});

test("gardenlet flags", () => {
  const r = parseGardenletFlags(["--garden-kubeconfig", "/g", "--seed-kubeconfig", "/s", "--seed-name", "local", "--metrics-bind-address", ":9090"]);
  assert.ok(r.kind === "options");
  assert.deepEqual(r.options, { gardenKubeconfig: "/g", seedKubeconfig: "/s", seedName: "local", metricsBindAddress: { host: "0.0.0.0", port: 9090 }, logLevel: "info", shootKubeconfigs: new Map(), sshKeypairPoolSize: 8, vpnServerAddresses: new Map(), vpnKeyAlgorithm: "rsa-3072", vpnEgressSecretsDir: "/srv/kubernetes/vpn", shootCareSyncPeriodMs: 60_000 });
  assert.deepEqual(parseGardenletFlags(["--garden-kubeconfig", "/g", "--seed-kubeconfig", "/s"]), { kind: "exit", code: 2, stdout: "", stderr: "error: --seed-name is required\n" });
});

test("bind addresses", () => {
  assert.deepEqual(parseBindAddress("[::1]:80", "--x"), { host: "::1", port: 80 });
  assert.deepEqual(parseBindAddress("localhost:0", "--x"), { host: "localhost", port: 0 });
  assert.equal(parseBindAddress("0", "--x"), undefined);
  assert.throws(() => parseBindAddress("1.2.3.4", "--x"), /expected host:port/);
  assert.throws(() => parseBindAddress("example.com:80", "--x"), /not an IP address/);
  assert.throws(() => parseBindAddress(":70000", "--x"), /expected host:port/);
});
