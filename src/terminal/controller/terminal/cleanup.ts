// A Terminal's cleanup (docs/terminals.md#deletion-and-idle-cleanup), target side first: the access
// bindings, the access ServiceAccount's project memberships, the access ServiceAccount and the temporary namespace; then on the host the attach
// RoleBinding, ServiceAccount and Role, the pod, both Secrets and the temporary namespace. A side
// without a client is skipped (reported); the errors of both sides are returned together.
import type { Terminal } from "../../../apis/dashboard/v1alpha1/types.ts";
import { Namespaces, RoleBindings, Roles, Secrets } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import type { ClusterClient } from "../../clients.ts";
import { ClusterRoleBindings, Pods, ServiceAccounts } from "../../resources.ts";
import { remove } from "./apply.ts";
import { membershipsOf, removeMember } from "./memberships.ts";
import { accessBindings, namesOf } from "./objects.ts";

export interface CleanupOptions {
  /** honourProjectMemberships: the access ServiceAccount leaves the Terminal's projectMemberships. */
  honourProjectMemberships?: boolean;
  /** The controller's own garden client (a Project the target credential may not read any more). */
  garden?: Client;
}

async function cleanTarget(t: Terminal, target: ClusterClient, signal: AbortSignal, o: CleanupOptions): Promise<void> {
  const n = namesOf(t);
  const ns = t.spec.target.namespace ?? "";
  for (const rb of accessBindings(t)) {
    const name = `${n.access}${rb.nameSuffix}`;
    if (rb.bindingKind === "ClusterRoleBinding") await remove(target.client, ClusterRoleBindings, { name }, signal);
    else if (rb.bindingKind === "RoleBinding") await remove(target.client, RoleBindings, { namespace: ns, name }, signal);
    else throw new Error(`unknown BindingKind ${rb.bindingKind}`);
  }
  if (o.honourProjectMemberships) {
    for (const m of membershipsOf(t)) await removeMember(target.client, o.garden ?? target.client, m.projectName, { namespace: ns, name: n.access }, signal);
  }
  await remove(target.client, ServiceAccounts, { namespace: ns, name: n.access }, signal);
  if (t.spec.target.temporaryNamespace) await remove(target.client, Namespaces, { name: ns }, signal);
}

async function cleanHost(t: Terminal, host: ClusterClient, signal: AbortSignal): Promise<void> {
  const n = namesOf(t);
  const ns = t.spec.host.namespace ?? "";
  await remove(host.client, RoleBindings, { namespace: ns, name: n.attach }, signal);
  await remove(host.client, ServiceAccounts, { namespace: ns, name: n.attach }, signal);
  await remove(host.client, Roles, { namespace: ns, name: n.attachRole }, signal);
  await remove(host.client, Pods, { namespace: ns, name: n.pod }, signal);
  await remove(host.client, Secrets, { namespace: ns, name: n.kubeconfigSecret }, signal);
  await remove(host.client, Secrets, { namespace: ns, name: n.tokenSecret }, signal);
  if (t.spec.host.temporaryNamespace) await remove(host.client, Namespaces, { name: ns }, signal);
}

export async function cleanup(
  t: Terminal,
  target: ClusterClient | undefined,
  host: ClusterClient | undefined,
  skipped: (side: "target" | "host") => void,
  signal: AbortSignal,
  o: CleanupOptions = {},
): Promise<string[]> {
  const errors: string[] = [];
  if (!t.spec.identifier || !t.spec.target.namespace || !t.spec.host.namespace) return errors;
  if (target) await cleanTarget(t, target, signal, o).catch((err: unknown) => errors.push(`failed to delete access token ${(err as Error).message}`));
  else skipped("target");
  if (host) await cleanHost(t, host, signal).catch((err: unknown) => errors.push(`failed to clean up host cluster: ${(err as Error).message}`));
  else skipped("host");
  return errors;
}
