import { test } from "node:test";
import assert from "node:assert/strict";
import type { Condition } from "../../../apis/gardencore/v1beta1/types.ts";
import { MESSAGE_INITIALIZED, REASON_INITIALIZED, initCondition, updateCondition, withReady } from "./conditions.ts";
import { metaTime } from "../../../utils/time.ts";

const T = Date.UTC(2026, 0, 1);
const t = (s: number) => metaTime(T + s * 1000);

test("a missing BastionReady is initialised and updated in the same write", () => {
  assert.deepEqual(initCondition("BastionReady", T), {
    type: "BastionReady",
    status: "Unknown",
    lastTransitionTime: t(0),
    lastUpdateTime: t(0),
    reason: REASON_INITIALIZED,
    message: MESSAGE_INITIALIZED,
  });
  const [ready] = withReady(undefined, { status: "True", reason: "SuccessfullyReconciled", message: "ok" }, T + 1500);
  assert.deepEqual(ready, { type: "BastionReady", status: "True", lastTransitionTime: t(1), lastUpdateTime: t(1), reason: "SuccessfullyReconciled", message: "ok" });
});

test("transition time moves only with the status; update time with status, reason or message", () => {
  const c: Condition = { type: "BastionReady", status: "False", lastTransitionTime: t(0), lastUpdateTime: t(0), reason: "FailedReconciling", message: "a" };
  assert.deepEqual(updateCondition(c, "False", "FailedReconciling", "a", T + 10_000), c, "nothing changed");
  const msg = updateCondition(c, "False", "FailedReconciling", "b", T + 10_000);
  assert.equal(msg.lastTransitionTime, t(0));
  assert.equal(msg.lastUpdateTime, t(10));
  const st = updateCondition(c, "True", "FailedReconciling", "a", T + 20_000);
  assert.equal(st.lastTransitionTime, t(20));
  assert.equal(st.lastUpdateTime, t(20));
  const withCodes = updateCondition({ ...c, codes: ["ERR_X"] }, "False", "FailedReconciling", "a", T + 30_000);
  assert.equal(withCodes.lastUpdateTime, t(30), "codes cleared");
  assert.equal(withCodes.codes, undefined);
  const coded = updateCondition(c, "False", "FailedReconciling", "a", T + 40_000, ["ERR_CONFIGURATION_PROBLEM"]);
  assert.deepEqual(coded.codes, ["ERR_CONFIGURATION_PROBLEM"]);
  assert.equal(coded.lastUpdateTime, t(40), "codes set");
  assert.deepEqual(updateCondition(coded, "False", "FailedReconciling", "a", T + 50_000, ["ERR_CONFIGURATION_PROBLEM"]), coded, "the same codes change nothing");
});

test("extension conditions are mirrored after BastionReady in the extension's order; without an extension, others are kept", () => {
  const other = (type: string): Condition => ({ type, status: "True", lastTransitionTime: t(0), lastUpdateTime: t(0), reason: "r", message: "m" });
  const current = [other("Gone"), other("BastionReady")];
  const mirrored = withReady(current, { status: "True", reason: "x", message: "y" }, T, [other("B"), other("BastionReady"), other("A")]);
  assert.deepEqual(mirrored.map((c) => c.type), ["BastionReady", "B", "A"]);
  const kept = withReady(current, { status: "False", reason: "DeletionInProgress", message: "z" }, T);
  assert.deepEqual(kept.map((c) => c.type), ["BastionReady", "Gone"]);
});
