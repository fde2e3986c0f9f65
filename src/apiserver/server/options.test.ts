import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseOptions } from "./options.ts";

function opts(argv: string[]) {
  const r = parseOptions(argv);
  assert.equal(r.kind, "options", r.kind === "exit" ? r.stderr : "");
  return r.kind === "options" ? r.options : assert.fail();
}

function exit(argv: string[]) {
  const r = parseOptions(argv);
  assert.equal(r.kind, "exit");
  return r.kind === "exit" ? r : assert.fail();
}

void describe("parseOptions", () => {
  void it("applies kube-apiserver's defaults", () => {
    const o = opts(["--data-dir", "/tmp/d"]);
    assert.deepEqual(
      {
        securePort: o.securePort,
        bindAddress: o.bindAddress,
        certDir: o.certDir,
        etcdServers: o.etcdServers,
        etcdPrefix: o.etcdPrefix,
        authorizationModes: o.authorizationModes,
        anonymousAuth: o.anonymousAuth,
        watchCacheSize: o.watchCacheSize,
        compactionIntervalMs: o.compactionIntervalMs,
        compactionRetainedRevisions: o.compactionRetainedRevisions,
        nodeMonitorGracePeriodMs: o.nodeMonitorGracePeriodMs,
        leaderElection: o.leaderElection,
        workers: o.workers,
      },
      {
        securePort: 6443,
        bindAddress: "127.0.0.1",
        certDir: "/tmp/d/pki",
        etcdServers: [],
        etcdPrefix: "/registry",
        authorizationModes: ["Node", "RBAC"],
        anonymousAuth: true,
        watchCacheSize: 10000,
        compactionIntervalMs: 300_000,
        compactionRetainedRevisions: 10000,
        nodeMonitorGracePeriodMs: 40_000,
        leaderElection: { enabled: true, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
        workers: 1,
      },
    );
  });

  void it("parses every flag", () => {
    const o = opts([
      "--data-dir=/d",
      "--secure-port=0",
      "--bind-address=0.0.0.0",
      "--cert-dir=/c",
      "--tls-cert-file=/t.crt",
      "--tls-private-key-file=/t.key",
      "--client-ca-file=/ca.crt",
      "--token-auth-file=/tokens.csv",
      "--etcd-servers=http://127.0.0.1:2379,http://127.0.0.1:2380",
      "--etcd-prefix=/other",
      "--service-account-key-file=/a.pub",
      "--service-account-key-file=/b.pub",
      "--service-account-signing-key-file=/sa.key",
      "--service-account-issuer=https://issuer",
      "--authorization-mode=AlwaysAllow",
      "--anonymous-auth=true",
      "--advertise-address=10.0.0.1",
      "--watch-cache-size=0",
      "--etcd-compaction-interval=1h30m",
      "--compaction-retained-revisions=5",
    ]);
    assert.equal(o.securePort, 0);
    assert.equal(o.certDir, "/c");
    assert.deepEqual(o.etcdServers, ["http://127.0.0.1:2379", "http://127.0.0.1:2380"]);
    assert.deepEqual(o.serviceAccountKeyFiles, ["/a.pub", "/b.pub"]);
    assert.deepEqual(o.serviceAccountIssuers, ["https://issuer"]);
    assert.deepEqual(o.authorizationModes, ["AlwaysAllow"]);
    assert.equal(o.anonymousAuth, false, "AlwaysAllow turns anonymous auth off, as in kube-apiserver");
    assert.equal(o.watchCacheSize, 0);
    assert.equal(o.compactionIntervalMs, 5_400_000);
    assert.equal(o.compactionRetainedRevisions, 5);
    assert.equal(opts(["--data-dir=/d", "--anonymous-auth"]).anonymousAuth, true);
    assert.equal(opts(["--data-dir=/d", "--anonymous-auth=false"]).anonymousAuth, false);
    assert.equal(opts(["--data-dir=/d", "--authorization-mode=RBAC,AlwaysAllow"]).anonymousAuth, false);
  });

  void it("--tls-san takes IP addresses and DNS names, comma-separated and repeated, and refuses anything else", () => {
    assert.equal(opts(["--data-dir=/d"]).tlsSans, undefined);
    assert.deepEqual(opts(["--data-dir=/d", "--tls-san=198.18.0.2,garden.local", "--tls-san", "::1"]).tlsSans, ["198.18.0.2", "garden.local", "::1"]);
    for (const bad of ["https://x", "under_score", "a..b", "-x"]) assert.match(exit(["--data-dir=/d", `--tls-san=${bad}`]).stderr, /for --tls-san: must be an IP address or a DNS name/, bad);
    assert.match(exit(["--data-dir=/d", `--tls-san=${Array.from({ length: 65 }, (_, i) => `h${i}`).join(",")}`]).stderr, /--tls-san: at most 64 names/);
  });

  void it("rejects bad flags with one line and exit code 2", () => {
    const cases: [string[], RegExp][] = [
      [[], /--data-dir is required/],
      [["--data-dir=/d", "--secure-port=70000"], /--secure-port/],
      [["--data-dir=/d", "--secure-port=abc"], /--secure-port/],
      [["--data-dir=/d", "--bind-address=localhost"], /must be an IP address/],
      [["--data-dir=/d", "--authorization-mode=Webhook"], /unsupported authorization mode "Webhook"/],
      [["--data-dir=/d", "--tls-cert-file=/x"], /together/],
      [["--data-dir=/d", "--etcd-servers=127.0.0.1:2379"], /invalid etcd server/],
      [["--data-dir=/d", "--nope"], /unknown option '--nope'/],
      [["--data-dir=/d", "--anonymous-auth=maybe"], /--anonymous-auth/],
      [["--data-dir=/d", "--etcd-compaction-interval=5 minutes"], /invalid duration/],
      [["--data-dir=/d", "extra"], /too many arguments|excess/],
      [["--data-dir=/d", "--leader-elect-lease-duration=5s", "--leader-elect-renew-deadline=5s"], /lease-duration must be greater than --leader-elect-renew-deadline/],
      [["--data-dir=/d", "--leader-elect-renew-deadline=2s"], /renew-deadline must be greater than --leader-elect-retry-period/],
      [["--data-dir=/d", "--leader-elect=sometimes"], /--leader-elect/],
    ];
    for (const [argv, re] of cases) {
      const r = exit(argv);
      assert.equal(r.code, 2, argv.join(" "));
      assert.match(r.stderr, /^error: [^\n]+\n$/, argv.join(" "));
      assert.match(r.stderr, re, argv.join(" "));
    }
  });

  void it("explains every flag in --help and exits 0", () => {
    const r = exit(["--help"]);
    assert.equal(r.code, 0);
    for (const flag of ["--data-dir", "--secure-port", "--bind-address", "--cert-dir", "--tls-cert-file", "--tls-private-key-file", "--client-ca-file", "--token-auth-file", "--etcd-servers", "--etcd-prefix", "--service-account-key-file", "--service-account-signing-key-file", "--service-account-issuer", "--authorization-mode", "--anonymous-auth", "--advertise-address", "--watch-cache-size", "--leader-elect", "--leader-elect-lease-duration", "--leader-elect-renew-deadline", "--leader-elect-retry-period"]) {
      assert.ok(r.stdout.includes(flag), flag);
    }
  });
});

void describe("Gardener API flags", () => {
  void it("are off by default, with a 1h bastion time-to-live", () => {
    const r = parseOptions(["--data-dir", "/tmp/x"]);
    assert.equal(r.kind, "options");
    if (r.kind !== "options") return;
    assert.equal(r.options.gardenerApis, false);
    assert.equal(r.options.bastionTimeToLiveMs, 3_600_000);
  });

  void it("default to Node,RBAC, and to RBAC for the garden (no nodes there)", () => {
    const modes = (args: string[]) => {
      const r = parseOptions(["--data-dir", "/tmp/x", ...args]);
      return r.kind === "options" ? r.options.authorizationModes : r.stderr;
    };
    assert.deepEqual(modes([]), ["Node", "RBAC"]);
    assert.deepEqual(modes(["--enable-gardener-apis"]), ["RBAC"]);
    assert.deepEqual(modes(["--enable-gardener-apis", "--authorization-mode", "Node,Seed,RBAC"]), ["Node", "Seed", "RBAC"]);
    assert.deepEqual(modes(["--authorization-mode", "RBAC"]), ["RBAC"]);
  });

  void it("take Go durations and refuse the seed authorizer without the garden APIs", () => {
    const r = parseOptions(["--data-dir", "/tmp/x", "--enable-gardener-apis", "--authorization-mode", "Seed,RBAC", "--bastion-time-to-live", "1h30m"]);
    assert.equal(r.kind, "options");
    if (r.kind === "options") assert.deepEqual([r.options.gardenerApis, r.options.authorizationModes, r.options.bastionTimeToLiveMs], [true, ["Seed", "RBAC"], 5_400_000]);
    const bad = parseOptions(["--data-dir", "/tmp/x", "--authorization-mode", "Seed,RBAC"]);
    assert.equal(bad.kind === "exit" && bad.code, 2);
    assert.match(bad.kind === "exit" ? bad.stderr : "", /Seed needs --enable-gardener-apis/);
    const ttl = parseOptions(["--data-dir", "/tmp/x", "--bastion-time-to-live", "0s"]);
    assert.match(ttl.kind === "exit" ? ttl.stderr : "", /--bastion-time-to-live: invalid duration "0s": must be positive/);
  });
});

void describe("--http2-max-streams-per-connection", () => {
  void it("defaults to 0 (250 streams, as kube-apiserver) and refuses negative values", () => {
    assert.equal(opts(["--data-dir", "/tmp/x"]).http2MaxStreamsPerConnection, 0);
    assert.equal(opts(["--data-dir", "/tmp/x", "--http2-max-streams-per-connection", "1000"]).http2MaxStreamsPerConnection, 1000);
    const r = exit(["--data-dir", "/tmp/x", "--http2-max-streams-per-connection=-1"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /invalid value "-1" for --http2-max-streams-per-connection/);
  });
});

void describe("watch flags", () => {
  void it("default to kube-apiserver's request timeout and bounded watch buffers", () => {
    const o = opts(["--data-dir", "/tmp/x"]);
    assert.equal(o.minRequestTimeoutSeconds, 1800);
    assert.deepEqual(o.watchLimits, { perWatchBytes: 16 * 1024 * 1024, perUserBytes: 64 * 1024 * 1024, totalBytes: 256 * 1024 * 1024, perUserWatches: 500 });
  });

  void it("take sizes and counts, and refuse values out of range", () => {
    const o = opts(["--data-dir", "/tmp/x", "--min-request-timeout", "60", "--watch-buffer-bytes", "65536", "--watch-user-buffer-bytes", "131072", "--watch-total-buffer-bytes", "262144", "--max-watches-per-user", "7"]);
    assert.equal(o.minRequestTimeoutSeconds, 60);
    assert.deepEqual(o.watchLimits, { perWatchBytes: 65536, perUserBytes: 131072, totalBytes: 262144, perUserWatches: 7 });
    for (const [flag, value] of [["--watch-buffer-bytes", "10"], ["--max-watches-per-user", "0"], ["--min-request-timeout", "-1"], ["--watch-total-buffer-bytes", "1e9"]]) {
      const r = exit(["--data-dir", "/tmp/x", `${flag}=${value}`]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, new RegExp(`invalid value "${value}" for ${flag}`));
    }
  });
});
