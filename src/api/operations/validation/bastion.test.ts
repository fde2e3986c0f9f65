import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import { newInvalid } from "../../../apimachinery/errors.ts";
import { formatFieldError } from "../../../apimachinery/field/errors.ts";
import { ed25519AuthorizedKey } from "../testing.ts";
import { validateBastion, validateBastionStatusUpdate, validateBastionUpdate } from "./bastion.ts";

const KEY = ed25519AuthorizedKey();
const bastion = (spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): Bastion =>
  ({
    metadata: { name: "cli-abcde", namespace: "garden-dev", ...meta },
    spec: { shootRef: { name: "local" }, sshPublicKey: KEY, ingress: [{ ipBlock: { cidr: "1.2.3.4/32" } }], ...spec },
  }) as Bastion;
const errors = (b: Bastion) => validateBastion(b).map(formatFieldError);

describe("Bastion validation (docs/bastion.md#validation)", () => {
  it("accepts a complete Bastion, IPv6 CIDRs and CIDRs with host bits", () => {
    assert.deepEqual(errors(bastion()), []);
    assert.deepEqual(errors(bastion({ ingress: [{ ipBlock: { cidr: "1.2.3.4/8" } }, { ipBlock: { cidr: "2001:db8::1/64", except: ["2001:db8::1:0/112"] } }] })), []);
    assert.deepEqual(errors(bastion({}, { name: undefined, generateName: "cli-" })), []);
  });

  it("returns every spec error at once, CIDR errors on spec.ingress without index", () => {
    const b = bastion({
      shootRef: { name: "" },
      sshPublicKey: "",
      ingress: [{ ipBlock: { cidr: "" } }, { ipBlock: { cidr: "10.0.0.0/33" } }, { ipBlock: { cidr: "010.0.0.0/8" } }, { ipBlock: { cidr: "fe80::1%eth0/64" } }],
    });
    assert.deepEqual(errors(b), [
      'spec.shootRef.name: Invalid value: "": shoot reference must not be empty',
      'spec.sshPublicKey: Invalid value: "": sshPublicKey must not be empty',
      'spec.ingress: Invalid value: "": CIDR must not be empty',
      'spec.ingress: Invalid value: "10.0.0.0/33": invalid CIDR',
      'spec.ingress: Invalid value: "010.0.0.0/8": invalid CIDR',
      'spec.ingress: Invalid value: "fe80::1%eth0/64": invalid CIDR',
    ]);
    assert.deepEqual(errors(bastion({ ingress: [] })), ["spec.ingress: Invalid value: []: ingress must not be empty"]);
    assert.deepEqual(errors({ metadata: { name: "x", namespace: "n" } } as Bastion), [
      'spec.shootRef.name: Invalid value: "": shoot reference must not be empty',
      'spec.sshPublicKey: Invalid value: "": sshPublicKey must not be empty',
      "spec.ingress: Invalid value: null: ingress must not be empty",
    ]);
  });

  it("accepts only one authorized_keys entry without options", () => {
    assert.deepEqual(errors(bastion({ sshPublicKey: `${KEY}\n` })), []);
    for (const key of [`no-pty ${KEY}`, `${KEY}\n${KEY}`, "#", " ", `ssh-rsa ${KEY.split(" ")[1]}`]) {
      assert.deepEqual(errors(bastion({ sshPublicKey: key })), [`spec.sshPublicKey: Invalid value: ${JSON.stringify(key)}: invalid sshPublicKey`]);
    }
  });

  it("bounds the key's length without echoing it", () => {
    const long = `${KEY} ${"c".repeat(40_000)}`;
    assert.deepEqual(errors(bastion({ sshPublicKey: long })), ["spec.sshPublicKey: Too long: may not be more than 32768 bytes"]);
  });

  it("validates ipBlock.except as Kubernetes' NetworkPolicy: valid CIDRs strictly inside cidr, same family", () => {
    const except = (cidr: string, entries: unknown[]) => errors(bastion({ ingress: [{ ipBlock: { cidr: "1.2.3.4/32" } }, { ipBlock: { cidr, except: entries } }] }));
    assert.deepEqual(except("10.0.0.0/8", ["10.1.0.0/16", "10.255.255.255/32", "10.1.2.3/24"]), []);
    assert.deepEqual(except("2001:db8::/32", ["2001:db8:ffff::/48"]), []);
    const subset = (j: number, v: string) => `spec.ingress[1].ipBlock.except[${j}]: Invalid value: "${v}": must be a strict subset of \`cidr\``;
    const cidrValue = (j: number, v: string) => `spec.ingress[1].ipBlock.except[${j}]: Invalid value: ${JSON.stringify(v)}: must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`;
    assert.deepEqual(except("10.0.0.0/8", ["junk", "", "10.0.0.0/33", "10.0.0.0/8", "10.0.0.0/7", "11.0.0.0/16", "::/0", "2001:db8::/64", 7]), [
      cidrValue(0, "junk"),
      cidrValue(1, ""),
      cidrValue(2, "10.0.0.0/33"),
      subset(3, "10.0.0.0/8"),
      subset(4, "10.0.0.0/7"),
      subset(5, "11.0.0.0/16"),
      subset(6, "::/0"),
      subset(7, "2001:db8::/64"),
      cidrValue(8, ""),
    ]);
    assert.deepEqual(except("2001:db8::/32", ["10.0.0.0/16", "2001:db9::/48"]), [subset(0, "10.0.0.0/16"), subset(1, "2001:db9::/48")]);
    // Against an invalid cidr only the syntax of the entries is checked (the cidr has its own error).
    assert.deepEqual(except("nope", ["10.0.0.0/16", "x"]), ['spec.ingress: Invalid value: "nope": invalid CIDR', cidrValue(1, "x")]);
  });

  it("requires name and namespace and a DNS-1123 label as name", () => {
    assert.deepEqual(errors(bastion({}, { name: "", namespace: "" })), [
      "metadata.name: Required value: name or generateName is required",
      "metadata.namespace: Required value",
    ]);
    assert.deepEqual(errors(bastion({}, { name: "a.b" })), ['metadata.name: Invalid value: "a.b": must not contain dots']);
    assert.equal(errors(bastion({}, { name: "x".repeat(64) }))[0], `metadata.name: Invalid value: "${"x".repeat(64)}": must be no more than 63 characters`);
  });

  it("renders as Gardener's 422 for Bastion.operations.gardener.cloud", () => {
    const err = newInvalid({ group: "operations.gardener.cloud", kind: "Bastion" }, "b1", validateBastion(bastion({ shootRef: { name: "" }, ingress: [] })));
    assert.equal(err.code, 422);
    assert.equal(
      err.message,
      'Bastion.operations.gardener.cloud "b1" is invalid: [spec.shootRef.name: Invalid value: "": shoot reference must not be empty, spec.ingress: Invalid value: []: ingress must not be empty]',
    );
    assert.deepEqual(err.details?.causes?.map((c) => [c.reason, c.field]), [
      ["FieldValueInvalid", "spec.shootRef.name"],
      ["FieldValueInvalid", "spec.ingress"],
    ]);
  });

  it("keeps creator, shoot and key immutable on update and re-validates the new object", () => {
    const old = bastion({}, { annotations: { "gardener.cloud/created-by": "alice" }, uid: "u1" });
    assert.deepEqual(validateBastionUpdate(structuredClone(old), old), []);
    const next = bastion({ shootRef: { name: "other" }, sshPublicKey: `${KEY}\n`, ingress: [{ ipBlock: { cidr: "nope" } }] }, { annotations: {}, uid: "u1" });
    assert.deepEqual(validateBastionUpdate(next, old).map(formatFieldError), [
      'metadata.annotations: Invalid value: "": field is immutable',
      'spec.shootRef.name: Invalid value: "other": field is immutable',
      `spec.sshPublicKey: Invalid value: ${JSON.stringify(`${KEY}\n`)}: field is immutable`,
      'spec.ingress: Invalid value: "nope": invalid CIDR',
    ]);
    // Absent and empty creators are the same.
    const anon = bastion();
    assert.deepEqual(validateBastionUpdate(bastion({}, { annotations: { "gardener.cloud/created-by": "" } }), anon), []);
    assert.deepEqual(validateBastionUpdate(bastion({}, { uid: "u2" }), bastion({}, { uid: "u1" })).map(formatFieldError), [
      'metadata.uid: Invalid value: "u2": field is immutable',
    ]);
  });

  it("refuses heartbeats from the future only", () => {
    const now = new Date("2026-01-01T12:00:00.500Z");
    const at = (t: string) => validateBastionStatusUpdate({ status: { lastHeartbeatTimestamp: t } }, now).map(formatFieldError);
    assert.deepEqual(at("2026-01-01T12:00:00Z"), []);
    assert.deepEqual(at("2025-01-01T00:00:00Z"), []);
    assert.deepEqual(at("2026-01-01T12:00:01Z"), [
      'status.lastHeartbeatTimestamp: Invalid value: "2026-01-01T12:00:01Z": last heartbeat must not be in the future',
    ]);
    assert.deepEqual(validateBastionStatusUpdate({}, now), []);
  });
});
