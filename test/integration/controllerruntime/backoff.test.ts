// Failure backoff, requeue-after and terminal errors of a controller running against the real
// API server, with the manager on a fake clock (the informers use real time, so watch events
// arrive as they happen; only the queue's delays wait for the test to move the clock).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ConfigMaps } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { createOrPatch } from "../../../src/client/helpers.ts";
import { newControllerManagedBy } from "../../../src/controllerruntime/builder.ts";
import { Manager } from "../../../src/controllerruntime/manager.ts";
import { labelSelector } from "../../../src/controllerruntime/predicates.ts";
import { TerminalError } from "../../../src/controllerruntime/reconcile.ts";
import { FakeClock, realClock } from "../../../src/utils/clock.ts";
import { type TestServer, ensureNamespace, eventually, startTestServer, stepUntil } from "./support.ts";

let ts: TestServer;
before(async () => {
  ts = await startTestServer("sqlite");
});
after(async () => {
  await ts?.dispose();
});

test("failures back off 5, 10, 20, 40 ms; requeueAfter waits exactly and resets the backoff; terminal errors stop", async () => {
  const ns = "backoff";
  await ensureNamespace(ts.client, ns);
  const clock = new FakeClock();
  const client = Client.fromKubeconfigFile(ts.kubeconfig);
  const mgr = new Manager({ client, clock, cache: { clock: realClock }, defaultMetrics: false });
  const attempts = new Map<string, number[]>();
  // flaky: fails 4 times, then records its attempts in flaky-status and asks for a requeue
  // after 30 s; the requeued run fails once more, the next one succeeds for good.
  const controller = newControllerManagedBy(mgr)
    .named("flaky")
    .for(ConfigMaps, [labelSelector("test=flaky")])
    .complete(async (req, ctx) => {
      const times = attempts.get(req.name) ?? [];
      times.push(clock.nowMs());
      attempts.set(req.name, times);
      if (req.name === "terminal") throw new TerminalError("spec is invalid; retrying cannot help");
      const n = times.length;
      if (n <= 4 || n === 6) throw new Error(`attempt ${n} fails`);
      if (n === 5) {
        await createOrPatch(client, ConfigMaps, { namespace: ns, name: `${req.name}-status` }, (cm) => {
          cm.data = { attempts: String(n) };
        }, { signal: ctx.signal });
        return { requeueAfterMs: 30_000 };
      }
    });
  await mgr.start();
  try {
    await ts.client.create(ConfigMaps, { metadata: { namespace: ns, name: "job", labels: { test: "flaky" } } });
    await eventually("first attempt", () => (attempts.get("job")?.length ? true : undefined));
    const times = (): number[] => attempts.get("job") ?? [];

    // A due timer hands its key to a worker synchronously within clock.step(); the step has
    // settled once that reconcile (and its HTTP round trips) is over: nothing queued or in flight.
    const q = controller.queue;
    const idle = (): boolean => q.len() === 0 && q.inFlight() === 0;
    const settled = idle;

    await stepUntil(clock, "five attempts", () => times().length >= 5, { stepMs: 1, maxMs: 200, settled });
    const t = times();
    assert.deepEqual(t.slice(1).map((x, i) => x - t[i]!), [5, 10, 20, 40], "per-key exponential backoff");
    await eventually("status written through the API", async () => {
      const cm = await ts.client.get(ConfigMaps, { namespace: ns, name: "job-status" }).catch(() => undefined);
      return cm?.data?.attempts === "5" ? true : undefined;
    });
    await eventually("the requeue to be scheduled", () => (q.delayed() === 1 && idle() ? true : undefined));

    clock.step(29_999);
    assert.equal(q.delayed(), 1, "the requeue still waits 1 ms before requeueAfter has passed");
    assert.ok(idle(), "nothing handed to a worker before requeueAfter has passed");
    assert.equal(times().length, 5);
    await stepUntil(clock, "the requeued attempt", () => times().length >= 6, { stepMs: 1, maxMs: 10, settled });
    assert.equal(times()[5]! - times()[4]!, 30_000);
    await stepUntil(clock, "the attempt after the next failure", () => times().length >= 7, { stepMs: 1, maxMs: 100, settled });
    assert.equal(times()[6]! - times()[5]!, 5, "requeueAfter had reset the backoff to its base");
    await eventually("the successful attempt to finish", () => (idle() ? true : undefined));
    assert.equal(q.delayed(), 0, "a plain success schedules no requeue");
    clock.step(24 * 3600_000);
    assert.ok(idle(), "a plain success is not requeued");
    assert.equal(times().length, 7);

    await ts.client.create(ConfigMaps, { metadata: { namespace: ns, name: "terminal", labels: { test: "flaky" } } });
    await eventually("terminal attempt", () => (attempts.get("terminal")?.length ? true : undefined));
    await eventually("the terminal attempt to finish", () => (idle() ? true : undefined));
    assert.equal(q.delayed(), 0, "a terminal error schedules no retry");
    clock.step(20 * 3600_000);
    assert.ok(idle(), "terminal errors are not retried");
    assert.equal(attempts.get("terminal")!.length, 1);
    const m = await mgr.registry.getSingleMetricAsString("controller_runtime_terminal_reconcile_errors_total");
    assert.match(m, /controller="flaky"\} 1/);
    const r = await mgr.registry.getSingleMetricAsString("controller_runtime_reconcile_total");
    assert.match(r, /controller="flaky",result="requeue_after"\} 1/);
    assert.match(r, /controller="flaky",result="error"\} 6/);
  } finally {
    await mgr.stop();
    client.close();
  }
});
