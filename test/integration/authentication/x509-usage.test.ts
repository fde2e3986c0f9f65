// A certificate signed by the API server's CA but meant only for serving (extended key usage serverAuth) is no
// client credential: TLS verification (OpenSSL's purpose check) leaves the connection unauthenticated, and where
// a certificate passes it, the x509 authenticator's own clientAuth check answers 401. A client certificate of the
// same CA is served.
import assert from "node:assert/strict";
import { request } from "node:https";
import { after, before, test } from "node:test";
import { ensurePki } from "../../../src/apiserver/certs/pki.ts";
import { issueClientCertificate, issueServingCertificate, type IssuedCertificate } from "../../../src/apiserver/certs/issue.ts";
import { startInProcessApiServer, type InProcessServer } from "../../support/inprocess.ts";

let api: InProcessServer | undefined;
let serving: IssuedCertificate;
let client: IssuedCertificate;
let caPem: string;

before(async () => {
  api = await startInProcessApiServer();
  const pki = await ensurePki(api.options.certDir);
  caPem = pki.ca.certPem;
  serving = await issueServingCertificate(pki.ca, { hosts: ["127.0.0.1"], commonName: "eve" });
  client = await issueClientCertificate(pki.ca, { commonName: "eve", organizations: ["system:masters"] });
});

after(async () => {
  await api?.stop();
});

function get(cert: IssuedCertificate): Promise<{ status: number; body: string }> {
  const url = new URL("/api/v1/namespaces", api!.server.url);
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: caPem, cert: cert.certPem, key: cert.keyPem, agent: false }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("a serving certificate of the server's CA presented as a client certificate authenticates nobody", async () => {
  const r = await get(serving);
  const refused = r.status === 401 ? /incompatible key usage/ : /User \\"system:anonymous\\" cannot list/;
  assert.ok(r.status === 401 || r.status === 403, `${r.status} ${r.body}`);
  assert.match(r.body, refused);
});

test("a client certificate of the same CA is served", async () => {
  const r = await get(client);
  assert.equal(r.status, 200, r.body);
});
