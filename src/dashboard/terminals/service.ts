// The methods of `POST /api/terminals` (docs/dashboard.md#terminals), upstream's create, fetch, list,
// remove, heartbeat and config. Every Kubernetes call is made with the user's own bearer token, so the
// garden's admission webhooks see the real user; the answers' messages reach the browser as they are.
import { createHash, randomBytes } from "node:crypto";
import type { Terminal } from "../../apis/dashboard/v1alpha1/types.ts";
import { ANNOTATION_CREATED_BY, ANNOTATION_OPERATION, API_VERSION, KIND_TERMINAL, OPERATION_KEEPALIVE } from "../../apis/dashboard/v1alpha1/types.ts";
import type { Shoot } from "../../apis/gardencore/v1beta1/types.ts";
import { StatusError, unlessNotFound } from "../../apimachinery/errors.ts";
import { Pods, ServiceAccounts } from "../../client/builtins.ts";
import type { Client } from "../../client/client.ts";
import { Shoots, Terminals } from "../../client/garden.ts";
import { resourcePath } from "../../client/resource.ts";
import type { Clock } from "../../utils/clock.ts";
import type { TerminalConfig } from "./config.ts";
import { type HostResolver, clientFor } from "./hosts.ts";
import { type CreateParams, WEBTERMINAL_SA, projectOf, terminalSpec } from "./spec.ts";
import { waitFor } from "./wait.ts";
import { ensureWebterminalMember } from "./webterminal.ts";


export const LABEL_CREATED_BY_HASH = "dashboard.gardener.cloud/created-by-hash";
export const LABEL_IDENTIFIER_HASH = "dashboard.gardener.cloud/identifier-hash";
export const ANNOTATION_IDENTIFIER = "dashboard.gardener.cloud/identifier";
export const ANNOTATION_PREFERRED_HOST = "dashboard.gardener.cloud/preferredHost";

/** The user as the garden authenticated the request's token. */
export interface User {
  name: string;
  token: string;
  isAdmin: boolean;
}

/** Upstream's label hash: npm object-hash's default for a string, hex SHA-1 of `string:<length>:<value>` (40 characters). */
export const labelHash = (s: string): string => createHash("sha1").update(`string:${s.length}:${s}`).digest("hex");
const hash = labelHash;
const bad = (message: string) => new StatusError(422, "Invalid", message);

export function creator(t: Terminal): string | undefined {
  return t.metadata.annotations?.[ANNOTATION_CREATED_BY];
}

export function ready(t: Terminal): boolean {
  return Boolean(t.status?.podName && t.status.attachServiceAccountName && t.status.lastOperation?.state === "Succeeded" && t.status.lastOperation.type === "Reconcile");
}

function summary(t: Terminal) {
  return { metadata: { name: t.metadata.name, namespace: t.metadata.namespace, identifier: t.metadata.annotations?.[ANNOTATION_IDENTIFIER] } };
}

/** The webhook's denial without its `admission webhook "…" denied the request: ` prefix. */
function webhookMessage(err: StatusError): string {
  return err.message.replace(/^admission webhook "[^"]*" denied the request: /, "");
}

/** What the browser's attach needs of a ready Terminal's host: its API server and an attach token. */
export interface AttachSession {
  url: string;
  caPem?: string;
  token: string;
}

/** The attach session's token lives this long (TokenRequest's minimum); a prepared one is used until a minute before. */
export const ATTACH_TOKEN_SECONDS = 600;
const MAX_PREPARED = 1024;

export class TerminalService {
  /** Attach sessions `fetch` prepared, by user and Terminal uid, so the attach that follows does not wait for a token. */
  private readonly prepared = new Map<string, { session: Promise<AttachSession>; untilMs: number }>();

  constructor(private readonly cfg: TerminalConfig, private readonly hosts: HostResolver, private readonly clock: Clock) {}

  private async as<R>(user: User, fn: (c: Client) => Promise<R>): Promise<R> {
    const c = clientFor(this.cfg.garden, { token: user.token });
    try {
      return await fn(c);
    } finally {
      c.close();
    }
  }

  private keepalive(c: Client, t: Terminal): Promise<Terminal> {
    return c.patch(Terminals, { namespace: t.metadata.namespace ?? "", name: t.metadata.name ?? "" }, { type: "merge", body: { metadata: { annotations: { [ANNOTATION_OPERATION]: OPERATION_KEEPALIVE } } } });
  }

  private async own(c: Client, user: User, p: { name?: string; namespace?: string }, message: string): Promise<Terminal> {
    if (!p.name || !p.namespace) throw bad("name and namespace are required");
    const t = await c.get(Terminals, { namespace: p.namespace, name: p.name });
    if (creator(t) !== user.name) throw new StatusError(403, "Forbidden", `${message} ${p.name}`);
    return t;
  }

  async list(user: User, p: { coordinate?: { namespace?: string } }, identifier?: string): Promise<ReturnType<typeof summary>[]> {
    const namespace = p.coordinate?.namespace;
    if (!namespace) throw bad("coordinate.namespace is required");
    const selector = [`${LABEL_CREATED_BY_HASH}=${hash(user.name)}`, ...(identifier ? [`${LABEL_IDENTIFIER_HASH}=${hash(identifier)}`] : [])].join(",");
    const list = await this.as(user, (c) => c.list(Terminals, { namespace, labelSelector: selector }));
    return list.items.filter((t) => !t.metadata.deletionTimestamp && creator(t) === user.name).map(summary);
  }

  async create(user: User, p: CreateParams) {
    const target = p.coordinate?.target;
    if (!p.coordinate?.namespace || !["garden", "shoot", "cp"].includes(target)) throw bad("coordinate.namespace and coordinate.target (garden, shoot or cp) are required");
    if (typeof p.identifier !== "string" || !p.identifier || p.identifier.length > 128) throw bad("identifier is required (at most 128 characters)");
    if (!user.isAdmin && target === "cp") throw new StatusError(403, "Forbidden", "Terminal usage is not allowed");
    const { namespace } = p.coordinate;
    return this.as(user, async (c) => {
      const [found, shoot] = await Promise.all([
        this.list(user, p, p.identifier).then((l) => l[0]),
        target === "garden" && !p.coordinate.name ? undefined : c.get(Shoots, { namespace, name: p.coordinate.name ?? "" }).catch((err: unknown) => (target === "garden" ? undefined : Promise.reject(err))) as Promise<Shoot | undefined>,
      ]);
      if (shoot?.spec?.hibernation?.enabled) throw bad("Hosting cluster or target cluster is hibernated");
      let t: Terminal;
      if (found) {
        t = await c.get(Terminals, { namespace, name: found.metadata.name ?? "" });
        void this.keepalive(c, t).catch(() => undefined);
      } else {
        const preferredHost = p.preferredHost ?? (user.isAdmin ? "seed" : "shoot");
        const image = p.container?.image || (user.isAdmin ? this.cfg.containerOperator.image : this.cfg.container.image);
        const memberGarden = target === "garden" && !user.isAdmin;
        const [spec] = await Promise.all([
          terminalSpec(c, this.cfg, p, user.isAdmin, shoot, preferredHost, image),
          memberGarden ? ensureWebterminalMember(c, projectOf(namespace), { namespace, name: WEBTERMINAL_SA }, this.clock) : undefined,
        ]);
        const obj: Terminal = {
          apiVersion: API_VERSION,
          kind: KIND_TERMINAL,
          metadata: {
            name: `term-${target}-${randomBytes(4).toString("hex")}`,
            namespace,
            labels: { [LABEL_CREATED_BY_HASH]: hash(user.name), [LABEL_IDENTIFIER_HASH]: hash(p.identifier) },
            annotations: { [ANNOTATION_IDENTIFIER]: p.identifier, [ANNOTATION_PREFERRED_HOST]: preferredHost },
          },
          spec: spec as Terminal["spec"],
        };
        t = await c.create(Terminals, obj).catch((err: unknown) => {
          if (err instanceof StatusError && /terminal limit reached/.test(err.message)) throw new StatusError(429, "TooManyRequests", webhookMessage(err));
          throw err;
        });
        if (memberGarden) await this.referenceServiceAccount(c, t);
      }
      return { ...summary(t), hostCluster: { namespace: t.spec.host.namespace } };
    });
  }

  /** Ties the project's dashboard-webterminal ServiceAccount to the Terminal (finalizer, label, owner). */
  private async referenceServiceAccount(c: Client, t: Terminal): Promise<void> {
    const key = { namespace: t.metadata.namespace ?? "", name: WEBTERMINAL_SA };
    const sa = await c.get(ServiceAccounts, key);
    const owners = sa.metadata.ownerReferences ?? [];
    const finalizers = sa.metadata.finalizers ?? [];
    const body = {
      metadata: {
        labels: { "reference.dashboard.gardener.cloud/terminal": "true" },
        ...(finalizers.includes("gardener.cloud/terminal") ? {} : { finalizers: [...finalizers, "gardener.cloud/terminal"] }),
        ...(owners.some((o) => o.uid === t.metadata.uid) ? {} : { ownerReferences: [...owners, { apiVersion: API_VERSION, kind: KIND_TERMINAL, name: t.metadata.name ?? "", uid: t.metadata.uid ?? "", blockOwnerDeletion: false }] }),
      },
    };
    await c.patch(ServiceAccounts, key, { type: "merge", body });
  }

  async remove(user: User, p: { name?: string; namespace?: string }) {
    await this.as(user, async (c) => {
      const t = await unlessNotFound(this.own(c, user, p, "You are not allowed to delete terminal with name"));
      if (t) await unlessNotFound(c.delete(Terminals, { namespace: p.namespace ?? "", name: p.name ?? "" }));
    });
    return { name: p.name, namespace: p.namespace };
  }

  async heartbeat(user: User, p: { name?: string; namespace?: string }) {
    await this.as(user, async (c) => {
      const t = await this.own(c, user, p, "You are not allowed to keep terminal session alive with name");
      await this.keepalive(c, t).catch(() => {
        throw new StatusError(500, "InternalError", "Could not keepalive terminal");
      });
    });
    return { ok: true };
  }

  config(user: User) {
    return { container: { image: user.isAdmin ? this.cfg.containerOperator.image : this.cfg.container.image } };
  }

  /** Waits until the Terminal is ready and its pod runs, within readyTimeoutSeconds; answers a session. */
  async fetch(user: User, p: { name?: string; namespace?: string }) {
    if (!p.name || !p.namespace) throw bad("name and namespace are required");
    const key = { namespace: p.namespace, name: p.name };
    const seconds = this.cfg.readyTimeoutSeconds;
    const deadline = (reason: string) => new StatusError(504, "Timeout", `Terminal ${key.name} did not become ready within ${seconds}s${reason ? `: ${reason}` : ""}`);
    const atMs = this.clock.nowMs() + seconds * 1000;
    const t = await this.as(user, (c) => waitFor<Terminal, Terminal>(c, Terminals, key, (type, obj) => {
      if (type === "DELETED") return { fail: new StatusError(500, "InternalError", "Terminal resource has been deleted") };
      if (creator(obj) !== user.name) return { fail: new StatusError(403, "Forbidden", "You are not the user who created the terminal resource") };
      return ready(obj) ? { done: obj } : { reason: obj.status?.lastError?.description ?? "" };
    }, { atMs, clock: this.clock, timeout: deadline }));
    // The attach session the browser asks for next is made while the pod starts.
    this.prepareAttach(user, t);
    const host = await this.attachSession(user, t, this.cfg.serviceAccountTokenExpiration);
    const { token } = host;
    const hostNs = t.spec.host.namespace ?? "";
    const podName = t.status?.podName ?? "";
    const attach = clientFor({ url: host.url, caPem: host.caPem }, { token });
    let nodeName: string | undefined;
    try {
      await waitFor(attach, Pods, { namespace: hostNs, name: podName }, (type, pod) => {
        if (type === "DELETED") return { fail: new StatusError(500, "InternalError", "Pod deleted") };
        const s = pod.status ?? {};
        if (s.phase === "Failed" || s.phase === "Succeeded") return { fail: new StatusError(500, "InternalError", `Pod is in phase ${s.phase}`) };
        const c = s.containerStatuses?.find((x) => x.name === "terminal");
        nodeName = (pod as { spec?: { nodeName?: string } }).spec?.nodeName;
        if (s.phase === "Running" && c?.ready) return { done: true };
        const w = c?.state?.waiting;
        const unscheduled = s.conditions?.find((x) => x.type === "PodScheduled" && x.status === "False")?.message;
        return { reason: w?.reason ? `${w.reason}: ${w.message ?? ""}` : (unscheduled ?? "") };
      }, { atMs, clock: this.clock, timeout: deadline });
    } finally {
      attach.close();
    }
    const pod = t.spec.host.pod;
    return {
      ...summary(t),
      hostCluster: {
        token,
        namespace: hostNs,
        pod: { name: podName, container: "terminal", nodeName, image: pod.container?.image, privileged: pod.container?.privileged ?? false, hostPID: pod.hostPID ?? false, hostNetwork: pod.hostNetwork ?? false },
      },
    };
  }

  private preparedKey(user: User, t: Terminal): string {
    return `${user.name}\0${t.metadata.uid ?? ""}`;
  }

  /** Starts making the attach session of a ready Terminal of the user (fetch calls it while the pod starts). */
  prepareAttach(user: User, t: Terminal): void {
    const now = this.clock.nowMs();
    for (const [k, v] of this.prepared) if (v.untilMs <= now) this.prepared.delete(k);
    if (this.prepared.size >= MAX_PREPARED) this.prepared.delete(this.prepared.keys().next().value as string);
    const session = this.attachSession(user, t, ATTACH_TOKEN_SECONDS);
    session.catch(() => this.prepared.delete(this.preparedKey(user, t)));
    this.prepared.set(this.preparedKey(user, t), { session, untilMs: now + (ATTACH_TOKEN_SECONDS - 60) * 1000 });
  }

  /**
   * The attach session of a ready Terminal the caller has checked is the user's: the one `fetch` prepared
   * for this user and Terminal (uid) while it holds, else a new one.
   */
  async attachSessionFor(user: User, t: Terminal): Promise<AttachSession> {
    const key = this.preparedKey(user, t);
    const hit = this.prepared.get(key);
    if (hit && hit.untilMs > this.clock.nowMs()) {
      const session = await hit.session.catch(() => undefined);
      if (session) return session;
    }
    this.prepared.delete(key);
    return this.attachSession(user, t, ATTACH_TOKEN_SECONDS);
  }

  /**
   * The ready Terminal's host API server (its stored host credentials, a `shootRef` or a seed's
   * `secretRef`, resolved as the user) and a token of its attach ServiceAccount, requested there.
   */
  async attachSession(user: User, t: Terminal, expirationSeconds: number): Promise<AttachSession> {
    const host = await this.hosts(user, t.spec.host.credentials);
    try {
      const out = await host.client.transport.request<{ status?: { token?: string } }>({
        method: "POST",
        path: resourcePath(ServiceAccounts, t.spec.host.namespace ?? "", t.status?.attachServiceAccountName ?? "", "token"),
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds } },
      });
      const token = out.status?.token;
      if (!token) throw new StatusError(503, "ServiceUnavailable", "the host cluster answered no token for the attach ServiceAccount");
      return { url: host.url, caPem: host.caPem, token };
    } finally {
      host.close();
    }
  }
}
