import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rotationRequestStarted } from "./rotation.ts";

const OP = "gardener.cloud/operation";

function shoot(o: { op?: string; generation?: number; observed?: unknown; initiated?: string; lastOperation?: string }) {
  return {
    metadata: { generation: o.generation ?? 3, annotations: (o.op === undefined ? {} : { [OP]: o.op }) as Record<string, string> },
    status: {
      ...(o.observed === undefined ? {} : { observedGeneration: o.observed }),
      ...(o.initiated === undefined ? {} : { credentials: { rotation: { sshKeypair: { lastInitiationTime: o.initiated } } } }),
      ...(o.lastOperation === undefined ? {} : { lastOperation: { state: o.lastOperation } }),
    },
  };
}

describe("rotationRequestStarted", () => {
  const T = "2026-03-10T20:00:00Z";
  it("is true for a request present at the generation whose start was recorded", () => {
    assert.equal(rotationRequestStarted(shoot({ op: "rotate-ssh-keypair", observed: 3, initiated: T })), true);
    assert.equal(rotationRequestStarted(shoot({ op: "reconcile;rotate-credentials-start", observed: 3, initiated: T })), true);
  });
  it("is false for a newer request (the generation moved on) or when nothing was started", () => {
    assert.equal(rotationRequestStarted(shoot({ op: "rotate-ssh-keypair", generation: 4, observed: 3, initiated: T })), false);
    assert.equal(rotationRequestStarted(shoot({ op: "rotate-ssh-keypair", observed: 3 })), false, "no lastInitiationTime");
    assert.equal(rotationRequestStarted(shoot({ op: "rotate-ssh-keypair", initiated: T })), false, "no observedGeneration");
    assert.equal(rotationRequestStarted(shoot({ op: "rotate-ssh-keypair", observed: "3", initiated: T })), false, "not a number");
  });
  it("is false without a rotation request", () => {
    assert.equal(rotationRequestStarted(shoot({ observed: 3, initiated: T })), false);
    assert.equal(rotationRequestStarted(shoot({ op: "maintain", observed: 3, initiated: T })), false);
  });
  it("is false after a failed operation, where adding a request bumps no generation", () => {
    assert.equal(rotationRequestStarted(shoot({ op: "rotate-ssh-keypair", observed: 3, initiated: T, lastOperation: "Failed" })), false);
  });
});
