// provider-local's ConfigValidator (docs/bastion.md#provider-local): no providerConfig, parsable ingress CIDRs, and a
// shoot with a parsable node CIDR. Every error is a configuration problem (ERR_CONFIGURATION_PROBLEM).
import type { Cluster, ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import { type FieldError, Path, invalid, required } from "../../../apimachinery/field/errors.ts";
import type { ConfigValidator } from "../../../extensions/controller/bastion/configvalidator.ts";
import type { ActuatorContext } from "../../../extensions/controller/bastion/actuator.ts";
import { isCidr, shootNodes } from "./cluster.ts";

export function validateLocalBastion(bastion: ExtensionBastion, cluster: Cluster): FieldError[] {
  const errs: FieldError[] = [];
  if (bastion.spec.providerConfig !== undefined && bastion.spec.providerConfig !== null) {
    errs.push(invalid(Path.root("spec").child("providerConfig"), bastion.spec.providerConfig, "providerConfig is not supported"));
  }
  for (const [i, entry] of (bastion.spec.ingress ?? []).entries()) {
    const block = Path.root("spec").child("ingress").index(i).child("ipBlock");
    const cidr = entry.ipBlock?.cidr;
    if (!isCidr(cidr)) errs.push(invalid(block.child("cidr"), cidr, "invalid CIDR address"));
    for (const [j, ex] of (entry.ipBlock?.except ?? []).entries()) {
      if (!isCidr(ex)) errs.push(invalid(block.child("except").index(j), ex, "invalid CIDR address"));
    }
  }
  const nodes = shootNodes(cluster);
  const path = Path.root("spec").child("networking").child("nodes");
  if (nodes === undefined || nodes === null || nodes === "") errs.push(required(path, "the shoot's node CIDR is required to reach its nodes"));
  else if (!isCidr(nodes)) errs.push(invalid(path, nodes, "invalid CIDR address"));
  return errs;
}

export class LocalConfigValidator implements ConfigValidator {
  validate(_ctx: ActuatorContext, bastion: ExtensionBastion, cluster: Cluster): FieldError[] {
    return validateLocalBastion(bastion, cluster);
  }
}
