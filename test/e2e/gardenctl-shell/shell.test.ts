// `gardenctl ssh` against the real local landscape (root): without a command it opens an interactive
// shell on the node, driven here through a real pty (util-linux `script`): `hostname` prints the node's
// hostname and `exit 7` ends gardenctl with 7. Without a node it lists the nodes and keeps the bastion
// until SIGINT. Both times the Bastion (garden object and seed machine) and the temporary key
// directory are gone afterwards.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "../../../src/client/client.ts";
import { Bastions } from "../../../src/client/garden.ts";
import { eventually } from "../../support/http.ts";
import { Proc, hasScript, inPty, piped } from "./support.ts";

const skip = process.getuid?.() !== 0 ? "needs root (the local landscape creates namespaces, machines, nftables)" : !hasScript() ? "util-linux script missing" : false;
const PREFIX = "gls-";
const REPO = join(import.meta.dirname, "../../..");
const NODE = "shoot--local--local-worker-w1";
const GARDENCTL = [process.execPath, join(REPO, "bin", "gardenctl.js"), "ssh", "--garden", "local", "--project", "local", "--shoot", "local"];

function gardenerLocal(args: string[]): Promise<{ code: number | null; out: string }> {
  const p = new Proc(spawn(process.execPath, [join(REPO, "bin", "gardener-local.js"), ...args], { stdio: ["ignore", "pipe", "pipe"] }));
  return p.exited.then(({ code }) => ({ code, out: p.out }));
}

describe("gardenctl ssh shell e2e", { skip, timeout: 300_000 }, () => {
  let dir: string;
  let tmp: string;
  let garden: Client;
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, GCTL_HOME: join(dir, "gardenctl"), TMPDIR: tmp, TERM: "dumb" });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "gardenctl-shell-e2e-"));
    tmp = mkdtempSync(join(tmpdir(), "gardenctl-shell-tmp-"));
    const r = await gardenerLocal(["up", "--state-dir", dir, "--prefix", PREFIX, "--ports", "18443,18444,18445"]);
    assert.equal(r.code, 0, r.out);
    garden = Client.fromKubeconfigFile(join(dir, "garden.kubeconfig"), { fieldManager: "e2e" });
  });
  after(async () => {
    garden?.close();
    if (existsSync(join(dir, "run"))) await gardenerLocal(["down", "--state-dir", dir, "--prefix", PREFIX]);
    rmSync(dir, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  });

  const bastions = async (): Promise<string[]> => (await garden.list(Bastions, { namespace: "garden-local" })).items.map((b) => b.metadata.name!);
  const bastionMachines = (): string[] => {
    const m = join(dir, "provider", "host", "machines");
    return existsSync(m) ? readdirSync(m).filter((x) => x.includes("bastion")) : [];
  };
  const assertCleanedUp = async (): Promise<void> => {
    // gardenctl deletes the Bastion before it exits; the object goes once the seed side released its finalizer.
    await eventually("the garden Bastion gone", async () => ((await bastions()).length === 0 ? true : undefined), 30_000, 200);
    await eventually("the bastion machine removed", () => (bastionMachines().length === 0 ? true : undefined), 30_000, 200);
    assert.deepEqual(readdirSync(tmp).filter((f) => f.startsWith("gardenctl-ssh-")), [], "the temporary key directory is removed");
  };

  test("without a command: an interactive shell on the node through a pty; `exit 7` ends gardenctl with 7", async () => {
    const p = inPty([...GARDENCTL, NODE], env());
    try {
      await p.waitFor(/You can open additional SSH sessions/, 120_000);
      // Typed ahead into the pty: ssh reads it once the session is up. The arithmetic proves a shell evaluated it.
      p.write("echo shell-$((6*7))\n");
      await p.waitFor(/shell-42/, 60_000);
      const from = p.out.length;
      p.write("hostname\n");
      await p.waitFor(/^worker-w1\r?$/m, 30_000, from);
      p.write("exit 7\n");
      const r = await Promise.race([p.exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`gardenctl did not exit; output:\n${p.out}`)), 60_000))]);
      assert.equal(r.code, 7, p.out);
      assert.doesNotMatch(p.out, /^Error:/m);
    } finally {
      p.child.kill("SIGKILL");
    }
    await assertCleanedUp();
  });

  test("without a node: lists the nodes, keeps the bastion until SIGINT, then cleans up", async () => {
    const p = piped([...GARDENCTL], env());
    try {
      await p.waitFor(/Press Ctrl-C to stop gardenctl/, 120_000);
      assert.match(p.out, /^shoot--local--local-worker-w1\s+\S+\s+10\.250\.\d+\.\d+/m);
      assert.match(p.out, /^shoot--local--local-worker-w2\s+\S+\s+10\.250\.\d+\.\d+/m);
      const names = await bastions();
      assert.equal(names.length, 1, "one bastion while gardenctl waits");
      await new Promise((r) => setTimeout(r, 1_000));
      const b = await garden.get(Bastions, { namespace: "garden-local", name: names[0]! });
      assert.equal(b.metadata.deletionTimestamp, undefined, "the bastion is kept while gardenctl runs");
      assert.equal(bastionMachines().length, 1);
      p.child.kill("SIGINT");
      const r = await p.exited;
      assert.equal(r.code, 0, p.out);
    } finally {
      p.child.kill("SIGKILL");
    }
    await assertCleanedUp();
  });
});
