// Audit events of one request (audit.k8s.io/v1 Event), as kube-apiserver's audit filter makes
// them: the policy is evaluated for the authenticated user once authentication succeeded; stage
// RequestReceived then, ResponseStarted when a watch's headers go out, ResponseComplete when the
// response ended, or Panic when the request failed unexpectedly. Request and response bodies are
// captured only when the level needs them and only up to MAX_CAPTURE bytes. Events go to a
// bounded, asynchronous sink (log.ts): nothing here waits for the disk.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isIP } from "node:net";
import { isStatusError, toStatusError } from "../../apimachinery/errors.ts";
import type { UserInfo } from "../authentication/types.ts";
import type { RequestInfo } from "../endpoints/requestinfo.ts";
import { connectionOf } from "../endpoints/connection.ts";
import type { AuditSink } from "./log.ts";
import { atLeast, type Decision, evaluate, type Level, type Policy, type Stage } from "./policy.ts";
import { microTime } from "../../utils/time.ts";

/** Bodies larger than this are left out of events (annotated audit.k8s.io/truncated). */
export const MAX_CAPTURE = 256 * 1024;
const MAX_HEADER_IPS = 16;
const MAX_USER_AGENT = 1024;

export interface AuditUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AuditEvent {
  kind: "Event";
  apiVersion: "audit.k8s.io/v1";
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: Record<string, string>;
  responseStatus?: Record<string, unknown>;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

export interface AuditRequest {
  req: IncomingMessage;
  res: ServerResponse;
  id: string;
  info: RequestInfo;
  /** The authenticated user (before impersonation). */
  user: UserInfo;
  /** When the request arrived (ms since the epoch, fractional). */
  receivedAt: number;
}

const nowMs = () => performance.timeOrigin + performance.now();

function auditUser(u: UserInfo): AuditUser {
  const out: AuditUser = { username: u.username };
  if (u.uid) out.uid = u.uid;
  if (u.groups.length) out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length) out.extra = u.extra;
  return out;
}

/** kube's utilnet.SourceIPs: X-Forwarded-For, then X-Real-Ip, then the connection's address. */
export function sourceIPs(req: IncomingMessage): string[] {
  const ips: string[] = [];
  const add = (ip: string | undefined) => {
    const v = ip?.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "");
    if (v && isIP(v) !== 0 && !ips.includes(v)) ips.push(v);
  };
  const xff = req.headers["x-forwarded-for"];
  for (const ip of (Array.isArray(xff) ? xff.join(",") : (xff ?? "")).split(",").slice(0, MAX_HEADER_IPS)) add(ip);
  const real = req.headers["x-real-ip"];
  add(Array.isArray(real) ? real[0] : real);
  add(connectionOf(req).remoteAddress);
  return ips;
}

function parseJson(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString("utf8"));
  } catch {
    return undefined;
  }
}

function withoutManagedFields(obj: unknown): unknown {
  if (!obj || typeof obj !== "object") return obj;
  const o = obj as { metadata?: Record<string, unknown>; items?: unknown[] };
  const out: Record<string, unknown> = { ...o };
  if (o.metadata && "managedFields" in o.metadata) {
    const { managedFields: _, ...meta } = o.metadata;
    out.metadata = meta;
  }
  if (Array.isArray(o.items)) out.items = o.items.map(withoutManagedFields);
  return out;
}

/** Collects up to MAX_CAPTURE bytes; past it, the capture is marked truncated and kept empty. */
class Capture {
  chunks: Buffer[] = [];
  size = 0;
  truncated = false;
  add(chunk: unknown): void {
    if (this.truncated || chunk === undefined || chunk === null || typeof chunk === "function") return;
    const buf = Buffer.isBuffer(chunk) ? chunk : typeof chunk === "string" ? Buffer.from(chunk) : chunk instanceof Uint8Array ? Buffer.from(chunk) : undefined;
    if (!buf) return;
    this.size += buf.length;
    if (this.size > MAX_CAPTURE) {
      this.truncated = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(buf);
  }
  object(): unknown {
    return this.chunks.length ? parseJson(Buffer.concat(this.chunks)) : undefined;
  }
}

export class RequestAudit {
  private readonly event: AuditEvent;
  private readonly decision: Decision;
  private readonly request = new Capture();
  private readonly response = new Capture();
  private failure: { status: Record<string, unknown>; panic: boolean } | undefined;
  private done = false;

  constructor(
    private readonly sink: AuditSink,
    decision: Decision,
    private readonly r: AuditRequest,
  ) {
    this.decision = decision;
    const { info, req } = r;
    this.event = {
      kind: "Event",
      apiVersion: "audit.k8s.io/v1",
      level: decision.level,
      auditID: r.id || randomUUID(),
      stage: "RequestReceived",
      requestURI: (req.url ?? "/").slice(0, 8192),
      verb: info.verb,
      user: auditUser(r.user),
      sourceIPs: sourceIPs(req),
      requestReceivedTimestamp: microTime(r.receivedAt),
      stageTimestamp: microTime(r.receivedAt),
    };
    const ua = req.headers["user-agent"];
    if (ua) this.event.userAgent = ua.slice(0, MAX_USER_AGENT);
    if (info.isResourceRequest) {
      const ref: Record<string, string> = { resource: info.resource };
      if (info.namespace) ref.namespace = info.namespace;
      if (info.name) ref.name = info.name;
      if (info.apiGroup) ref.apiGroup = info.apiGroup;
      if (info.apiVersion) ref.apiVersion = info.apiVersion;
      if (info.subresource) ref.subresource = info.subresource;
      this.event.objectRef = ref;
    }
    this.captureBodies();
    this.emit("RequestReceived");
    r.res.once("close", () => this.complete());
  }

  /** The authenticated user the policy was evaluated for. */
  get user(): UserInfo {
    return this.r.user;
  }

  impersonated(user: UserInfo): void {
    this.event.impersonatedUser = auditUser(user);
  }

  /** Authorization allowed the request (kube's authorization.k8s.io/decision annotation). */
  allowed(): void {
    this.annotate("authorization.k8s.io/decision", "allow");
  }

  /** The request ended with this error; a non-Status error is a panic. */
  failed(err: unknown): void {
    const se = toStatusError(err);
    const s = se.toStatus() as unknown as Record<string, unknown>;
    const status: Record<string, unknown> = { metadata: {}, status: "Failure", code: se.code };
    for (const k of ["message", "reason", "details"]) if (s[k] !== undefined) status[k] = s[k];
    this.failure = { status, panic: !isStatusError(err) };
    if (se.code === 403 && !this.event.annotations?.["authorization.k8s.io/decision"]) this.annotate("authorization.k8s.io/decision", "forbid");
  }

  private annotate(k: string, v: string): void {
    (this.event.annotations ??= {})[k] = v;
  }

  /** Hooks the body reader and the response writer; both only as far as the level needs. */
  private captureBodies(): void {
    const { req, res, info } = this.r;
    const level = this.decision.level;
    const isWatch = info.verb === "watch";
    // The request body is read once by the resource handler; a "data" listener added with it sees
    // the same chunks without starting the stream early.
    if (info.isResourceRequest && ["create", "update", "patch", "delete", "deletecollection"].includes(info.verb)) {
      let hooked = false;
      const onNew = (name: string | symbol) => {
        if (name !== "data" || hooked) return;
        hooked = true;
        req.off("newListener", onNew);
        req.on("data", (c: Buffer) => this.request.add(c));
      };
      req.on("newListener", onNew);
    }
    const origWriteHead = res.writeHead;
    const started = () => {
      if (isWatch) this.emit("ResponseStarted");
    };
    res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      res.writeHead = origWriteHead;
      started();
      return (origWriteHead as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as typeof res.writeHead;
    if (isWatch || !info.isResourceRequest || !atLeast(level, "Metadata")) return;
    const capture = this.response;
    const origWrite = res.write;
    const origEnd = res.end;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      capture.add(chunk);
      return (origWrite as (...a: unknown[]) => boolean).apply(this, [chunk, ...rest]);
    } as typeof res.write;
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      if (typeof chunk !== "function") capture.add(chunk);
      return (origEnd as (...a: unknown[]) => ServerResponse).apply(this, [chunk, ...rest]);
    } as typeof res.end;
  }

  private complete(): void {
    if (this.done) return;
    this.done = true;
    const { res } = this.r;
    const requestObject = this.request.object();
    const responseObject = this.response.object();
    const ref = this.event.objectRef;
    // Like kube, the name of a created object comes from its body; here also from the response
    // (generateName), so every create names what it created.
    if (ref && !ref.name) {
      const name = nameOf(requestObject) ?? (res.statusCode < 300 ? nameOf(responseObject) : undefined);
      if (name) ref.name = name;
    }
    if (this.failure && this.failure.status.code === res.statusCode) {
      this.event.responseStatus = this.failure.status;
    } else {
      this.event.responseStatus = { metadata: {}, code: res.statusCode };
    }
    const strip = this.decision.omitManagedFields ? withoutManagedFields : (o: unknown) => o;
    if (atLeast(this.decision.level, "Request") && requestObject !== undefined) this.event.requestObject = strip(requestObject);
    if (atLeast(this.decision.level, "RequestResponse") && responseObject !== undefined) this.event.responseObject = strip(responseObject);
    if (this.request.truncated || this.response.truncated) this.annotate("audit.k8s.io/truncated", "true");
    this.emit(this.failure?.panic ? "Panic" : "ResponseComplete");
  }

  private emit(stage: Stage): void {
    if (this.decision.omitStages.includes(stage)) return;
    const e: AuditEvent = { ...this.event, stage, stageTimestamp: microTime(nowMs()) };
    if (this.event.annotations) e.annotations = { ...this.event.annotations };
    if (this.event.objectRef) e.objectRef = { ...this.event.objectRef };
    this.sink.write(e);
  }
}

function nameOf(obj: unknown): string | undefined {
  const name = (obj as { metadata?: { name?: unknown } } | undefined)?.metadata?.name;
  return typeof name === "string" && name ? name : undefined;
}

/** The server's audit: a policy and a sink. */
export class Auditor {
  constructor(
    private readonly policy: Policy,
    readonly sink: AuditSink,
  ) {}

  /** Starts auditing an authenticated request; undefined when the policy says None. */
  begin(r: AuditRequest): RequestAudit | undefined {
    const { info } = r;
    const decision = evaluate(this.policy, {
      user: r.user,
      verb: info.verb,
      resourceRequest: info.isResourceRequest,
      path: info.path,
      apiGroup: info.apiGroup,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
    });
    if (decision.level === "None") return undefined;
    return new RequestAudit(this.sink, decision, r);
  }
}
