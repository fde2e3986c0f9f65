// Seeded fuzzing of the real server: a few thousand random and mutated bodies, patches of all four
// types, query strings and headers at many URLs. Every answer must be 2xx or 4xx (never 5xx, never
// a hang), every error a JSON Status, every watch a stream of JSON lines; the server must stay up.
// A few percent are bombs (patches that grow, deep nesting in every format, oversized objects of
// every kind): those must be refused with a 4xx.
// Reproduce a run with FUZZ_SEED=<seed printed in the test output>.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { rawClient, type RawClient, type RawResponse } from "../../support/http.ts";
import { fuzzNamespace, RequestGenerator, Rng, type FuzzRequest } from "./fuzz-gen.ts";
import { expectStatus } from "./status.ts";

const maxRequests = Number(process.env.FUZZ_REQUESTS ?? 3000);
const timeBudgetMs = 40_000;
const workers = 4;

/** Why an answer is unacceptable, or undefined when it is fine. */
function judge(req: FuzzRequest, res: RawResponse): string | undefined {
  // The one 5xx Kubernetes defines for a client's input: a resourceVersion from the future makes
  // the apiserver wait, then answer 504 Timeout with cause ResourceVersionTooLarge (client-go relists).
  if (res.status === 504 && /"reason":"ResourceVersionTooLarge"/.test(res.body) && /resourceVersion=/.test(req.path)) return undefined;
  if (res.status >= 500) return `server error ${res.status}`;
  if (req.hostile && res.status < 400) return `${req.hostile} was accepted (${res.status})`;
  if (res.status < 200 || (res.status >= 300 && res.status < 400)) return `unexpected status ${res.status}`;
  const type = String(res.headers["content-type"] ?? "");
  if (res.status >= 400) {
    try {
      expectStatus(res, res.status);
    } catch (e) {
      return `bad error body: ${(e as Error).message.split("\n")[0]}`;
    }
    return undefined;
  }
  if (req.watch && type.startsWith("application/json")) {
    // GET <item>?watch=true is a plain get in kube-apiserver (the verb stays "get"): one object.
    if (isSingleObject(res.body)) return undefined;
    for (const line of res.body.split("\n").filter((l) => l !== "")) {
      try {
        const ev = JSON.parse(line) as { type?: string; object?: unknown };
        if (!ev.type || typeof ev.object !== "object") return `watch event without type/object: ${line.slice(0, 200)}`;
      } catch {
        return `watch line is not JSON: ${line.slice(0, 200)}`;
      }
    }
    return undefined;
  }
  if (type.startsWith("application/json") && req.method !== "HEAD") {
    try {
      JSON.parse(res.body);
    } catch {
      return `2xx body is not JSON: ${res.body.slice(0, 200)}`;
    }
  }
  return undefined;
}

function isSingleObject(body: string): boolean {
  try {
    const v = JSON.parse(body) as { kind?: unknown };
    return typeof v.kind === "string";
  } catch {
    return false;
  }
}

void describe("fuzzing the API server", { timeout: 120_000 }, () => {
  let server: ApiServerProcess;
  let c: RawClient;

  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite" });
    c = rawClient(server.kubeconfig, { maxSockets: workers + 2 });
    const post = async (path: string, obj: unknown) => {
      const res = await c.request({ method: "POST", path, body: JSON.stringify(obj), headers: { "content-type": "application/json" } });
      assert.equal(res.status, 201, res.body);
    };
    await post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: fuzzNamespace } });
    for (let i = 0; i < 4; i++) {
      await post(`/api/v1/namespaces/${fuzzNamespace}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `fz-${i}` }, data: { a: "1" } });
    }
  });
  after(async () => {
    c?.close();
    await server?.dispose();
  });

  void it("answers every random request with 2xx or 4xx and stays alive", async (t) => {
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
    t.diagnostic(`fuzz seed ${seed} (rerun with FUZZ_SEED=${seed})`);
    const gen = new RequestGenerator(new Rng(seed));
    const failures: string[] = [];
    const counts = new Map<number, number>();
    const deadline = Date.now() + timeBudgetMs;
    let sent = 0;

    const worker = async (): Promise<void> => {
      while (sent < maxRequests && Date.now() < deadline && failures.length < 500) {
        const req = gen.next();
        sent++;
        const describeReq = `${req.method} ${req.path} ${JSON.stringify(req.headers)} ${(req.body ?? "").slice(0, 300)}`;
        try {
          const res = await c.request({ method: req.method, path: req.path, headers: req.headers, ...(req.body !== undefined ? { body: req.body } : {}), timeoutMs: 10_000 });
          counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
          const why = judge(req, res);
          if (why) failures.push(`${why}\n  request: ${describeReq}\n  response: ${res.status} ${res.body.slice(0, 400)}`);
        } catch (e) {
          failures.push(`no answer: ${(e as Error).message}\n  request: ${describeReq}`);
        }
      }
    };
    await Promise.all(Array.from({ length: workers }, () => worker()));
    t.diagnostic(`sent ${sent} requests; status counts ${JSON.stringify(Object.fromEntries([...counts].sort()))}`);

    // One example per kind of failure (its first line), so one frequent bug does not hide the others.
    const kinds = new Map<string, string>();
    for (const f of failures) {
      const message = /"message":"([^"]{0,60})/.exec(f)?.[1] ?? "";
      const key = `${f.split("\n")[0]!.slice(0, 40)} ${message}`.replace(/\d+/g, "N");
      if (!kinds.has(key)) kinds.set(key, f);
    }
    assert.deepEqual([...kinds.values()].slice(0, 12), [], `seed ${seed}: ${failures.length} bad answers of ${kinds.size} kinds (one example each)`);
    assert.ok(sent >= 500, `only ${sent} requests were sent in the time budget`);
    assert.ok((counts.get(200) ?? 0) + (counts.get(201) ?? 0) > 50, `too few successful requests to be meaningful: ${JSON.stringify([...counts])}`);

    assert.equal(server.child.exitCode, null, `the server exited during fuzzing\n${server.output().slice(-3000)}`);
    const ready = await c.request({ path: "/readyz" });
    assert.equal(ready.status, 200, ready.body);
    assert.equal(ready.body.trim(), "ok");
    const roundTrip = await c.request({
      method: "POST",
      path: `/api/v1/namespaces/${fuzzNamespace}/configmaps`,
      body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after-fuzz" }, data: { ok: "yes" } }),
      headers: { "content-type": "application/json" },
    });
    assert.equal(roundTrip.status, 201, roundTrip.body);
    const got = await c.request({ path: `/api/v1/namespaces/${fuzzNamespace}/configmaps/after-fuzz` });
    assert.deepEqual(got.json<{ data: unknown }>().data, { ok: "yes" });
  });
});
