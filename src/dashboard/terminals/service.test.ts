import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Terminal } from "../../apis/dashboard/v1alpha1/types.ts";
import type { Client } from "../../client/client.ts";
import { FakeClock } from "../../utils/clock.ts";
import { terminalConfig } from "./config.ts";
import type { HostResolver } from "./hosts.ts";
import { ATTACH_TOKEN_SECONDS, TerminalService, labelHash } from "./service.ts";

test("the Terminal label hashes are upstream's: npm object-hash of the string (values computed with object-hash 3)", () => {
  assert.equal(labelHash("local-member"), "24b4d780fd5cf0a176f358055340b808bf7c54e3");
  // The length is counted in UTF-16 code units, as JavaScript's String length.
  assert.equal(labelHash("système:é"), "b8b65b8216deeb97b367503e160b095d3ab724d6");
});

describe("the attach session fetch prepares", () => {
  const terminal = (uid: string) => ({ metadata: { name: "term-shoot-1", namespace: "garden-p", uid }, spec: { host: { namespace: "term-1", credentials: { shootRef: { namespace: "garden-p", name: "s" } } } }, status: { attachServiceAccountName: "term-attach-1", podName: "term-1" } }) as unknown as Terminal;
  const alice = { name: "alice", token: "t-alice", isAdmin: false };

  function service(clock: FakeClock, fail = () => false) {
    const requests: { token: string; path: string; seconds: unknown }[] = [];
    const hosts: HostResolver = async (user) => ({
      url: "https://shoot",
      close: () => undefined,
      client: { transport: { request: async (r: { path: string; body: { spec: { expirationSeconds: unknown } } }) => {
        if (fail()) throw new Error("the host cluster is down");
        requests.push({ token: user.token, path: r.path, seconds: r.body.spec.expirationSeconds });
        return { status: { token: `attach-${requests.length}` } };
      } } } as unknown as Client,
    });
    return { svc: new TerminalService(terminalConfig({ garden: { url: "https://garden" } }), hosts, clock), requests };
  }

  test("the attach uses the session prepared for the same user and Terminal until a minute before its token expires", async () => {
    const clock = new FakeClock();
    const { svc, requests } = service(clock);
    svc.prepareAttach(alice, terminal("u1"));
    assert.equal((await svc.attachSessionFor(alice, terminal("u1"))).token, "attach-1");
    assert.equal((await svc.attachSessionFor(alice, terminal("u1"))).token, "attach-1", "a reconnect too");
    assert.deepEqual(requests, [{ token: "t-alice", path: "/api/v1/namespaces/term-1/serviceaccounts/term-attach-1/token", seconds: ATTACH_TOKEN_SECONDS }]);
    // another user, another Terminal (uid): their own session
    assert.equal((await svc.attachSessionFor({ ...alice, name: "mallory", token: "t-m" }, terminal("u1"))).token, "attach-2");
    assert.equal((await svc.attachSessionFor(alice, terminal("u2"))).token, "attach-3");
    clock.step((ATTACH_TOKEN_SECONDS - 60) * 1000);
    assert.equal((await svc.attachSessionFor(alice, terminal("u1"))).token, "attach-4", "an expiring one is replaced");
  });

  test("a prepared session that failed is made again at attach", async () => {
    const clock = new FakeClock();
    let down = true;
    const { svc } = service(clock, () => down);
    svc.prepareAttach(alice, terminal("u1"));
    down = false;
    assert.equal((await svc.attachSessionFor(alice, terminal("u1"))).token, "attach-1");
  });
});
