import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bootstrapTokenSecret, groupsOf, isExpired, parseBootstrapToken } from "../../api/bootstraptoken/token.ts";
import type { Secret } from "../../apis/core/v1/types.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { FakeClock } from "../../utils/clock.ts";
import type { InternalClient } from "../registry/client.ts";
import { BootstrapTokenAuthenticator, constantTimeEqual } from "./bootstraptoken.ts";

function clientWith(secrets: Secret[]): InternalClient {
  const byName = new Map(secrets.map((s) => [`${s.metadata.namespace}/${s.metadata.name}`, s]));
  return { get: (_gr: unknown, ns: string | undefined, name: string) => Promise.resolve(byName.get(`${ns}/${name}`) as KubeObject | undefined) } as unknown as InternalClient;
}

const ID = "abcdef";
const SECRET = "0123456789abcdef";

describe("bootstrap tokens", () => {
  it("parses only <6 of [a-z0-9]>.<16 of [a-z0-9]>", () => {
    assert.deepEqual(parseBootstrapToken(`${ID}.${SECRET}`), { id: ID, secret: SECRET });
    for (const bad of [`${ID}.${SECRET}x`, `ABCDEF.${SECRET}`, `${ID}:${SECRET}`, `${ID}.${SECRET.toUpperCase()}`, "", "eyJhbGciOi.x.y"]) assert.equal(parseBootstrapToken(bad), undefined, bad);
  });

  it("expires at `expiration`; an unparseable expiration counts as expired", () => {
    const s = bootstrapTokenSecret({ id: ID, secret: SECRET, expiration: new Date("2026-01-01T01:00:00Z") });
    assert.equal(isExpired(s, Date.parse("2026-01-01T00:59:59Z")), false);
    assert.equal(isExpired(s, Date.parse("2026-01-01T01:00:00Z")), true);
    s.data!.expiration = Buffer.from("tomorrow").toString("base64");
    assert.equal(isExpired(s, 0), true);
    assert.equal(isExpired(bootstrapTokenSecret({ id: ID, secret: SECRET }), Number.MAX_SAFE_INTEGER), false);
  });

  it("accepts only system:bootstrappers:* extra groups", () => {
    assert.deepEqual(groupsOf(bootstrapTokenSecret({ id: ID, secret: SECRET, extraGroups: ["system:bootstrappers:w1"] })), ["system:bootstrappers", "system:bootstrappers:w1"]);
    assert.throws(() => groupsOf(bootstrapTokenSecret({ id: ID, secret: SECRET, extraGroups: ["system:masters"] })), /is invalid/);
  });

  it("authenticates from the stored Secret and refuses every mismatch", async () => {
    const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
    const good = bootstrapTokenSecret({ id: ID, secret: SECRET, expiration: new Date("2026-01-01T01:00:00Z"), extraGroups: ["system:bootstrappers:w"] });
    const rejected: string[] = [];
    const authn = (secrets: Secret[]) => new BootstrapTokenAuthenticator({ client: clientWith(secrets), clock, onReject: (_id, why) => rejected.push(why) });
    assert.deepEqual(await authn([good]).authenticateToken(`${ID}.${SECRET}`), { user: { username: `system:bootstrap:${ID}`, groups: ["system:bootstrappers", "system:bootstrappers:w"] } });
    assert.equal(await authn([good]).authenticateToken(`${ID}.0123456789abcdee`), undefined);
    assert.equal(await authn([]).authenticateToken(`${ID}.${SECRET}`), undefined);
    assert.equal(await authn([{ ...good, type: "Opaque" }]).authenticateToken(`${ID}.${SECRET}`), undefined);
    assert.equal(await authn([{ ...good, metadata: { ...good.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } }]).authenticateToken(`${ID}.${SECRET}`), undefined);
    const noAuth = structuredClone(good);
    delete noAuth.data!["usage-bootstrap-authentication"];
    assert.equal(await authn([noAuth]).authenticateToken(`${ID}.${SECRET}`), undefined);
    const otherId = structuredClone(good);
    otherId.data!["token-id"] = Buffer.from("zzzzzz").toString("base64");
    assert.equal(await authn([otherId]).authenticateToken(`${ID}.${SECRET}`), undefined);
    clock.step(3600_000);
    assert.equal(await authn([good]).authenticateToken(`${ID}.${SECRET}`), undefined);
    assert.deepEqual(rejected, [
      "the token secret does not match",
      "no bootstrap token secret",
      'the secret has type "Opaque"',
      "the secret is being deleted",
      "the token may not be used for authentication",
      "the token id does not match",
      "the token has expired",
    ]);
    // Not a bootstrap token at all: no opinion, and no lookup.
    assert.equal(await authn([good]).authenticateToken("some-other-token"), undefined);
  });

  it("compares secrets without early exit", () => {
    assert.equal(constantTimeEqual(SECRET, SECRET), true);
    assert.equal(constantTimeEqual(SECRET, `${SECRET.slice(0, 15)}x`), false);
    assert.equal(constantTimeEqual(SECRET, SECRET.slice(1)), false);
  });
});
