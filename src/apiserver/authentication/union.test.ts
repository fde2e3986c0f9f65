import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { StatusError } from "../../apimachinery/errors.ts";
import { BearerTokenAuthenticator, stripWebSocketTokenProtocol } from "./bearer.ts";
import { TokenFileAuthenticator } from "./tokenfile.ts";
import type { TokenAuthenticator } from "./types.ts";
import { UnionAuthenticator, UnionTokenAuthenticator } from "./union.ts";
import { X509Authenticator } from "./x509.ts";

const tokens = TokenFileAuthenticator.fromText('good,alice,1,"dev"\nroot,root,0,system:authenticated');
const rejecting: TokenAuthenticator = {
  authenticateToken: (t) => (t.startsWith("ey") ? Promise.reject(new StatusError(401, "Unauthorized", "token has expired")) : Promise.resolve(undefined)),
};
const bearer = new BearerTokenAuthenticator(new UnionTokenAuthenticator([rejecting, tokens]));
const union = (anonymous: boolean) => new UnionAuthenticator([new X509Authenticator(), bearer], { anonymous });

describe("UnionAuthenticator", () => {
  it("authenticates a bearer token and adds system:authenticated once", async () => {
    const u = await union(false).authenticate({ headers: { authorization: "Bearer good" } });
    assert.deepEqual(u, { username: "alice", uid: "1", groups: ["dev", "system:authenticated"] });
    const r = await union(false).authenticate({ headers: { authorization: "bearer root" } });
    assert.deepEqual(r?.groups, ["system:authenticated"]);
  });

  it("authenticates client certificates: CN is the user, O entries the groups", async () => {
    const u = await union(false).authenticate({ headers: {}, peerCertificate: { subject: { CN: "bob", O: ["a", "b"] } } });
    assert.deepEqual(u, { username: "bob", groups: ["a", "b", "system:authenticated"] });
    const single = await union(false).authenticate({ headers: {}, peerCertificate: { subject: { CN: "carl", O: "x" } } });
    assert.deepEqual(single?.groups, ["x", "system:authenticated"]);
  });

  it("answers 401 for a bad bearer token even when anonymous access is on", async () => {
    await assert.rejects(union(true).authenticate({ headers: { authorization: "Bearer wrong" } }), { code: 401, reason: "Unauthorized", message: "Unauthorized" });
    await assert.rejects(union(true).authenticate({ headers: { authorization: "Bearer eyexpired" } }), (err: StatusError) => {
      assert.equal(err.code, 401);
      assert.equal(err.message, "Unauthorized");
      assert.equal((err.cause as Error).message, "token has expired");
      return true;
    });
  });

  it("uses the anonymous user only without credentials and only when enabled", async () => {
    assert.deepEqual(await union(true).authenticate({ headers: {} }), { username: "system:anonymous", groups: ["system:unauthenticated"] });
    assert.equal(await union(false).authenticate({ headers: {} }), undefined);
    // "Basic" credentials are not ours: no opinion.
    assert.equal(await union(false).authenticate({ headers: { authorization: "Basic abc" } }), undefined);
  });

  it("a verified client certificate wins over a bad bearer token (first success wins)", async () => {
    const u = await union(false).authenticate({ headers: { authorization: "Bearer wrong" }, peerCertificate: { subject: { CN: "bob" } } });
    assert.equal(u?.username, "bob");
  });
});

describe("WebSocket bearer protocol", () => {
  const proto = (t: string) => `base64url.bearer.authorization.k8s.io.${Buffer.from(t).toString("base64url")}`;
  const ws = (protocols: string) => ({ headers: { upgrade: "websocket", "sec-websocket-protocol": protocols } });

  it("reads the token from the subprotocol of an upgrade request", async () => {
    const u = await bearer.authenticate(ws(`v4.channel.k8s.io, ${proto("good")}`));
    assert.equal(u?.username, "alice");
    assert.deepEqual(stripWebSocketTokenProtocol(`v4.channel.k8s.io, ${proto("good")}`), ["v4.channel.k8s.io"]);
  });

  it("rejects a token protocol without another protocol, and several token protocols", async () => {
    await assert.rejects(bearer.authenticate(ws(proto("good"))), { code: 401, message: "missing additional subprotocol" });
    await assert.rejects(bearer.authenticate(ws(`v4.channel.k8s.io,${proto("a")},${proto("b")}`)), { code: 401, message: /multiple/ });
  });

  it("ignores the protocol on non-upgrade requests", async () => {
    assert.equal(await bearer.authenticate({ headers: { "sec-websocket-protocol": `v4.channel.k8s.io,${proto("good")}` } }), undefined);
  });
});

describe("UnionTokenAuthenticator audiences", () => {
  it("gives static tokens the API audiences, and refuses other requested audiences", async () => {
    const u = new UnionTokenAuthenticator([tokens], { apiAudiences: ["https://garden"] });
    assert.deepEqual((await u.authenticateToken("good"))?.audiences, ["https://garden"]);
    assert.deepEqual((await u.authenticateToken("good", ["x", "https://garden"]))?.audiences, ["https://garden"]);
    assert.equal(await u.authenticateToken("good", ["vault"]), undefined);
  });
});

describe("X509Authenticator key usage", () => {
  it("rejects certificates whose extended key usage excludes clientAuth", async () => {
    const x = new X509Authenticator();
    const subject = { CN: "srv" };
    await assert.rejects(x.authenticate({ headers: {}, peerCertificate: { subject, ext_key_usage: ["1.3.6.1.5.5.7.3.1"] } }), { code: 401 });
    assert.equal((await x.authenticate({ headers: {}, peerCertificate: { subject, ext_key_usage: ["1.3.6.1.5.5.7.3.2"] } }))?.username, "srv");
    assert.equal((await x.authenticate({ headers: {}, peerCertificate: { subject: { CN: "" } } })), undefined);
  });
});
