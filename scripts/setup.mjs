#!/usr/bin/env node
// Installs the Debian packages the tests and the local landscape need, when they are missing.
// Runs as part of `npm test` and `gardener-local up`; needs root only when something is missing.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const quiet = process.argv.includes("--quiet");
// binary on PATH -> Debian package that provides it
const needed = [
  ["/usr/bin/etcd", "etcd-server"],
  ["/usr/bin/etcdctl", "etcd-client"],
];

const missing = needed.filter(([bin]) => !existsSync(bin)).map(([, pkg]) => pkg);
if (missing.length === 0) {
  if (!quiet) console.log("setup: all Debian packages present");
  process.exit(0);
}
if (process.getuid?.() !== 0) {
  console.error(`setup: missing Debian packages ${missing.join(", ")}; run as root (or: apt-get install ${missing.join(" ")})`);
  process.exit(1);
}
console.log(`setup: installing ${missing.join(", ")} with apt-get`);
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
const r = spawnSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], { stdio: "inherit", env });
if (r.status !== 0) {
  console.error(`setup: apt-get install failed with exit code ${r.status}`);
  process.exit(1);
}
// Debian starts etcd as a service where systemd runs; our tests start their own etcd on other ports.
spawnSync("sh", ["-c", "command -v systemctl >/dev/null && systemctl disable --now etcd >/dev/null 2>&1 || true"]);
console.log("setup: done");
