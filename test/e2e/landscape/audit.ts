// The garden's audit log on a running landscape (used by landscape.test.ts, on its landscape): the
// project member opens a bastion with `gardenctl ssh` (a heartbeat, then the bastion is deleted when the
// session ends); the README's jq query over <state-dir>/logs/garden-audit.log answers who opened a
// bastion to which shoot, from which address and CIDR, when it was renewed and when it ended.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MEMBER_USER } from "../../../src/landscape/layout.ts";

const ROOT = join(import.meta.dirname, "../../..");

export const auditSkip = existsSync("/usr/bin/jq") ? false : "jq is missing: run `npm run setup`";

function run(env: () => NodeJS.ProcessEnv, script: string, args: string[], timeoutMs = 180_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "bin", script), ...args], { stdio: ["ignore", "pipe", "pipe"], env: env() });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("close", (code) => (clearTimeout(timer), resolve({ code, out })));
  });
}

/** The README's query, run on this landscape's audit log. */
function readmeQuery(log: string): Record<string, unknown>[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Who had access"));
  const line = section.split("\n").find((l) => l.startsWith("jq "));
  assert.ok(line, "the README shows a jq query");
  const query = line.replace("/var/lib/gardener-local/logs/garden-audit.log", log);
  return execFileSync("sh", ["-c", query], { encoding: "utf8" }).split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The member's bastion session on the landscape in `dir`, then the audit log's answer about it. */
export async function checkAuditTrail(dir: string, env: () => NodeJS.ProcessEnv): Promise<void> {
  const ssh = await run(env, "gardenctl.js", [
    "ssh", "--kubeconfig", join(dir, "garden-member.kubeconfig"), "--project", "local", "--shoot", "local",
    "--keepalive-interval", "10s", "shoot--local--local-worker-w1", "--", "sh", "-c", "'hostname; sleep 13'",
  ]);
  assert.equal(ssh.code, 0, ssh.out);
  assert.match(ssh.out, /^worker-w1$/m);
  const cidr = /cidr="(\d+\.\d+\.\d+\.\d+\/32)"/.exec(ssh.out)?.[1];
  assert.ok(cidr, `gardenctl names the CIDR it admitted: ${ssh.out}`);

  const log = join(dir, "logs", "garden-audit.log");
  // gardenctl returns once its delete was answered; the server writes the event right after.
  let rows: Record<string, unknown>[] = [];
  const memberEnded = () => rows.some((r) => r.by === MEMBER_USER && r.ended);
  for (let i = 0; i < 50 && !memberEnded(); i++) {
    rows = existsSync(log) ? readmeQuery(log) : [];
    if (!memberEnded()) await new Promise((r) => setTimeout(r, 100));
  }
  // Only the member's session: the landscape test's earlier sessions ran as the garden admin.
  rows = rows.filter((r) => r.by === MEMBER_USER);
  assert.equal(rows.length, 1, JSON.stringify(rows));
  const row = rows[0]!;
  assert.match(String(row.bastion), /^garden-local\/\S+$/);
  assert.equal(row.shoot, "local");
  assert.deepEqual(row.cidrs, [cidr]);
  assert.equal(row.by, MEMBER_USER);
  assert.deepEqual(row.from, ["127.0.0.1"], "gardenctl reached the garden API server over loopback");
  assert.equal(row.endedBy, MEMBER_USER, "the session's end deleted the bastion");
  const [opened, renewed, ended] = [String(row.opened), String(row.renewed), String(row.ended)];
  assert.ok(opened < renewed && renewed < ended, `opened ${opened} < renewed ${renewed} < ended ${ended}`);
  // Only Bastion writes are recorded: nothing about other kinds.
  const kinds = new Set(readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => (JSON.parse(l) as { objectRef?: { resource?: string } }).objectRef?.resource));
  assert.deepEqual([...kinds], ["bastions"]);
}
