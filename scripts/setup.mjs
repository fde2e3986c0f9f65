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
  // host/: machines, networks and firewalls of the local landscape
  ["/usr/sbin/ip", "iproute2"],
  ["/usr/sbin/nft", "nftables"],
  ["/usr/bin/unshare", "util-linux"],
  ["/usr/bin/nsenter", "util-linux"],
  ["/usr/sbin/pivot_root", "util-linux"],
  ["/usr/bin/mount", "mount"],
  ["/usr/sbin/sysctl", "procps"],
  ["/usr/sbin/sshd", "openssh-server"],
  ["/usr/bin/ssh", "openssh-client"],
  ["/usr/bin/ssh-keygen", "openssh-client"],
  ["/usr/bin/ssh-keyscan", "openssh-client"],
  ["/usr/sbin/useradd", "passwd"],
  // bastion user-data writes /etc/sudoers.d/ (GEP-15 user-data); machines see the host's /usr read-only
  ["/usr/bin/sudo", "sudo"],
  // host/ e2e tests: connectivity checks between namespaces
  ["/usr/bin/nc.openbsd", "netcat-openbsd"],
  ["/usr/bin/ping", "iputils-ping"],
  // machines are user namespaces: host/native/nsutil.c (idmapped mounts) is compiled on first use
  ["/usr/bin/cc", "gcc"],
  ["/usr/include/stdio.h", "libc6-dev"],
  ["/usr/include/linux/mount.h", "linux-libc-dev"],
  ["/usr/bin/mkfifo", "coreutils"],
  // machines announce their addresses when they boot (gratuitous ARP)
  ["/usr/bin/arping", "iputils-arping"],
  // the reversed VPN (src/vpn/): OpenVPN servers and clients in network namespaces
  ["/usr/sbin/openvpn", "openvpn"],
  // the landscape's probe of the vpn-shoot-client's health from inside its namespace (landscape/vpnpod.ts)
  ["/usr/bin/curl", "curl"],
  // the README's query of the garden's audit log; test/e2e/landscape/audit.test.ts runs it
  ["/usr/bin/jq", "jq"],
  // the power-cut test: SQLite on ext4 on a loop device
  ["/usr/sbin/losetup", "mount"],
  ["/usr/sbin/mkfs.ext4", "e2fsprogs"],
  // the dashboard's browser tests (playwright-core drives Debian's headless chromium)
  ["/usr/bin/chromium", "chromium"],
];

const missing = [...new Set(needed.filter(([bin]) => !existsSync(bin)).map(([, pkg]) => pkg))];
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
// (The host's own sshd, if any, is left alone: machines run their own sshd in their own namespaces.)
spawnSync("sh", ["-c", "command -v systemctl >/dev/null && systemctl disable --now etcd >/dev/null 2>&1 || true"]);
console.log("setup: done");
