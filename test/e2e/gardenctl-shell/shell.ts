// `gardenctl ssh` as a user types it, against a running local landscape (root; landscape.test.ts runs
// these on its landscape): without a command it opens an interactive shell on the node, driven through
// a real pty (util-linux `script`): `hostname` prints the node's hostname and `exit 7` ends gardenctl
// with 7. Without a node it lists the nodes and keeps the bastion until SIGINT. Both times the Bastion
// (garden object and seed machine) and the temporary key directory are gone afterwards.
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "../../../src/client/client.ts";
import { Bastions } from "../../../src/client/garden.ts";
import { POOL_NAME_PREFIX } from "../../../src/provider-local/machines/pool.ts";
import { eventually } from "../../support/http.ts";
import { hasScript, inPty, piped } from "./support.ts";

export const shellSkip = hasScript() ? false : "util-linux script missing";
const REPO = join(import.meta.dirname, "../../..");
const NODE = "shoot--local--local-worker-w1";
const GARDENCTL = [process.execPath, join(REPO, "bin", "gardenctl.js"), "ssh", "--garden", "local", "--project", "local", "--shoot", "local"];

/**
 * The shell checks on the landscape in `dir`; `userEnv` is the user's environment (a HOME where `up`
 * wrote gardenctl's config), `tmp` the TMPDIR gardenctl gets (its key directory must be gone after).
 */
export class ShellChecks {
  private readonly garden: Client;

  constructor(
    private readonly dir: string,
    private readonly userEnv: () => NodeJS.ProcessEnv,
    private readonly tmp: string,
  ) {
    this.garden = Client.fromKubeconfigFile(join(dir, "garden.kubeconfig"), { fieldManager: "e2e" });
  }

  close(): void {
    this.garden.close();
  }

  private env(): NodeJS.ProcessEnv {
    return { ...this.userEnv(), TMPDIR: this.tmp, TERM: "dumb" };
  }

  private async bastions(): Promise<string[]> {
    return (await this.garden.list(Bastions, { namespace: "garden-local" })).items.map((b) => b.metadata.name!);
  }
  /** Bastion machines by their records (a claimed one keeps its held machine's directory; held ones are provider-local's pool). */
  private bastionMachines(): string[] {
    const r = join(this.dir, "provider", "host", "records");
    const pool = encodeURIComponent(`machine/${POOL_NAME_PREFIX}`);
    return existsSync(r) ? readdirSync(r).filter((x) => x.startsWith(encodeURIComponent("machine/")) && x.includes(".bastion-") && !x.startsWith(pool)) : [];
  }
  private async assertCleanedUp(): Promise<void> {
    // gardenctl deletes the Bastion before it exits; the object goes once the seed side released its finalizer.
    await eventually("the garden Bastion gone", async () => ((await this.bastions()).length === 0 ? true : undefined), 30_000, 200);
    await eventually("the bastion machine removed", () => (this.bastionMachines().length === 0 ? true : undefined), 30_000, 200);
    assert.deepEqual(readdirSync(this.tmp).filter((f) => f.startsWith("gardenctl-ssh-")), [], "the temporary key directory is removed");
  }

  /** Without a command: an interactive shell on the node through a pty; `exit 7` ends gardenctl with 7. */
  async interactiveShell(): Promise<void> {
    const p = inPty([...GARDENCTL, NODE], this.env());
    try {
      await p.waitFor(/You can open additional SSH sessions/, 120_000);
      // Typed ahead into the pty: ssh reads it once the session is up. The arithmetic proves a shell evaluated it.
      p.write("echo shell-$((6*7))\n");
      await p.waitFor(/shell-42/, 60_000);
      const from = p.out.length;
      p.write("hostname\n");
      await p.waitFor(/^worker-w1\r?$/m, 30_000, from);
      p.write("exit 7\n");
      const r = await Promise.race([p.exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`gardenctl did not exit; output:\n${p.out}`)), 60_000).unref())]);
      assert.equal(r.code, 7, p.out);
      assert.doesNotMatch(p.out, /^Error:/m);
    } finally {
      p.child.kill("SIGKILL");
    }
    await this.assertCleanedUp();
  }

  /** Without a node: lists the nodes, keeps the bastion until SIGINT, then cleans up. */
  async untilInterrupted(): Promise<void> {
    const p = piped([...GARDENCTL], this.env());
    try {
      await p.waitFor(/Press Ctrl-C to stop gardenctl/, 120_000);
      assert.match(p.out, /^shoot--local--local-worker-w1\s+\S+\s+10\.250\.\d+\.\d+/m);
      assert.match(p.out, /^shoot--local--local-worker-w2\s+\S+\s+10\.250\.\d+\.\d+/m);
      const names = await this.bastions();
      assert.equal(names.length, 1, "one bastion while gardenctl waits");
      await new Promise((r) => setTimeout(r, 1_000));
      const b = await this.garden.get(Bastions, { namespace: "garden-local", name: names[0]! });
      assert.equal(b.metadata.deletionTimestamp, undefined, "the bastion is kept while gardenctl runs");
      assert.equal(this.bastionMachines().length, 1);
      p.child.kill("SIGINT");
      const r = await p.exited;
      assert.equal(r.code, 0, p.out);
    } finally {
      p.child.kill("SIGKILL");
    }
    await this.assertCleanedUp();
  }
}
