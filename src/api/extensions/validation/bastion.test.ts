import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import { formatFieldError } from "../../../apimachinery/field/errors.ts";
import { validateExtensionBastion, validateExtensionBastionUpdate } from "./bastion.ts";

const bastion = (spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): ExtensionBastion =>
  ({
    metadata: { name: "cli-abc.x", namespace: "shoot--dev--local", ...meta },
    spec: { type: "local", userData: "IyEvYmluL2Jhc2g=", ingress: [{ ipBlock: { cidr: "1.2.3.4/32" } }], ...spec },
  }) as ExtensionBastion;
const create = (b: ExtensionBastion) => validateExtensionBastion(b).map(formatFieldError);
const update = (b: ExtensionBastion, old: ExtensionBastion) => validateExtensionBastionUpdate(b, old).map(formatFieldError);

describe("extension Bastion validation (docs/bastion.md#the-seed-bastion)", () => {
  it("requires type, userData and ingress; names are DNS-1123 subdomains", () => {
    assert.deepEqual(create(bastion()), []);
    assert.deepEqual(create(bastion({ type: "", userData: "", ingress: [] })), [
      "spec.type: Required value: field is required",
      "spec.userData: Required value: field is required",
      "spec.ingress: Required value: field is required",
    ]);
    assert.deepEqual(create({ metadata: { name: "b", namespace: "n" } } as ExtensionBastion).length, 3);
    assert.match(create(bastion({}, { name: "Not_Valid" }))[0]!, /^metadata\.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain/);
  });

  it("keeps type and userData immutable and ingress mutable", () => {
    const old = bastion();
    assert.deepEqual(update(bastion({ ingress: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }] }), old), []);
    assert.deepEqual(update(bastion({ type: "aws", userData: "" }), old), [
      'spec.type: Invalid value: "aws": field is immutable',
      'spec.userData: Invalid value: "": field is immutable',
      "spec.userData: Required value: field is required",
    ]);
  });

  it("freezes the spec of a Bastion being deleted with exactly one error listing the changes", () => {
    const old = bastion({}, { deletionTimestamp: "2026-01-01T00:00:00Z" });
    assert.deepEqual(update(structuredClone(old), old), []);
    // Semantically equal: an empty except list is the same as none.
    assert.deepEqual(update(bastion({ ingress: [{ ipBlock: { cidr: "1.2.3.4/32", except: [] } }] }, { deletionTimestamp: "2026-01-01T00:00:00Z" }), old), []);
    const changed = bastion({ type: "aws", ingress: [{ ipBlock: { cidr: "5.6.7.8/32" } }] }, { deletionTimestamp: "2026-01-01T00:00:00Z" });
    assert.deepEqual(update(changed, old), [
      "spec: Forbidden: cannot update bastion spec if deletion timestamp is set. Requested changes: spec.ingress[0].ipBlock.cidr: 5.6.7.8/32 != 1.2.3.4/32,spec.type: aws != local",
    ]);
  });
});
