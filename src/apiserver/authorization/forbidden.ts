// kube-apiserver's Forbidden texts ([as] pkg/endpoints/handlers/responsewriters/errors.go and
// apimachinery's NewForbidden).
import { StatusError } from "../../apimachinery/errors.ts";
import type { AuthorizationAttributes } from "./types.ts";

/**
 * `User "u" cannot list resource "bastions" in API group "operations.gardener.cloud" in the namespace "ns"`,
 * `... at the cluster scope`, or `User "u" cannot get path "/healthz"`.
 */
export function forbiddenMessage(attrs: AuthorizationAttributes): string {
  const user = attrs.user.username;
  if (!attrs.resourceRequest) return `User "${user}" cannot ${attrs.verb} path "${attrs.path ?? ""}"`;
  const resource = attrs.subresource ? `${attrs.resource ?? ""}/${attrs.subresource}` : (attrs.resource ?? "");
  const scope = attrs.namespace ? `in the namespace "${attrs.namespace}"` : "at the cluster scope";
  return `User "${user}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup ?? ""}" ${scope}`;
}

/**
 * The 403 StatusError for a denied request: `<resource>.<group> "<name>" is forbidden: <message>[: <reason>]`,
 * or `forbidden: User "u" cannot get path "/x"` for non-resource requests.
 */
export function forbiddenError(attrs: AuthorizationAttributes, reason = ""): StatusError {
  const detail = reason ? `${forbiddenMessage(attrs)}: ${reason}` : forbiddenMessage(attrs);
  const group = attrs.resourceRequest ? (attrs.apiGroup ?? "") : "";
  const resource = attrs.resourceRequest ? (attrs.resource ?? "") : "";
  const name = attrs.resourceRequest ? (attrs.name ?? "") : "";
  const qualified = group ? `${resource}.${group}` : resource;
  let message: string;
  if (!group && !resource) message = `forbidden: ${detail}`;
  else if (!name) message = `${qualified} is forbidden: ${detail}`;
  else message = `${qualified} "${name}" is forbidden: ${detail}`;
  const details: { group: string; kind: string; name?: string } = { group, kind: resource };
  if (name) details.name = name;
  return new StatusError(403, "Forbidden", message, details);
}
