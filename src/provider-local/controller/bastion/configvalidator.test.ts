import { test } from "node:test";
import assert from "node:assert/strict";
import type { Cluster, ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import { formatFieldErrors } from "../../../apimachinery/field/errors.ts";
import { configValidationError } from "../../../extensions/controller/bastion/configvalidator.ts";
import { validateLocalBastion } from "./configvalidator.ts";

const cluster = (nodes?: unknown): Cluster => ({
  metadata: { name: "shoot--p--s" },
  spec: { cloudProfile: {}, seed: {}, shoot: { spec: { networking: nodes === undefined ? {} : { nodes } } } },
});

const bastion = (mut: (b: ExtensionBastion) => void = () => undefined): ExtensionBastion => {
  const b: ExtensionBastion = { metadata: { name: "b", namespace: "shoot--p--s" }, spec: { type: "local", userData: "eA==", ingress: [{ ipBlock: { cidr: "203.0.113.0/24", except: ["203.0.113.7/32"] } }, { ipBlock: { cidr: "2001:db8::/64" } }] } };
  mut(b);
  return b;
};

test("a valid bastion and cluster pass", () => {
  assert.deepEqual(validateLocalBastion(bastion(), cluster("10.250.0.0/24")), []);
});

test("providerConfig, bad CIDRs and excepts, each with its path; all configuration problems", () => {
  const b = bastion((x) => {
    x.spec.providerConfig = { a: 1 };
    x.spec.ingress = [{ ipBlock: { cidr: "203.0.113.0/24", except: ["ok/", "10.0.0.0/8", "10.0.0.1"] } }, { ipBlock: { cidr: "300.1.1.1/8" } }];
  });
  const errs = validateLocalBastion(b, cluster("10.250.0.0/24"));
  assert.deepEqual(errs.map((e) => [e.type, e.field]), [
    ["FieldValueInvalid", "spec.providerConfig"],
    ["FieldValueInvalid", "spec.ingress[0].ipBlock.except[0]"],
    ["FieldValueInvalid", "spec.ingress[0].ipBlock.except[2]"],
    ["FieldValueInvalid", "spec.ingress[1].ipBlock.cidr"],
  ]);
  assert.match(formatFieldErrors(errs), /spec\.providerConfig: Invalid value: \{"a":1\}: providerConfig is not supported/);
  assert.deepEqual(configValidationError(errs)?.codes, ["ERR_CONFIGURATION_PROBLEM"]);
});

test("the shoot needs a parsable node CIDR", () => {
  assert.deepEqual(validateLocalBastion(bastion(), cluster()).map((e) => [e.type, e.field]), [["FieldValueRequired", "spec.networking.nodes"]]);
  assert.deepEqual(validateLocalBastion(bastion(), cluster("10.250.0.0")).map((e) => [e.type, e.field]), [["FieldValueInvalid", "spec.networking.nodes"]]);
  assert.deepEqual(validateLocalBastion(bastion(), cluster(42)).map((e) => [e.type, e.field]), [["FieldValueInvalid", "spec.networking.nodes"]]);
});
