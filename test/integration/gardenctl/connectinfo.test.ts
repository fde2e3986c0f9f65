// Connect-info mode (docs/gardenctl-ssh.md#connect-info-mode) against the real garden: without a node the nodes are listed with
// the command (placeholder host), the bastion is kept alive with heartbeats on schedule until
// Ctrl-C (exit 0, cleanup); `-o json --no-keepalive --keep-bastion` prints one document and keeps
// the Bastion and the files.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { Bastions } from "../../../src/cli/commands/ssh/resources.ts";
import { isNotFound } from "../../../src/apimachinery/errors.ts";
import { eventually } from "../../support/http.ts";
import { ipFor } from "../bastion/actuator.ts";
import { CLI_WAIT_MS, type Env, PROJECT_NS, gardenctl, privateDirs, startEnv } from "./support.ts";

describe("gardenctl ssh: connect info", () => {
  let e: Env;
  before(async () => {
    e = await startEnv();
  });
  after(async () => {
    await e?.ls.stop();
  });

  test("no node: node table, placeholder command, heartbeats every --keepalive-interval, Ctrl-C ends with exit 0 and cleanup", async (t) => {
    const run = gardenctl(e, ["--skip-availability-check", "--keepalive-interval", "10s", "-v", "4"]);
    t.after(() => run.kill());
    await run.waitFor(/Press Ctrl-C/, "stdout");
    const name = /bastion="garden-p\/(cli-[0-9a-z]{8})"/.exec(run.stderr())![1]!;
    const out = run.stdout();
    const lines = out.split("\n");
    assert.deepEqual(lines.slice(0, 2), ["> The shoot cluster has the following nodes:", ""]);
    assert.match(lines[2]!, /^NODE NAME\s+STATUS\s+IP\s+HOSTNAME$/);
    assert.match(lines[3]!, /^node-a\s+Ready\s+10\.250\.0\.5\s+node-a\.internal$/);
    assert.match(lines[4]!, /^node-b\s+Not Ready\s+10\.250\.0\.6\s+node-b\.internal$/);
    assert.deepEqual(lines.slice(5, 9), [
      "",
      "> Connect to shoot nodes by using the bastion as a proxy/jump host.",
      "> Run the following command in a separate terminal (formatted for bash):",
      "> Note: The command includes a placeholder (IP_OR_HOSTNAME). Replace it with the actual IP or hostname before running the command.",
    ]);
    assert.equal(lines[9], "");
    assert.match(lines[10]!, new RegExp(`^ssh -oIdentitiesOnly=yes -oStrictHostKeyChecking=accept-new .*'"'"'gardener@${ipFor(name).replaceAll(".", "\\.")}'"'"'' 'gardener@IP_OR_HOSTNAME'$`));
    assert.deepEqual(lines.slice(11), ["", "> Press Ctrl-C to stop gardenctl, after which the bastion will be removed.", ""]);
    // Only node-a publishes keys: the node hop falls back (accept-new, no TTY) and lists the pinned file last.
    assert.match(run.stderr(), /^Warning: node does not publish SSH host keys; falling back to StrictHostKeyChecking=accept-new$/m);
    assert.match(run.stderr(), /^Using default known_hosts file for shoot node knownHostsFile=".*\/cache\/[0-9a-f-]{36}\/\.ssh\/known_hosts"$/m);
    assert.match(lines[10]!, /\/cache\/[0-9a-f-]{36}\/\.ssh\/known_hosts'"'"' '"'"'.*\/node_known_hosts'"'"''/);

    // Heartbeats: the garden runs on a fake clock; move it so the next keepalive is visible.
    const first = (await e.ls.gardenAdmin.get(Bastions, { namespace: PROJECT_NS, name })).status!.lastHeartbeatTimestamp!;
    e.ls.clock.step(60_000);
    const beat = await eventually("a keepalive heartbeat", async () => {
      const hb = (await e.ls.gardenAdmin.get(Bastions, { namespace: PROJECT_NS, name })).status?.lastHeartbeatTimestamp;
      return hb && hb !== first ? hb : undefined;
    }, CLI_WAIT_MS, 100);
    assert.equal(Date.parse(beat) - Date.parse(first), 60_000);
    // gardenctl logs the keepalive once the server has answered: the line may follow the heartbeat.
    await run.waitFor(new RegExp(`^Sent keepalive bastion="${PROJECT_NS}/${name}"$`, "m"));
    // The first tick comes one interval after creation, not at once (measured on arrival, so a slow
    // machine only makes the gap longer).
    const created = run.seenAt(/Bastion operation bastion=/)!;
    const firstTick = run.seenAt(/^Sent keepalive/m)!;
    assert.ok(firstTick - created >= 9_500, `first keepalive ${Math.round(firstTick - created)} ms after creation`);

    run.child.kill("SIGINT");
    assert.equal(await run.exit, 0, run.stderr());
    assert.match(run.stderr(), /^Caught signal, cancelling...$/m);
    assert.match(run.stderr(), /^Cleaning up$/m);
    await eventually("bastion deleted", async () => {
      try {
        return (await e.ls.gardenAdmin.get(Bastions, { namespace: PROJECT_NS, name })).metadata.deletionTimestamp ? true : undefined;
      } catch (err) {
        return isNotFound(err) ? true : undefined;
      }
    }, CLI_WAIT_MS);
    assert.deepEqual(privateDirs(e), []);
  });

  test("-o json --no-keepalive --keep-bastion --interactive=false node-a: one document, exit 0, Bastion and files kept", async () => {
    const run = gardenctl(e, ["node-a", "--interactive=false", "--no-keepalive", "--keep-bastion", "-o", "json", "--skip-availability-check", "--shell", "zsh"]);
    assert.equal(await run.exit, 0, run.stderr());
    const doc = JSON.parse(run.stdout()) as Record<string, unknown> & { bastion: Record<string, unknown>; command: string; nodePrivateKeyFiles: string[] };
    const name = doc.bastion.name as string;
    assert.match(name, /^cli-[0-9a-z]{8}$/);
    assert.deepEqual(Object.keys(doc), ["bastion", "nodeHostname", "nodePrivateKeyFiles", "nodes", "user", "shell", "nodeUserKnownHostsFiles", "nodeStrictHostKeyChecking", "command"]);
    assert.equal(doc.bastion.ip, ipFor(name));
    assert.equal(doc.bastion.preferredAddress, ipFor(name));
    assert.equal(doc.bastion.port, "22");
    assert.equal(doc.bastion.strictHostKeyChecking, "yes");
    assert.equal(doc.nodeHostname, "10.250.0.5");
    assert.equal(doc.nodeStrictHostKeyChecking, "yes");
    assert.equal(doc.shell, "zsh");
    assert.deepEqual(doc.nodes, []);
    assert.match(doc.command, / 'gardener@10\.250\.0\.5'$/);
    assert.match(run.stderr(), new RegExp(`^Keeping bastion bastion="${PROJECT_NS}/${name}"$`, "m"));
    assert.doesNotMatch(run.stderr(), /Press Ctrl-C/);
    const b = await e.ls.gardenAdmin.get(Bastions, { namespace: PROJECT_NS, name });
    assert.equal(b.metadata.deletionTimestamp, undefined, "the Bastion is kept");
    assert.ok(existsSync(doc.bastion.privateKeyFile as string));
    assert.ok(existsSync(doc.nodePrivateKeyFiles[0]!));
    await e.ls.gardenAdmin.delete(Bastions, { namespace: PROJECT_NS, name });
    rmSync(dirname(doc.bastion.privateKeyFile as string), { recursive: true, force: true });
  });
});
