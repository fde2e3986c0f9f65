// The controller components as a user starts them (bin/kube-scheduler.js, bin/gardener-controller-manager.js):
// a bad flag is one line on stderr and exit 2, never a stack trace or a log line; --help exits 0 on stdout.
// Every flag check itself is covered in-process (src/utils/controller-flags.test.ts and each
// component's options.test.ts); these two process starts show the launchers turn the parser's
// answer into the process's output and exit code.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../support/apiserver.ts";

function run(bin: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(repoRoot, "bin", `${bin}.js`), ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

describe("controller components' flags through the launchers", { timeout: 120_000 }, () => {
  test("kube-scheduler: a bad flag exits 2 with one line; gardener-controller-manager: --help exits 0", async () => {
    const [bad, help] = await Promise.all([
      run("kube-scheduler", ["--kubeconfig", join(repoRoot, "package.json"), "--leader-elect-lease-duration", "5s"]),
      run("gardener-controller-manager", ["--help"]),
    ]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.equal(bad.stderr, "error: --leader-elect-lease-duration must be greater than --leader-elect-renew-deadline\n");
    assert.equal(bad.stdout, "");
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: gardener-controller-manager /);
    assert.match(help.stdout, /Exit codes: 0 after a signal or --help/);
    assert.equal(help.stderr, "");
  });
});
