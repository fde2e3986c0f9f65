import assert from "node:assert/strict";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, connect } from "node:net";
import { test } from "node:test";
import { createCertificateAuthority, issueServingCertificate } from "../apiserver/certs/issue.ts";
import { trackConnections } from "./connections.ts";

test("an https server closes at once with a connection still in its TLS handshake", { timeout: 30_000 }, async () => {
  const ca = await createCertificateAuthority({ commonName: "test" });
  const cert = await issueServingCertificate(ca, { hosts: ["127.0.0.1"], commonName: "server" });
  // A handshake timeout far beyond the test's: close() must not wait for it.
  const server = createHttpsServer({ cert: cert.certPem, key: cert.keyPem, handshakeTimeout: 600_000 });
  const connections = trackConnections(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const raw = connect((server.address() as AddressInfo).port, "127.0.0.1");
  raw.on("error", () => undefined);
  const cut = new Promise<void>((resolve) => raw.once("close", () => resolve()));
  await new Promise<void>((resolve) => server.once("connection", () => setImmediate(resolve)));
  assert.equal(connections.size, 1);
  await connections.close();
  await cut;
  assert.equal(connections.size, 0);
});
