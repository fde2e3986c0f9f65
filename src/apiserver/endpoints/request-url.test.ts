// parseRequestUrl gives what `new URL` gives, for plain targets (taken as they stand) and for every
// other one (parsed): a fixed list of the cases URL parsing rewrites, and random targets.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseRequestUrl } from "./request-url.ts";

const same = (target: string) => {
  let want: URL;
  try {
    want = new URL(target, "https://apiserver.local");
  } catch {
    return assert.throws(() => parseRequestUrl(target), TypeError, `${JSON.stringify(target)} is no URL either way`);
  }
  const got = parseRequestUrl(target);
  assert.equal(got.pathname, want.pathname, `pathname of ${JSON.stringify(target)}`);
  assert.equal(got.search, want.search, `search of ${JSON.stringify(target)}`);
  assert.deepEqual([...got.searchParams], [...want.searchParams], `searchParams of ${JSON.stringify(target)}`);
};

describe("parseRequestUrl", () => {
  test("plain targets are taken as they stand, without a URL", () => {
    for (const t of ["/api/v1/namespaces/bench/configmaps", "/api/v1/namespaces/a/configmaps/kube-root-ca.crt?watch=1&resourceVersion=5", "/apis/x.y/v1/a?labelSelector=a%3Db&limit=5", "/", "/healthz?", "/x?a=1&a=2&b"]) {
      assert.ok(!(parseRequestUrl(t) instanceof URL), t);
      same(t);
    }
  });

  test("what URL parsing rewrites goes through URL: dot segments, percent-encoded dots, hosts, escaped characters, backslashes, fragments", () => {
    const rewritten = ["/api/../apis", "/api/./v1", "/api/v1/..", "/a/%2e%2E/b", "/a/%2E", "//evil/api", "/a b", "/a\\b", "/a\"b", "/a<b>", "/a{b}", "/a`b", "/é", "/a?x='1'", "/a?x=é", "/a?x y", "/a#frag", "/a?b#c", "/a\tb", ""];
    for (const t of rewritten) same(t);
    assert.ok(parseRequestUrl("/api/../apis") instanceof URL);
  });

  test("random targets: the same parts as URL gives", () => {
    const alphabet = "abz09-._~!$&'()*+,;=:@/?%#\\ \"<>{}`é\t.";
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    let plain = 0;
    for (let i = 0; i < 20_000; i++) {
      let t = "/";
      const len = rand(14);
      for (let j = 0; j < len; j++) t += alphabet[rand(alphabet.length)];
      same(t);
      if (URL.canParse(t, "https://apiserver.local") && !(parseRequestUrl(t) instanceof URL)) plain++;
    }
    assert.ok(plain > 1000, `only ${plain} plain targets drawn`);
  });
});
