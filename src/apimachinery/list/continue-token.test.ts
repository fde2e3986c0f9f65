import { test } from "node:test";
import assert from "node:assert/strict";
import { StatusError } from "../errors.ts";
import { decodeContinueToken, encodeContinueToken, keyAfter } from "./continue-token.ts";

const PREFIX = "/registry/configmaps/";

function badRequest(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof StatusError, String(err));
    assert.equal(err.code, 400);
    assert.equal(err.reason, "BadRequest");
    assert.match(err.message, message);
    return true;
  });
}

const tokenOf = (obj: unknown): string => Buffer.from(JSON.stringify(obj)).toString("base64url");

void test("round trip", () => {
  const key = keyAfter(`${PREFIX}default/app-config`);
  const token = encodeContinueToken(key, PREFIX, 42);
  assert.match(token, /^[A-Za-z0-9_-]+$/, "base64url without padding");
  assert.deepEqual(decodeContinueToken(token, PREFIX), { startKey: key, resourceVersion: 42 });
});

void test("the wire format is Kubernetes'", () => {
  const token = encodeContinueToken(`${PREFIX}ns/b\x00`, PREFIX, 7);
  assert.deepEqual(JSON.parse(Buffer.from(token, "base64url").toString()), { v: "meta.k8s.io/v1", rv: 7, start: "ns/b\x00" });
  // The bytes kube-apiserver's Go encoder produces for the same token (\x00 escaped as \u0000).
  const kube = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNDUsInN0YXJ0Ijoia3ViZS1zeXN0ZW0vY29yZWRucy01Nzg2NmY3ZjVkLXhxNW5iXHUwMDAwIn0";
  assert.deepEqual(decodeContinueToken(kube, "/registry/pods/"), {
    startKey: "/registry/pods/kube-system/coredns-57866f7f5d-xq5nb\x00",
    resourceVersion: 12345,
  });
});

void test("garbage is 400 continue key is not valid", () => {
  badRequest(() => decodeContinueToken("%%%", PREFIX), /^continue key is not valid: illegal base64 data$/);
  badRequest(() => decodeContinueToken("abc=", PREFIX), /illegal base64/);
  badRequest(() => decodeContinueToken("a", PREFIX), /illegal base64/);
  badRequest(() => decodeContinueToken(Buffer.from("not json").toString("base64url"), PREFIX), /^continue key is not valid: /);
  badRequest(() => decodeContinueToken(tokenOf([1]), PREFIX), /not a JSON object/);
  badRequest(() => decodeContinueToken(tokenOf({ v: "v2", rv: 1, start: "a" }), PREFIX), /server does not recognize this encoded version/);
  badRequest(() => decodeContinueToken(tokenOf({ v: "meta.k8s.io/v1", rv: 0, start: "a" }), PREFIX), /incorrect encoded start resourceVersion/);
  badRequest(() => decodeContinueToken(tokenOf({ v: "meta.k8s.io/v1", rv: 1.5, start: "a" }), PREFIX), /resourceVersion/);
  badRequest(() => decodeContinueToken(tokenOf({ v: "meta.k8s.io/v1", rv: "1", start: "a" }), PREFIX), /resourceVersion/);
  badRequest(() => decodeContinueToken(tokenOf({ v: "meta.k8s.io/v1", rv: 1, start: "" }), PREFIX), /encoded start key empty/);
  badRequest(() => decodeContinueToken("", PREFIX), /^continue key is not valid: /);
});

void test("start keys cannot escape the prefix", () => {
  for (const start of ["../secrets/x", "a/../../b", "a//b", "./a", "a/"]) {
    badRequest(() => decodeContinueToken(tokenOf({ v: "meta.k8s.io/v1", rv: 1, start }), PREFIX), /^continue key is not valid: /);
  }
  assert.equal(decodeContinueToken(tokenOf({ v: "meta.k8s.io/v1", rv: 1, start: "/ns/a" }), PREFIX).startKey, `${PREFIX}ns/a`);
});

void test("encode checks its inputs", () => {
  assert.throws(() => encodeContinueToken("/registry/secrets/a", PREFIX, 1), /key and key prefix do not match/);
  assert.throws(() => encodeContinueToken(`${PREFIX}a`, PREFIX, 0), /resourceVersion/);
});
