#!/usr/bin/env node
// A stand-in for OpenSSH used by the gardenctl tests: records its argv, the received signals and
// a snapshot of gardenctl's private directories ($TMPDIR/gardenctl-ssh-*) into $FAKE_SSH_LOG (one
// JSON document per run, appended as a line), prints $FAKE_SSH_STDOUT, then exits with
// $FAKE_SSH_EXIT (default 0) or, with FAKE_SSH_HANG=1, waits for a signal and exits 128+n.
import { appendFileSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { setInterval } from "node:timers";

const tmp = process.env.TMPDIR ?? "/tmp";
const files = {};
for (const d of readdirSync(tmp).filter((n) => n.startsWith("gardenctl-ssh-"))) {
  const dir = join(tmp, d);
  files[dir] = { mode: statSync(dir).mode & 0o777 };
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    files[p] = { mode: statSync(p).mode & 0o777, content: readFileSync(p, "utf8") };
  }
}
const record = (extra) => appendFileSync(process.env.FAKE_SSH_LOG, JSON.stringify({ argv: process.argv.slice(2), files, stdin: process.stdin.isTTY ?? false, ...extra }) + "\n");
if (process.env.FAKE_SSH_STDOUT) process.stdout.write(process.env.FAKE_SSH_STDOUT);
if (process.env.FAKE_SSH_HANG === "1") {
  record({ hanging: true });
  const codes = { SIGTERM: 143, SIGHUP: 129, SIGINT: 130 };
  for (const s of Object.keys(codes)) process.on(s, () => (record({ signal: s }), process.exit(codes[s])));
  // Orphaned (gardenctl killed): end like ssh does when its terminal goes away.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && process.exit(129), 200);
} else {
  record({});
  process.exit(Number(process.env.FAKE_SSH_EXIT ?? "0"));
}
