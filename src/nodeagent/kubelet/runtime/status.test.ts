import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContainerInfo } from "../../../host/containers.ts";
import { statusOf, type ContainerRecord } from "./status.ts";

const container = { name: "c0", image: "busybox", command: ["false"] };
const exited: ContainerInfo = { name: "c", dir: "/d", socket: "/s", started: true, running: false, startedAt: "2026-01-01T00:00:00Z", exit: { exitCode: 1, signal: 0, finishedAt: "2026-01-01T00:00:01Z" } };
const finished = Date.parse("2026-01-01T00:00:01Z");

test("CrashLoopBackOff names the back-off being waited now, not the one recorded for the next exit", () => {
  // After the second exit with a 1 s back-off recorded, the runtime waits 1 s and records 2 s for the next time.
  const rec: ContainerRecord = { attempt: 1, backoffMs: 2000, restartAt: finished + 1000 };
  const s = statusOf("uid", container, rec, exited, "", "ContainerCreating");
  assert.deepEqual(s.state.waiting, { reason: "CrashLoopBackOff", message: "back-off 1s restarting failed container=c0" });
  assert.equal(s.lastState.terminated?.exitCode, 1);
  assert.equal(s.restartCount, 1);
  const capped = statusOf("uid", container, { attempt: 3, backoffMs: 2000, restartAt: finished + 2000 }, exited, "", "ContainerCreating");
  assert.equal(capped.state.waiting?.message, "back-off 2s restarting failed container=c0");
});

test("an exited container without a scheduled restart, or restarted at once, is terminated, not in back-off", () => {
  for (const rec of [{ attempt: 0, backoffMs: 0 }, { attempt: 0, backoffMs: 1000, restartAt: finished }]) {
    const s = statusOf("uid", container, rec, exited, "", "ContainerCreating");
    assert.equal(s.state.terminated?.exitCode, 1, JSON.stringify(rec));
    assert.equal(s.state.waiting, undefined);
  }
});
