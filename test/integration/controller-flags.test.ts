// The controller components as a user starts them (bin/kube-scheduler.js, bin/gardener-controller-manager.js):
// a bad flag is one line on stderr and exit 2, never a stack trace or a log line; --help exits 0 on stdout.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../support/apiserver.ts";

function run(bin: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(repoRoot, "bin", `${bin}.js`), ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

const readable = join(repoRoot, "package.json");
const bad: [string[], string][] = [
  [["--kubeconfig", "/nonexistent/kubeconfig"], 'error: invalid value "/nonexistent/kubeconfig" for --kubeconfig: no such file\n'],
  [["--kubeconfig", readable, "--no-such-flag"], "error: unknown option '--no-such-flag'\n"],
  [["--kubeconfig", readable, "--leader-elect-lease-duration", "5s"], "error: --leader-elect-lease-duration must be greater than --leader-elect-renew-deadline\n"],
];

describe("controller components' flags through the launchers", { timeout: 120_000 }, () => {
  for (const bin of ["kube-scheduler", "gardener-controller-manager"]) {
    test(`${bin}: bad flags exit 2 with one line; --help exits 0`, async () => {
      const [help, ...failures] = await Promise.all([run(bin, ["--help"]), ...bad.map(([args]) => run(bin, args))]);
      assert.equal(help!.code, 0, help!.stderr);
      assert.match(help!.stdout, /Exit codes: 0 after a signal or --help/);
      failures.forEach((r, i) => {
        assert.equal(r.code, 2, r.stderr);
        assert.equal(r.stderr, bad[i]![1]);
        assert.equal(r.stdout, "");
      });
    });
  }
});
