import { test } from "node:test";
import assert from "node:assert/strict";
import { invalid, internalError } from "../../apimachinery/field/errors.ts";
import { configValidationError } from "./bastion/configvalidator.ts";
import { ErrorWithCodes, RequeueAfterError, extractErrorCodes, withCodes } from "./errors.ts";
import { errorDescription, errorPatch, processingPatch, StatusUpdater, successPatch } from "./status.ts";
import type { ExtensionBastion } from "../../apis/extensions/v1alpha1/types.ts";
import type { Client } from "../../client/client.ts";
import type { Clock } from "../../utils/clock.ts";
import { ExtensionBastions } from "../resources.ts";

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 750);

test("lastOperation at start, on error and on success (docs/bastion.md#lastoperation-and-lasterror)", () => {
  assert.deepEqual(processingPatch("Create", "Reconciling the Bastion", T), {
    lastOperation: { type: "Create", state: "Processing", progress: 1, description: "Reconciling the Bastion", lastUpdateTime: "2026-01-01T12:00:00Z" },
  });
  const err = withCodes(new Error("quota exceeded"), "ERR_INFRA_QUOTA_EXCEEDED");
  assert.deepEqual(errorPatch("Reconcile", "Error reconciling Bastion", err, 3, T), {
    lastOperation: { type: "Reconcile", state: "Error", progress: 50, description: "Error reconciling Bastion: quota exceeded", lastUpdateTime: "2026-01-01T12:00:00Z" },
    lastError: { description: "Error reconciling Bastion: quota exceeded", lastUpdateTime: "2026-01-01T12:00:00Z", codes: ["ERR_INFRA_QUOTA_EXCEEDED"] },
    observedGeneration: 3,
  });
  assert.equal((errorPatch("Delete", "Error deleting Bastion", new Error("x"), 1, T).lastError as { codes?: string[] }).codes, undefined, "no codes: none recorded");
  assert.deepEqual(successPatch("Delete", "Successfully reconciled Bastion", 4, T), {
    lastOperation: { type: "Delete", state: "Succeeded", progress: 100, description: "Successfully reconciled Bastion", lastUpdateTime: "2026-01-01T12:00:00Z" },
    lastError: null,
    observedGeneration: 4,
  });
});

test("descriptions start upper-case", () => {
  assert.equal(errorDescription("error x", new Error("y")), "Error x: y");
  assert.equal(errorDescription("Error reconciling Bastion", "plain string"), "Error reconciling Bastion: plain string");
});

test("error codes are collected along the cause chain", () => {
  const inner = new ErrorWithCodes("inner", ["A", "B"]);
  const outer = new ErrorWithCodes("outer", ["B", "C"], { cause: new Error("mid", { cause: inner }) });
  assert.deepEqual(extractErrorCodes(outer), ["B", "C", "A"]);
  assert.deepEqual(extractErrorCodes(new Error("none")), []);
  assert.deepEqual(extractErrorCodes(new RequeueAfterError("wait", 5000, { cause: inner })), ["A", "B"]);
});

test("config validation errors carry ERR_CONFIGURATION_PROBLEM unless one is internal", () => {
  assert.equal(configValidationError([]), undefined);
  const one = configValidationError([invalid("spec.providerConfig", { a: 1 }, "providerConfig is not supported")])!;
  assert.deepEqual(one.codes, ["ERR_CONFIGURATION_PROBLEM"]);
  assert.equal(one.message, 'spec.providerConfig: Invalid value: {"a":1}: providerConfig is not supported');
  const two = configValidationError([invalid("spec.ingress[0].ipBlock.cidr", "x", "invalid CIDR"), internalError("spec.networking.nodes", new Error("cluster unreadable"))])!;
  assert.deepEqual(two.codes, []);
  assert.equal(two.message, '[spec.ingress[0].ipBlock.cidr: Invalid value: "x": invalid CIDR, spec.networking.nodes: Internal error: cluster unreadable]');
});

test("success writes what the actuator reported in the same status patch, lastOperation winning over it", async () => {
  const sent: unknown[] = [];
  const client = { patchStatus: (_t: unknown, _k: unknown, p: { body: unknown }) => (sent.push(p.body), Promise.resolve({})) } as unknown as Client;
  const updater = new StatusUpdater(client, ExtensionBastions, { nowMs: () => T } as Clock);
  const obj = { metadata: { namespace: "n", name: "b", generation: 2 } } as ExtensionBastion;
  await updater.success(obj, "Create", "Successfully reconciled Bastion", undefined, { ingress: { ip: "198.18.0.3" }, lastOperation: "not this" });
  assert.deepEqual(sent, [{ status: { ingress: { ip: "198.18.0.3" }, ...successPatch("Create", "Successfully reconciled Bastion", 2, T) } }]);
});
