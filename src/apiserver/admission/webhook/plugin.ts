// The webhook admission plugin (docs/admission-webhooks.md): last in the chain, so its mutating
// phase runs after every built-in mutating plugin and before defaulting and schema validation, and
// its validating phase after the built-in validating plugins. Mutating webhooks run one after the
// other (configurations by name, webhooks in order), each seeing the last one's patch; validating
// webhooks run in parallel. Denials and failed calls give the messages upstream gives.
import { randomUUID } from "node:crypto";
import type { AdmissionRequest, AdmissionResponse } from "../../../apis/admission/v1/types.ts";
import type { MutatingWebhook, Webhook } from "../../../apis/admissionregistration/v1/types.ts";
import type { KubeObject, Status } from "../../../apis/meta/v1/types.ts";
import { StatusError, newInternalError } from "../../../apimachinery/errors.ts";
import type { Dialer } from "../../egressselector/egressselector.ts";
import type { InternalClient } from "../../registry/client.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../types.ts";
import { callWebhook } from "./call.ts";
import type { ConfiguredWebhook, WebhookConfigurations } from "./configs.ts";
import { isExempt, namespaceSelectorMatches, namespaceToLookUp, objectSelectorMatches, rulesMatch } from "./matching.ts";
import { applyWebhookPatch } from "./patch.ts";
import { resolveTarget, type ServiceResolver } from "./resolve.ts";
import { NAMESPACES } from "../../registry/core/resources.ts";

/** Longest warning kept, and how many one webhook may add (the rest are dropped). */
const MAX_WARNING_CHARS = 1024;
const MAX_WARNINGS = 16;
/** Longest denial message passed on. */
const MAX_MESSAGE_CHARS = 4096;

type PhaseType = "admit" | "validating";

export interface WebhookAdmissionOptions {
  configurations: WebhookConfigurations;
  /** Calls that failed under failurePolicy Ignore (logged and counted by the caller); type "admit" or "validating" as upstream's metric. */
  onIgnoredFailure?: (webhook: string, type: "admit" | "validating", err: Error) => void;
  /** Where a Service reference is called; default: the Service's EndpointSlices. */
  resolveService?: ServiceResolver;
  /** The egress selector's `cluster` dialer (the shoot's VPN): webhooks given by Service are called through it, those given by URL directly. */
  dial?: Dialer;
}

export class WebhookAdmission implements AdmissionPlugin {
  readonly name = "WebhookAdmission";
  /** Calls that failed under Ignore, for tests and metrics. */
  ignoredFailures = 0;

  constructor(private readonly opts: WebhookAdmissionOptions) {}

  admit(attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void {
    if (this.opts.configurations.mutating.webhooks.length === 0 || isExempt(attrs)) return;
    return this.admitMatching(attrs, client);
  }

  private async admitMatching(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    const hooks = await this.matching(this.opts.configurations.mutating.webhooks, attrs, client, "admit");
    for (const h of hooks) {
      const resp = await this.call(h, attrs, client, "admit");
      if (!resp?.patch || !attrs.object) continue;
      try {
        const patched = applyWebhookPatch(attrs, resp);
        replaceInPlace(attrs.object!, patched);
      } catch (err) {
        if (!this.ignore(h, "admit", err as Error)) throw failedCalling(h.name, err as Error);
      }
    }
  }

  validate(attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void {
    if (this.opts.configurations.validating.webhooks.length === 0 || isExempt(attrs)) return;
    return this.validateMatching(attrs, client);
  }

  private async validateMatching(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    const hooks = await this.matching(this.opts.configurations.validating.webhooks, attrs, client, "validating");
    const results = await Promise.allSettled(hooks.map((h) => this.call(h, attrs, client, "validating")));
    for (const r of results) if (r.status === "rejected") throw r.reason;
  }

  /** The webhooks this request goes to; a namespace lookup that fails counts as that webhook's failed call. */
  private async matching<W extends Webhook>(all: readonly ConfiguredWebhook<W>[], attrs: AdmissionAttributes, client: InternalClient, type: PhaseType): Promise<W[]> {
    const out: W[] = [];
    const labels = new Map<string, Record<string, string> | undefined>();
    for (const { webhook: h } of all) {
      if (!rulesMatch(h, attrs)) continue;
      try {
        if (!objectSelectorMatches(h, attrs)) continue;
        const ns = namespaceToLookUp(h, attrs);
        if (ns !== undefined && !labels.has(ns)) {
          const nsObj = await client.get(NAMESPACES, undefined, ns);
          if (!nsObj) throw new Error(`namespace "${ns}" not found`);
          labels.set(ns, nsObj.metadata.labels ?? {});
        }
        if (!namespaceSelectorMatches(h, attrs, ns === undefined ? undefined : labels.get(ns))) continue;
      } catch (err) {
        if (this.ignore(h, type, err as Error)) continue;
        throw failedCalling(h.name, err as Error);
      }
      out.push(h);
    }
    return out;
  }

  /** Calls one webhook: undefined when the call failed and the failure policy ignores it; throws on denial or a failure that counts. */
  private async call(h: Webhook | MutatingWebhook, attrs: AdmissionAttributes, client: InternalClient, type: PhaseType): Promise<AdmissionResponse | undefined> {
    let resp: AdmissionResponse;
    try {
      const target = await resolveTarget(h.clientConfig, client, this.opts.resolveService);
      const ca = h.clientConfig.caBundle ? Buffer.from(h.clientConfig.caBundle, "base64").toString("utf8") : undefined;
      const dial = h.clientConfig.url === undefined ? this.opts.dial : undefined;
      resp = await callWebhook({ target, ca, timeoutMs: (h.timeoutSeconds ?? 10) * 1000, ...(dial ? { dial } : {}) }, reviewRequest(attrs));
    } catch (err) {
      if (this.ignore(h, type, err as Error)) return undefined;
      throw failedCalling(h.name, err as Error);
    }
    for (const w of (Array.isArray(resp.warnings) ? resp.warnings : []).slice(0, MAX_WARNINGS)) {
      if (typeof w === "string" && w) attrs.warnings?.push(w.slice(0, MAX_WARNING_CHARS));
    }
    if (!resp.allowed) throw denied(h.name, resp.status);
    return resp;
  }

  private ignore(h: Webhook, type: PhaseType, err: Error): boolean {
    if (h.failurePolicy !== "Ignore") return false;
    this.ignoredFailures++;
    this.opts.onIgnoredFailure?.(h.name, type, err);
    return true;
  }
}

/** 500 `Internal error occurred: failed calling webhook "<name>": <cause>`. */
export function failedCalling(name: string, err: Error): StatusError {
  return newInternalError(new Error(`failed calling webhook "${name}": ${err.message}`));
}

/** The webhook's status, its code at least 400, message `admission webhook "<name>" denied the request: <message>`. */
export function denied(name: string, status: Partial<Status> | undefined): StatusError {
  const s = status && typeof status === "object" ? status : {};
  const code = typeof s.code === "number" && s.code >= 400 && s.code < 600 ? s.code : 400;
  const by = `admission webhook "${name}" denied the request`;
  const text = typeof s.message === "string" && s.message ? s.message : typeof s.reason === "string" && s.reason ? s.reason : "";
  const message = text ? `${by}: ${text.slice(0, MAX_MESSAGE_CHARS)}` : `${by} without explanation`;
  const reason = typeof s.reason === "string" && s.reason.length <= 64 ? (s.reason as StatusError["reason"]) : ("" as StatusError["reason"]);
  return new StatusError(code, reason, message);
}

export function reviewRequest(attrs: AdmissionAttributes): AdmissionRequest {
  const def = attrs.resource;
  const kind = { group: def.group, version: def.version, kind: def.kind };
  const resource = { group: def.group, version: def.version, resource: def.plural };
  const req: AdmissionRequest = {
    uid: randomUUID(),
    kind,
    resource,
    requestKind: kind,
    requestResource: resource,
    name: attrs.name,
    operation: attrs.operation,
    userInfo: { username: attrs.user.username, groups: [...attrs.user.groups] },
    object: attrs.operation === "DELETE" ? null : (attrs.object ?? null),
    oldObject: attrs.oldObject ?? null,
    dryRun: attrs.dryRun,
    options: null,
  };
  if (attrs.namespace) req.namespace = attrs.namespace;
  if (attrs.subresource) {
    req.subResource = attrs.subresource;
    req.requestSubResource = attrs.subresource;
  }
  if (attrs.user.uid) req.userInfo.uid = attrs.user.uid;
  if (attrs.user.extra) req.userInfo.extra = attrs.user.extra;
  return req;
}

function replaceInPlace(target: KubeObject, source: KubeObject): void {
  for (const k of Object.keys(target)) delete (target as Record<string, unknown>)[k];
  Object.assign(target, source);
}
