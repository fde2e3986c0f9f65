import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseTerminalControllerManagerFlags } from "./options.ts";

const base = ["--kubeconfig", "k", "--webhook-server-cert-dir", "d"];

describe("terminal-controller-manager flags", () => {
  it("defaults as upstream", () => {
    const r = parseTerminalControllerManagerFlags(base);
    assert.equal(r.kind, "options");
    if (r.kind !== "options") return;
    assert.deepEqual([r.options.timeToLiveMs, r.options.maxObjectSize, r.options.maxTerminalsPerUser, r.options.maxTerminals], [300_000, 10240, 10, 100]);
    assert.deepEqual(r.options.webhookBindAddress, { host: "127.0.0.1", port: 9443 });
    assert.equal(r.options.leaderElectResourceName, "terminal-controller-leader-election");
    assert.equal(r.options.webhookURL, undefined);
    assert.equal(r.options.honourCleanupProjectMembership, false);
  });

  it("--honour-cleanup-project-membership turns the membership cleanup on (bare or true)", () => {
    for (const args of [["--honour-cleanup-project-membership"], ["--honour-cleanup-project-membership", "true"]]) {
      const r = parseTerminalControllerManagerFlags([...base, ...args]);
      assert.equal(r.kind, "options");
      if (r.kind === "options") assert.equal(r.options.honourCleanupProjectMembership, true);
    }
  });

  it("refuses bad flags with one line and exit code 2", () => {
    for (const [args, text] of [
      [["--webhook-server-cert-dir", "d"], "--kubeconfig is required"],
      [[...base, "--webhook-url", "http://x"], "--webhook-url must be an https URL"],
      [[...base, "--webhook-url", "https://127.0.0.1:9443"], "--webhook-url and --webhook-ca-file go together"],
      [[...base, "--max-terminals-per-user", "x"], "--max-terminals-per-user must be a non-negative integer"],
      [[...base, "--time-to-live", "soon"], "--time-to-live"],
      [[...base, "--honour-cleanup-project-membership", "maybe"], "for --honour-cleanup-project-membership: must be true or false"],
    ] as const) {
      const r = parseTerminalControllerManagerFlags([...args]);
      assert.equal(r.kind, "exit");
      if (r.kind !== "exit") continue;
      assert.equal(r.code, 2);
      assert.ok(r.stderr.includes(text), r.stderr);
    }
  });
});
