// What provider-local reads from a Bastion and its Cluster: the shoot's node CIDR (the Cluster carries the
// garden Shoot as raw JSON) and the ingress CIDRs.
import { parseCidr } from "../../../host/index.ts";
import type { Cluster, ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";

/** `spec.shoot.spec.networking.nodes` of the Cluster, if it is a string. */
export function shootNodes(cluster: Cluster): unknown {
  const shoot = cluster.spec?.shoot as { spec?: { networking?: { nodes?: unknown } } } | undefined;
  return shoot?.spec?.networking?.nodes;
}

/** A CIDR as Go's net.ParseCIDR takes it: "<address>/<prefix length>". */
export function isCidr(text: unknown): text is string {
  if (typeof text !== "string" || !text.includes("/")) return false;
  try {
    parseCidr(text);
    return true;
  } catch {
    return false;
  }
}

export interface IngressCidrs {
  ingress: string[];
  except: string[];
}

/** spec.ingress as allowed and excepted CIDRs (validated before: every entry parses). */
export function ingressCidrs(b: ExtensionBastion): IngressCidrs {
  const ingress: string[] = [];
  const except: string[] = [];
  for (const i of b.spec.ingress ?? []) {
    ingress.push(i.ipBlock.cidr);
    except.push(...(i.ipBlock.except ?? []));
  }
  return { ingress: [...new Set(ingress)], except: [...new Set(except)] };
}
