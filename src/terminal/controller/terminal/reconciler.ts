// The terminal controller (docs/terminals.md#the-terminal-controller), after upstream's
// TerminalReconciler: host and target clients from the Terminal's credentials; on the target the
// access ServiceAccount and its bindings, on the host the attach ServiceAccount, Role and
// RoleBinding, the kubeconfig and token Secrets and the pod; status and lastOperation on the way.
// Deletion removes everything, target side first, then the finalizer.
import { ANNOTATION_DESCRIPTION, ACCESS_SA_DESCRIPTION, FINALIZER_TERMINAL, type LastOperation, type Terminal, type TerminalRoleBinding, type TerminalStatus } from "../../../apis/dashboard/v1alpha1/types.ts";
import { isAlreadyExists, isNotFound } from "../../../apimachinery/errors.ts";
import { sameCluster, terminalAnnotations, terminalLabels } from "../../../api/dashboard/terminal.ts";
import { Namespaces, RoleBindings, Roles, Secrets } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import type { EventRecorder } from "../../../client/events.ts";
import { addFinalizer, removeFinalizer, unlessNotFound } from "../../../client/helpers.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../controllerruntime/reconcile.ts";
import type { Clock } from "../../../utils/clock.ts";
import { metaTime } from "../../../utils/time.ts";
import { type ClusterClient, type ClusterClientFactory, requestToken } from "../../clients.ts";
import { ClusterRoleBindings, MutatingWebhookConfigurations, Pods, Services, ServiceAccounts, Terminals, ValidatingWebhookConfigurations } from "../../resources.ts";
import { type EnsureOptions, type Stamp, ensure } from "./apply.ts";
import { accessBindings, attachRules, clusterNameOf, kubeconfig, namesOf, terminalPod } from "./objects.ts";
import { cleanup } from "./cleanup.ts";
import { addMember, membershipsOf } from "./memberships.ts";

export interface TerminalReconcilerDeps {
  garden: Client;
  clients: ClusterClientFactory;
  clock: Clock;
  recorder?: EventRecorder;
  /** controllers.terminal.tokenRequestExpirationSeconds (unset: the API server's default). */
  tokenExpirationSeconds?: number;
  /** honourProjectMemberships: make the access ServiceAccount a member of the Terminal's projectMemberships (memberships.ts). */
  honourProjectMemberships?: boolean;
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

export class TerminalReconciler implements Reconciler {
  constructor(private readonly d: TerminalReconcilerDeps) {}

  private async patchStatus(t: Terminal, status: { [K in keyof TerminalStatus]?: TerminalStatus[K] | null }): Promise<void> {
    await unlessNotFound(this.d.garden.patchStatus(Terminals, { namespace: t.metadata.namespace, name: t.metadata.name ?? "" }, { type: "merge", body: { status } }));
  }

  private operation(t: Terminal, state: LastOperation["state"], description: string): LastOperation {
    return { type: t.metadata.deletionTimestamp ? "Delete" : "Reconcile", state, description, lastUpdateTime: metaTime(this.d.clock.nowMs()) };
  }

  async reconcile(req: Request, rc: ReconcileContext): Promise<Result | void> {
    const t = await unlessNotFound(this.d.garden.get(Terminals, req, { signal: rc.signal }));
    if (!t) return;
    if (t.metadata.deletionTimestamp && !t.metadata.finalizers?.includes(FINALIZER_TERMINAL)) return;
    if (t.metadata.deletionTimestamp) await this.processing(t);
    try {
      return await this.handle(t, rc);
    } catch (err) {
      const description = (err as Error).message;
      await this.patchStatus(t, { lastError: { description, lastUpdateTime: metaTime(this.d.clock.nowMs()) }, lastOperation: this.operation(t, "Error", description) });
      throw err;
    }
  }

  private processing(t: Terminal): Promise<void> {
    return this.patchStatus(t, { lastOperation: this.operation(t, "Processing", "Reconciliation of Terminal initialized.") });
  }

  private async connect(t: Terminal, signal: AbortSignal): Promise<{ host?: ClusterClient; target?: ClusterClient; hostErr?: unknown; targetErr?: unknown }> {
    const [host, target] = await Promise.allSettled([this.d.clients(t.spec.host.credentials, signal), this.d.clients(t.spec.target.credentials, signal)]);
    return {
      host: host.status === "fulfilled" ? host.value : undefined,
      hostErr: host.status === "rejected" ? host.reason : undefined,
      target: target.status === "fulfilled" ? target.value : undefined,
      targetErr: target.status === "rejected" ? target.reason : undefined,
    };
  }

  private async handle(t: Terminal, rc: ReconcileContext): Promise<Result | void> {
    // The Processing mark, the clusters' clients and the safety net do not depend on each other.
    const [c, configured] = await Promise.all([
      this.connect(t, rc.signal),
      t.metadata.deletionTimestamp ? undefined : this.webhooksConfigured(t).then(() => undefined, (err: unknown) => err),
      t.metadata.deletionTimestamp ? undefined : this.processing(t),
    ]);
    try {
      if (t.metadata.deletionTimestamp) return await this.delete(t, c, rc);
      for (const [side, err] of [["Host", c.hostErr], ["Target", c.targetErr]] as const) {
        if (err === undefined) continue;
        if (!isNotFound(err)) throw err;
        this.event(t, "Warning", "ReconcileError", `${side} cluster credentials no longer available due to NotFound, deleting terminal: ${(err as Error).message}`);
        await unlessNotFound(this.d.garden.delete(Terminals, { namespace: t.metadata.namespace, name: t.metadata.name ?? "" }));
        return;
      }
      if (configured !== undefined) {
        this.event(t, "Warning", "ReconcileError", `Failed ensuring admission webhook is configured: ${(configured as Error).message}`);
        throw configured;
      }
      await addFinalizer(this.d.garden, Terminals, t, FINALIZER_TERMINAL, { signal: rc.signal });
      const labels = terminalLabels(t);
      if (typeof labels === "string") {
        this.event(t, "Warning", "ReconcileError", `Transient problem - ${labels}. Skipping...`);
        await this.patchStatus(t, { lastError: { description: labels, lastUpdateTime: metaTime(this.d.clock.nowMs()) }, lastOperation: this.operation(t, "Error", labels) });
        return;
      }
      this.event(t, "Normal", "Reconciling", "Reconciling Terminal state");
      const names = await this.apply(t, { labels, annotations: terminalAnnotations(t) }, c.host!, c.target!, rc.signal);
      this.event(t, "Normal", "Reconciled", "Reconciled Terminal state");
      await this.patchStatus(t, { attachServiceAccountName: names.attach, podName: names.pod, lastError: null, lastOperation: this.operation(t, "Succeeded", "Terminal has been successfully reconciled.") });
    } catch (err) {
      // A kept credential may be what failed: the retry asks for new ones.
      c.host?.invalidate?.();
      c.target?.invalidate?.();
      throw err;
    } finally {
      c.host?.close();
      c.target?.close();
    }
  }

  private event(t: Terminal, type: "Normal" | "Warning", reason: string, message: string): void {
    this.d.recorder?.event(t, type, reason, message);
  }

  /** Upstream's safety net: a Terminal the webhooks did not admit is deleted. */
  private async webhooksConfigured(t: Terminal): Promise<void> {
    const selector = "app.kubernetes.io/name=terminal,app.kubernetes.io/component=admission-controller";
    const key = { namespace: t.metadata.namespace, name: t.metadata.name ?? "" };
    const kinds = [["mutating", MutatingWebhookConfigurations], ["validating", ValidatingWebhookConfigurations]] as const;
    const lists = await Promise.all(kinds.map(([, type]) => this.d.garden.list(type, { labelSelector: selector })));
    for (const [i, [kind]] of kinds.entries()) {
      const items = lists[i]!.items;
      let problem: string | undefined;
      if (items.length !== 1) problem = `expected 1 ${kind} webhook configuration but found ${items.length}`;
      else if (Date.parse(items[0]!.metadata.creationTimestamp ?? "") > Date.parse(t.metadata.creationTimestamp ?? "")) {
        problem = `terminal ${t.metadata.name} has been created before ${kind} webhook was configured. Deleting resource`;
      }
      if (problem) {
        await unlessNotFound(this.d.garden.delete(Terminals, key));
        throw new Error(problem);
      }
    }
  }

  /**
   * The host's and the target's objects, each side's independent ones at once, then the pod. A Terminal
   * without a pod yet is new: its objects are created without reading first.
   */
  private async apply(t: Terminal, stamp: Stamp, host: ClusterClient, target: ClusterClient, signal: AbortSignal): Promise<ReturnType<typeof namesOf>> {
    const n = namesOf(t);
    const hostNs = t.spec.host.namespace ?? "";
    const targetNs = t.spec.target.namespace ?? "";
    const o = { signal, createFirst: !t.status?.podName };
    const projected = sameCluster(t) && hostNs === targetNs;
    // Host: temporary namespace; then the attach ServiceAccount, its Role for this one pod and the binding, the kubeconfig to the target.
    const hostNamespace = t.spec.host.temporaryNamespace ? ensure(host.client, Namespaces, { name: hostNs }, stamp, () => undefined, o) : Promise.resolve();
    const hostSide = async (): Promise<void> => {
      const [server] = await Promise.all([this.serverOf(t, host, target), hostNamespace]);
      const config = kubeconfig(clusterNameOf(t), t.spec.target.kubeconfigContextNamespace, server, t.spec.target.apiServer?.caData ?? undefined);
      await Promise.all([
        ensure(host.client, ServiceAccounts, { namespace: hostNs, name: n.attach }, stamp, () => undefined, o),
        ensure(host.client, Roles, { namespace: hostNs, name: n.attachRole }, stamp, (x) => void (x.rules = attachRules(n.pod)), o),
        ensure(host.client, RoleBindings, { namespace: hostNs, name: n.attach }, stamp, (x) => {
          x.subjects = [{ kind: "ServiceAccount", namespace: hostNs, name: n.attach }];
          x.roleRef = { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: n.attachRole };
        }, o),
        ensure(host.client, Secrets, { namespace: hostNs, name: n.kubeconfigSecret }, stamp, (x) => void (x.data = { kubeconfig: b64(config) }), o),
      ]);
    };
    // Target: temporary namespace, the access ServiceAccount, then its bindings, project memberships and
    // (unless projected) its token, which goes into the host's token Secret once the host's namespace is there.
    const targetSide = async (): Promise<void> => {
      if (t.spec.target.temporaryNamespace) await ensure(target.client, Namespaces, { name: targetNs }, stamp, () => undefined, o);
      const accessStamp = { labels: stamp.labels, annotations: { ...stamp.annotations, [ANNOTATION_DESCRIPTION]: ACCESS_SA_DESCRIPTION } };
      await ensure(target.client, ServiceAccounts, { namespace: targetNs, name: n.access }, accessStamp, () => undefined, o);
      const tokenSecret = async (): Promise<void> => {
        const [token] = await Promise.all([requestToken(target.client, targetNs, n.access, this.d.tokenExpirationSeconds, signal), hostNamespace]);
        await ensure(host.client, Secrets, { namespace: hostNs, name: n.tokenSecret }, stamp, (x) => void (x.data = { token: b64(token) }), o);
      };
      await Promise.all([
        projected ? undefined : tokenSecret(),
        ...accessBindings(t).map((rb) => this.bind(target, targetNs, n.access, rb, stamp, o)),
        ...(this.d.honourProjectMemberships ? membershipsOf(t).map((m) => addMember(target.client, m.projectName, { namespace: targetNs, name: n.access }, m.roles, signal)) : []),
      ]);
    };
    // A failure of one part does not leave the others' promises unobserved.
    const parts = await Promise.allSettled([hostNamespace, hostSide(), targetSide()]);
    const failed = parts.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
    const pod = terminalPod(t, { ...stamp, ...(projected ? { projectedTokenOf: n.access } : {}) }) as never;
    if (o.createFirst) {
      await host.client.create(Pods, pod, { signal }).catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
    } else {
      const existing = await unlessNotFound(host.client.get(Pods, { namespace: hostNs, name: n.pod }, { signal }));
      if (!existing) await host.client.create(Pods, pod, { signal });
    }
    return n;
  }

  private async bind(target: ClusterClient, targetNs: string, access: string, rb: TerminalRoleBinding, stamp: Stamp, o: EnsureOptions): Promise<void> {
    const name = `${access}${rb.nameSuffix}`;
    const fill = (x: Record<string, unknown>) => {
      x.subjects = [{ kind: "ServiceAccount", namespace: targetNs, name: access }];
      x.roleRef = rb.roleRef;
    };
    if (rb.bindingKind === "ClusterRoleBinding") await ensure(target.client, ClusterRoleBindings, { name }, stamp, fill, o);
    else if (rb.bindingKind === "RoleBinding") await ensure(target.client, RoleBindings, { namespace: targetNs, name }, stamp, fill, o);
    else throw new Error(`unknown BindingKind ${rb.bindingKind}`);
  }

  private async serverOf(t: Terminal, host: ClusterClient, target: ClusterClient): Promise<string> {
    const ref = t.spec.target.apiServer?.serviceRef ?? t.spec.target.apiServerServiceRef;
    if (ref?.name) {
      const namespace = ref.namespace || t.spec.host.namespace || "";
      const svc = await unlessNotFound(host.client.get(Services, { namespace, name: ref.name }));
      if (!svc) throw new Error(`kube-apiserver service ${namespace}/${ref.name} not found`);
      return `https://${ref.name}.${namespace}.svc`;
    }
    return t.spec.target.apiServer?.server || target.server;
  }

  private async delete(t: Terminal, c: { host?: ClusterClient; target?: ClusterClient; hostErr?: unknown; targetErr?: unknown }, rc: ReconcileContext): Promise<void> {
    for (const [side, err] of [["Host", c.hostErr], ["Target", c.targetErr]] as const) {
      if (err === undefined) continue;
      if (!isNotFound(err)) throw err;
      this.event(t, "Warning", "Deleting", `${side} cluster credentials no longer available due to NotFound during deletion, continuing cleanup: ${(err as Error).message}`);
    }
    this.event(t, "Normal", "Deleting", "Processing external dependency deletion");
    const skipped = (side: string) => this.event(t, "Warning", "Reconciling", `Could not clean up resources in ${side} cluster for terminal identifier: ${t.spec.identifier}`);
    const errors = await cleanup(t, c.target, c.host, skipped, rc.signal, { honourProjectMemberships: this.d.honourProjectMemberships, garden: this.d.garden });
    if (errors.length) {
      for (const e of errors) this.event(t, "Warning", "DeleteError", `Failed deleting external dependencies: ${e}`);
      throw new Error(errors.join("\n"));
    }
    this.event(t, "Normal", "Deleted", "Deleted external dependencies");
    await removeFinalizer(this.d.garden, Terminals, t, FINALIZER_TERMINAL, { signal: rc.signal });
  }
}


