import assert from "node:assert/strict";
import { createServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import type { AdmissionRequest } from "../../../apis/admission/v1/types.ts";
import { createCertificateAuthority, issueServingCertificate } from "../../certs/issue.ts";
import { callWebhook } from "./call.ts";

describe("webhook calls keep their connection", () => {
  let connections = 0;
  /** Requests on a connection after which the server drops it without answering (a keep-alive close racing a reuse). */
  let dropSecond = false;
  let port = 0;
  let ca = "";
  const served = new WeakMap<Socket, number>();
  const server = createServer();

  before(async () => {
    const authority = await createCertificateAuthority({ commonName: "webhook-test-ca" });
    const cert = await issueServingCertificate(authority, { hosts: ["127.0.0.1"] });
    ca = authority.certPem;
    server.setSecureContext({ cert: cert.certPem, key: cert.keyPem });
    server.on("secureConnection", () => connections++);
    server.on("request", (req, res) => {
      const n = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, n);
      if (dropSecond && n === 2) return req.socket.destroy();
      let text = "";
      req.on("data", (c: Buffer) => (text += c.toString()));
      req.on("end", () => {
        const review = JSON.parse(text) as { request: AdmissionRequest };
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, allowed: true } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const call = (uid: string) =>
    callWebhook({ target: { url: `https://127.0.0.1:${port}/v`, host: "127.0.0.1", port, path: "/v", servername: "127.0.0.1" }, ca, timeoutMs: 5000 }, { uid } as AdmissionRequest);

  test("calls one after the other share one TLS connection", async () => {
    const before = connections;
    for (const uid of ["a", "b", "c"]) assert.equal((await call(uid)).allowed, true);
    assert.equal(connections - before, 1);
  });

  test("a kept connection the server drops as it is reused is replaced, and the call answers", async () => {
    server.closeAllConnections();
    dropSecond = true;
    try {
      const before = connections;
      assert.equal((await call("d")).allowed, true);
      assert.equal((await call("e")).allowed, true, "sent again on a new connection");
      assert.equal(connections - before, 2);
    } finally {
      dropSecond = false;
    }
  });
});
