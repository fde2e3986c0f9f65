// The vpn-seed-server takes renewed credentials up in place (docs/reversed-vpn.md#health): each poll reads the
// credential files again; changed ones reach the egress proxy's new handshakes while an open connection goes on,
// files caught between two writes are refused (the proxy keeps what it had) and taken once they fit, and unchanged
// or oversized files change nothing. The same process serves throughout (no restart).
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import { after, before, test } from "node:test";
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate, type CertificateAuthority, type IssuedCertificate } from "../apiserver/certs/issue.ts";
import { FakeClock } from "../utils/clock.ts";
import { EGRESS_CLIENT_CN } from "./egressproxy.ts";
import { MAX_CREDENTIAL_FILE_BYTES } from "./credential-files.ts";
import { SeedServer } from "./seedserver.ts";
import { type FakeManagement, fakeManagement } from "./testing-management.ts";

const CONNECT = "CONNECT 10.250.0.5:10250 HTTP/1.1\r\n\r\n";
const serial = (c: IssuedCertificate): string => new X509Certificate(c.certPem).serialNumber;

interface Pki {
  ca: CertificateAuthority;
  serving: IssuedCertificate;
  client: IssuedCertificate;
}

async function pki(): Promise<Pki> {
  const ca = await createCertificateAuthority({ commonName: "vpn" });
  return {
    ca,
    serving: await issueServingCertificate(ca, { hosts: ["vpn-seed-server", "127.0.0.1"], commonName: "vpn-seed-server" }),
    client: await issueClientCertificate(ca, { commonName: EGRESS_CLIENT_CN }),
  };
}

let dir = "";
let m: FakeManagement;
let server: SeedServer;
let port = 0;
let first: Pki;
const files = () => ({ cert: join(dir, "tls.crt"), key: join(dir, "tls.key"), ca: join(dir, "bundle.crt") });

/** A TLS connection as the shoot API server opens it; resolves with the socket once the handshake is done, or undefined. */
function dial(trust: string, client: IssuedCertificate): Promise<TLSSocket | undefined> {
  return new Promise((resolve) => {
    const s = tlsConnect({ host: "127.0.0.1", port, ca: trust, cert: client.certPem, key: client.keyPem, servername: "vpn-seed-server" });
    s.on("error", () => resolve(undefined));
    s.once("secureConnect", () => resolve(s));
  });
}

/** What the proxy answers to a CONNECT on `s` (no tunnel is up: its 503 shows the TLS and CN checks passed), "" when it closes. */
function answer(s: TLSSocket): Promise<string> {
  return new Promise((resolve) => {
    let data = "";
    s.on("data", (c: Buffer) => {
      data += c.toString();
      if (data.includes("\r\n\r\n")) resolve(data.split("\r\n")[0]!);
    });
    s.once("close", () => resolve(data.split("\r\n")[0] ?? ""));
    s.write(CONNECT);
  });
}

async function ask(trust: string, client: IssuedCertificate): Promise<{ line: string; serial?: string }> {
  const s = await dial(trust, client);
  if (!s) return { line: "" };
  const serial = s.getPeerX509Certificate()?.serialNumber;
  const line = await answer(s);
  s.destroy();
  return { line, ...(serial ? { serial } : {}) };
}

const metric = async (result: string): Promise<number> => {
  const text = await server.registry.getSingleMetricAsString("vpn_egress_credential_reloads_total");
  return Number(new RegExp(`result="${result}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
};

async function write(p: Partial<Record<"cert" | "key" | "ca", string>>): Promise<void> {
  const f = files();
  for (const k of ["cert", "key", "ca"] as const) if (p[k] !== undefined) await writeFile(f[k], p[k]);
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "vpn-reload-"));
  m = await fakeManagement();
  first = await pki();
  await write({ cert: first.serving.certPem, key: first.serving.keyPem, ca: first.ca.certPem });
  server = new SeedServer({
    servers: [{ name: "vpn-seed-server", tunnelAddress: "127.0.0.1", management: m.path, clientCn: "vpn-shoot-client" }],
    credentials: { certPem: first.serving.certPem, keyPem: first.serving.keyPem, caBundlePem: first.ca.certPem },
    credentialFiles: files(),
    shootCidrs: ["10.250.0.0/16"],
    transferNetwork: "192.168.123.0/24",
    listenAddress: "127.0.0.1",
    egressPort: 0,
    healthPort: 0,
    statusTimeoutMs: 200,
    clock: new FakeClock(),
  });
  port = (await server.start()).egress.port;
});

after(async () => {
  await server.close();
  await m.close();
  await rm(dir, { recursive: true, force: true });
});

test("unchanged files change nothing; the first credentials serve", async () => {
  await server.poll();
  assert.equal(await metric("reloaded"), 0);
  assert.deepEqual(await ask(first.ca.certPem, first.client), { line: "HTTP/1.1 503 Service Unavailable", serial: serial(first.serving) });
});

test("a CA rotation's files reach new handshakes at the next poll: half-written files are refused until they fit; an open connection goes on", async () => {
  const open = await dial(first.ca.certPem, first.client);
  assert.ok(open, "a connection of the old client, opened before the change");
  try {
    await rotate(open);
  } finally {
    open.destroy();
  }
});

async function rotate(open: TLSSocket): Promise<void> {
  const next = await pki();
  // The new certificate beside the old key: refused once (not at every poll), the old credentials still serve.
  await write({ cert: next.serving.certPem });
  await server.poll();
  await server.poll();
  assert.equal(await metric("failed"), 1);
  assert.equal((await ask(first.ca.certPem, first.client)).serial, serial(first.serving), "the old credentials still serve");
  // Then the key and a bundle of old and new CA (a rotation's Preparing): taken up.
  await write({ key: next.serving.keyPem, ca: first.ca.certPem + next.ca.certPem });
  await server.poll();
  assert.equal(await metric("reloaded"), 1);
  assert.deepEqual(await ask(next.ca.certPem, next.client), { line: "HTTP/1.1 503 Service Unavailable", serial: serial(next.serving) }, "the new certificate is presented");
  assert.equal((await ask(next.ca.certPem, first.client)).line, "HTTP/1.1 503 Service Unavailable", "while prepared, the old CA's client is trusted");
  // Completing: the bundle holds the new CA only; the old CA's client is refused at the handshake.
  await write({ ca: next.ca.certPem });
  await server.poll();
  assert.equal(await metric("reloaded"), 2);
  assert.equal((await ask(next.ca.certPem, first.client)).line, "", "the old CA's client is refused");
  assert.equal(await answer(open), "HTTP/1.1 503 Service Unavailable", "the connection opened before goes on");
}

test("an oversized file is refused and the current credentials stay", async () => {
  const before = await ask(first.ca.certPem, first.client).then(() => metric("failed"));
  await writeFile(files().ca, "x".repeat(MAX_CREDENTIAL_FILE_BYTES + 1));
  await server.poll();
  assert.equal(await metric("failed"), before + 1);
  assert.equal(await metric("reloaded"), 2);
  assert.match(server.failingChecks().join("\n"), /^$/, "health is unaffected");
});
