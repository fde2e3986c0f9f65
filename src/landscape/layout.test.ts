import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Layout, killRecorded, pidOfOurs } from "./layout.ts";

test("killRecorded kills only processes whose command line names the state directory, and clears run/", async (t) => {
  const layout = new Layout(mkdtempSync(join(tmpdir(), "layout-")));
  t.after(() => rmSync(layout.dir, { recursive: true, force: true }));
  mkdirSync(layout.run);
  // `sh -c script <dir>`: the state directory is part of the command line, as with every component.
  const ours = spawn("sh", ["-c", "sleep 60", layout.dir], { detached: true, stdio: "ignore" });
  const exited = new Promise((r) => ours.once("exit", r));
  writeFileSync(join(layout.run, "ours.pid"), `${ours.pid}\n`);
  writeFileSync(join(layout.run, "foreign.pid"), `${process.pid}\n`);
  writeFileSync(join(layout.run, "supervisor.pid"), `${ours.pid}\n`);
  writeFileSync(join(layout.run, "garbage.pid"), "x\n");
  assert.equal(pidOfOurs(join(layout.run, "ours.pid"), layout.dir), ours.pid);
  assert.equal(pidOfOurs(join(layout.run, "foreign.pid"), layout.dir), undefined);
  assert.equal(pidOfOurs(join(layout.run, "absent.pid"), layout.dir), undefined);

  assert.deepEqual(killRecorded(layout, ["supervisor.pid"]), [ours.pid]);
  await exited;
  assert.equal(existsSync(join(layout.run, "ours.pid")), false);
  assert.equal(existsSync(join(layout.run, "foreign.pid")), false);
  assert.equal(existsSync(join(layout.run, "supervisor.pid")), true, "excepted files stay");
});

test("the layout resolves kubeconfig paths inside the state directory", () => {
  const l = new Layout("rel/dir");
  assert.ok(l.dir.startsWith("/"));
  assert.equal(l.memberKubeconfig, join(l.dir, "garden-member.kubeconfig"));
  assert.equal(l.hostState, join(l.dir, "provider", "host"));
});
