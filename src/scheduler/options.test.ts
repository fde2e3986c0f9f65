import { test } from "node:test";
import assert from "node:assert/strict";
import { parseSchedulerFlags } from "./options.ts";
import { fileURLToPath } from "node:url";

/** Any readable file: the parser checks only that --kubeconfig can be read. */
const KUBECONFIG = fileURLToPath(import.meta.url);

test("kube-scheduler flags: upstream's defaults", () => {
  const r = parseSchedulerFlags(["--kubeconfig", KUBECONFIG]);
  assert.ok(r.kind === "options");
  assert.deepEqual(r.options, {
    kubeconfig: KUBECONFIG,
    metricsBindAddress: { host: "127.0.0.1", port: 10251 },
    leaderElect: true,
    leaderElectLeaseDurationMs: 15_000,
    leaderElectRenewDeadlineMs: 10_000,
    leaderElectRetryPeriodMs: 2_000,
    leaderElectResourceNamespace: "kube-system",
    leaderElectResourceName: "kube-scheduler",
    schedulerName: "default-scheduler",
    logLevel: "info",
  });
  const s = parseSchedulerFlags(["--kubeconfig", KUBECONFIG, "--leader-elect=false", "--metrics-bind-address", "0", "--log-level", "debug"]);
  assert.ok(s.kind === "options");
  assert.equal(s.options.leaderElect, false);
  assert.equal(s.options.metricsBindAddress, undefined);
  assert.equal(s.options.logLevel, "debug");
});

test("kube-scheduler flags: errors are one line and exit 2; help exits 0", () => {
  assert.deepEqual(parseSchedulerFlags([]), { kind: "exit", code: 2, stdout: "", stderr: "error: --kubeconfig is required\n" });
  const lease = parseSchedulerFlags(["--kubeconfig", KUBECONFIG, "--leader-elect-lease-duration", "5s"]);
  assert.deepEqual(lease, { kind: "exit", code: 2, stdout: "", stderr: "error: --leader-elect-lease-duration must be greater than --leader-elect-renew-deadline\n" });
  const bind = parseSchedulerFlags(["--kubeconfig", KUBECONFIG, "--metrics-bind-address", "nowhere"]);
  assert.ok(bind.kind === "exit" && bind.code === 2 && /--metrics-bind-address/.test(bind.stderr));
  const elect = parseSchedulerFlags(["--kubeconfig", KUBECONFIG, "--leader-elect=maybe"]);
  assert.ok(elect.kind === "exit" && elect.code === 2 && /must be true or false/.test(elect.stderr));
  const level = parseSchedulerFlags(["--kubeconfig", KUBECONFIG, "--log-level", "loud"]);
  assert.ok(level.kind === "exit" && level.code === 2 && level.stderr.startsWith('error: invalid value "loud" for --log-level'));
  const help = parseSchedulerFlags(["--help"]);
  assert.ok(help.kind === "exit" && help.code === 0 && help.stdout.includes("--leader-elect-resource-name"));
});
