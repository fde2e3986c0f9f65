import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer } from "node:https";
import { request } from "node:https";
import type { TLSSocket } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ensurePki, sansOf } from "./pki.ts";
import { createCertificateAuthority, issueClientCertificate } from "./issue.ts";

const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

describe("ensurePki", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "pki-test-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("creates a CA, serving, admin and service-account keys with the right properties", async () => {
    const pki = await ensurePki(dir, { hosts: ["api.example.test", "10.1.2.3"] });
    const ca = new X509Certificate(pki.ca.certPem);
    assert.equal(ca.ca, true);
    assert.equal(ca.subject, ca.issuer);
    const years = (new Date(ca.validTo).getTime() - Date.now()) / (365 * 86400_000);
    assert.ok(years > 9.9 && years < 10.1, `CA valid for ${years} years`);

    const serving = new X509Certificate(pki.serving.certPem);
    assert.equal(serving.ca, false);
    assert.ok(serving.checkIssued(ca) && serving.verify(ca.publicKey));
    assert.deepEqual(serving.keyUsage, [SERVER_AUTH]);
    assert.equal(serving.checkHost("localhost"), "localhost");
    assert.equal(serving.checkHost("api.example.test"), "api.example.test");
    assert.equal(serving.checkIP("127.0.0.1"), "127.0.0.1");
    assert.equal(serving.checkIP("::1"), "::1");
    assert.equal(serving.checkIP("10.1.2.3"), "10.1.2.3");
    assert.equal(serving.checkHost("other.test"), undefined);

    const admin = new X509Certificate(pki.admin.certPem);
    assert.ok(admin.checkIssued(ca));
    assert.deepEqual(admin.keyUsage, [CLIENT_AUTH]);
    assert.match(admin.subject, /CN=system:admin/);
    assert.match(admin.subject, /O=system:masters/);

    for (const f of ["ca.key", "apiserver.key", "admin.key", "sa.key"]) {
      assert.equal((await stat(join(dir, f))).mode & 0o777, 0o600, f);
    }
    assert.match(await readFile(join(dir, "sa.pub"), "utf8"), /BEGIN PUBLIC KEY/);
    assert.equal(pki.serving.certPath, join(dir, "apiserver.crt"));
  });

  it("reuses existing files on a later call and re-issues only the serving cert when hosts change", async () => {
    const first = await ensurePki(dir, { hosts: ["api.example.test", "10.1.2.3"] });
    const again = await ensurePki(dir, { hosts: ["10.1.2.3", "api.example.test"] });
    assert.equal(again.ca.certPem, first.ca.certPem);
    assert.equal(again.serving.certPem, first.serving.certPem);
    assert.equal(again.admin.certPem, first.admin.certPem);
    assert.equal(again.serviceAccount.privateKeyPem, first.serviceAccount.privateKeyPem);

    const changed = await ensurePki(dir, { hosts: ["new.example.test"] });
    assert.equal(changed.ca.certPem, first.ca.certPem);
    assert.equal(changed.admin.certPem, first.admin.certPem);
    assert.notEqual(changed.serving.certPem, first.serving.certPem);
    assert.deepEqual(new Set(sansOf(changed.serving.certPem)), new Set(["localhost", "127.0.0.1", "::1", "new.example.test"]));
  });

  it("serves TLS that a client trusting the CA accepts, and the server sees the admin client certificate", async () => {
    const pki = await ensurePki(dir, { hosts: [] });
    const server = createServer(
      { cert: pki.serving.certPem, key: pki.serving.keyPem, ca: pki.ca.certPem, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        const sock = req.socket as TLSSocket;
        const peer = sock.getPeerCertificate();
        res.end(JSON.stringify({ authorized: sock.authorized, cn: peer.subject?.CN, o: peer.subject?.O, eku: peer.ext_key_usage }));
      },
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const port = (server.address() as { port: number }).port;
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(
          { host: "127.0.0.1", port, path: "/", ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem },
          (res) => {
            let s = "";
            res.on("data", (d: Buffer) => (s += d.toString()));
            res.on("end", () => resolve(s));
          },
        );
        req.on("error", reject);
        req.end();
      });
      assert.deepEqual(JSON.parse(body), { authorized: true, cn: "system:admin", o: "system:masters", eku: [CLIENT_AUTH] });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe("issueClientCertificate", () => {
  it("puts every organization into the subject and limits validity to the requested days", async () => {
    const ca = await createCertificateAuthority({ commonName: "test-ca" });
    const now = new Date();
    const c = await issueClientCertificate(ca, { commonName: "alice", organizations: ["dev", "ops"], days: 2, now });
    const x = new X509Certificate(c.certPem);
    assert.match(x.subject, /O=dev/);
    assert.match(x.subject, /O=ops/);
    assert.match(x.subject, /CN=alice/);
    assert.equal(x.issuer, "CN=test-ca");
    const hours = (new Date(x.validTo).getTime() - now.getTime()) / 3600_000;
    assert.ok(Math.abs(hours - 48) < 1, `valid for ${hours}h`);
    assert.match(c.keyPem, /BEGIN PRIVATE KEY/);
  });
});
