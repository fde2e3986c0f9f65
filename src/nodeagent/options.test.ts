import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseNodeAgentFlags } from "./options.ts";

const base = ["--kubeconfig", "k", "--node-name", "n", "--pool", "p"];

describe("node agent flags: kubelet", () => {
  it("off by default, with the default state directory", () => {
    const r = parseNodeAgentFlags(base);
    assert.equal(r.kind, "options");
    if (r.kind !== "options") return;
    assert.deepEqual([r.options.kubelet, r.options.podCIDR, r.options.kubeletStateDir], [false, undefined, "/var/lib/gardener-node-agent/kubelet"]);
  });

  it("--kubelet with --pod-cidr and a state directory", () => {
    const r = parseNodeAgentFlags([...base, "--kubelet", "--pod-cidr", "10.96.1.0/24", "--kubelet-state-dir", "/tmp/k"]);
    assert.ok(r.kind === "options");
    assert.deepEqual([r.options.kubelet, r.options.podCIDR, r.options.kubeletStateDir], [true, "10.96.1.0/24", "/tmp/k"]);
  });

  it("--kubelet without --pod-cidr, or a malformed range, is a usage error (exit 2)", () => {
    for (const [args, message] of [
      [["--kubelet"], /--pod-cidr is required with --kubelet/],
      [["--kubelet", "--pod-cidr", "10.96.1.0"], /--pod-cidr 10\.96\.1\.0 is not an IPv4 CIDR/],
    ] as const) {
      const r = parseNodeAgentFlags([...base, ...args]);
      assert.ok(r.kind === "exit");
      assert.equal(r.code, 2);
      assert.match(r.stderr, message);
    }
  });
});
