// The terminal admission webhooks (docs/terminals.md#admission-webhooks), as upstream's
// TerminalMutator and TerminalValidator: an AdmissionRequest in, an AdmissionResponse out. The
// creator is the request's authenticated user (`userInfo`), never what the object says; access is
// decided by SubjectAccessReviews for that user against the garden's stored RBAC.
import type { AdmissionRequest, AdmissionResponse } from "../../apis/admission/v1/types.ts";
import type { Terminal } from "../../apis/dashboard/v1alpha1/types.ts";
import type { ResourceAttributes } from "../../apis/authorization/v1/types.ts";
import { Path, forbidden, formatFieldError, invalid, required } from "../../apimachinery/field/errors.ts";
import { mutateTerminal } from "../../api/dashboard/terminal.ts";
import { type ValidationConfig, validateTerminal } from "../../api/dashboard/validation.ts";
import type { Client } from "../../client/client.ts";
import { Projects } from "../../client/garden.ts";
import type { Clock } from "../../utils/clock.ts";
import { isRecord } from "../../utils/guards.ts";
import { SubjectAccessReviews } from "../resources.ts";
import { Caps, type CapsConfig } from "./caps.ts";

export interface WebhookConfig extends ValidationConfig, CapsConfig {
  /** webhooks.terminalValidation.maxObjectSize: the largest Terminal (bytes of JSON) admitted; default 10240. */
  maxObjectSize?: number;
}

export const DEFAULT_MAX_OBJECT_SIZE = 10240;

type Answer = Omit<AdmissionResponse, "uid">;
const errored = (code: number, message: string): Answer => ({ allowed: false, status: { code, message } });
const denied = (message: string): Answer => ({ allowed: false, status: { code: 403, reason: "Forbidden", message } });
/** A Terminal as far as decoding goes: an object with metadata (an object, or null, which decodes as empty). */
const isObject = (v: unknown): v is Terminal => isRecord(v) && typeof v.metadata === "object";

/** The mutating webhook: a JSON patch replacing metadata and spec with the mutated ones. */
export function mutate(req: AdmissionRequest, clock: Clock): Answer {
  if (!isObject(req.object)) return errored(400, "there is no content to decode");
  const t = structuredClone(req.object);
  try {
    mutateTerminal(t, req.operation, req.userInfo.username, clock.nowMs());
  } catch (err) {
    return errored(500, (err as Error).message);
  }
  const ops = [
    { op: req.object.metadata ? "replace" : "add", path: "/metadata", value: t.metadata },
    { op: req.object.spec === undefined ? "add" : "replace", path: "/spec", value: t.spec },
  ];
  return { allowed: true, patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(ops)).toString("base64") };
}

export class Validator {
  private readonly caps: Caps;

  /** `terminals` lists the Terminals the caps count (the controller's cache). */
  constructor(
    private readonly garden: Client,
    private readonly clock: Clock,
    private readonly config: WebhookConfig,
    terminals: () => Promise<Terminal[]>,
  ) {
    this.caps = new Caps(terminals, clock, config);
  }

  async validate(req: AdmissionRequest): Promise<Answer> {
    const max = this.config.maxObjectSize ?? DEFAULT_MAX_OBJECT_SIZE;
    if (Buffer.byteLength(JSON.stringify(req.object ?? null)) > max) return errored(400, `resource must not have more than ${max} bytes`);
    if (!isObject(req.object) || !isRecord(req.object.spec)) return errored(400, "there is no content to decode");
    const old = req.operation === "CREATE" ? undefined : req.oldObject;
    if (req.operation !== "CREATE" && !isObject(old)) return errored(400, "there is no content to decode");
    const t = req.object;
    const user = req.userInfo;
    let problem: string | undefined;
    try {
      problem = validateTerminal(t, old as Terminal | undefined, user.username, this.clock.nowMs(), this.config);
    } catch {
      // Only an object that skipped the CRD schema (required host, target, credentials, pod) gets here.
      return errored(400, "the Terminal does not match its schema");
    }
    if (problem) return denied(problem);
    try {
      // Host and target often name the same credential: each access review is asked once per request.
      const reviews = new Map<string, Promise<boolean>>();
      for (const side of ["target", "host"] as const) {
        if (!(await this.canReadCredential(req, t.spec[side].credentials, reviews))) {
          return denied(formatFieldError(forbidden(`spec.${side}.credentials`, `${user.username} is not allowed to read ${side} credential`)));
        }
      }
      const cleanup = await this.cleanupProjectMembership(req, t);
      if (cleanup) return denied(cleanup);
      if (req.operation === "CREATE" && !req.dryRun) {
        const capped = await this.caps.admit(`${req.namespace ?? ""}/${req.name || req.uid}`, user.username);
        if (capped) return denied(capped);
      }
    } catch (err) {
      return denied((err as Error).message);
    }
    return { allowed: true, status: { code: 200, message: "allowed to be admitted" } };
  }

  private allowed(req: AdmissionRequest, attrs: ResourceAttributes, reviews?: Map<string, Promise<boolean>>): Promise<boolean> {
    if (!reviews) return this.review(req, attrs);
    const key = JSON.stringify(attrs);
    let answer = reviews.get(key);
    if (!answer) {
      answer = this.review(req, attrs);
      reviews.set(key, answer);
    }
    return answer;
  }

  private async review(req: AdmissionRequest, attrs: ResourceAttributes): Promise<boolean> {
    const u = req.userInfo;
    const review = await this.garden.create(SubjectAccessReviews, {
      metadata: {},
      spec: { resourceAttributes: attrs, user: u.username, groups: u.groups ?? [], ...(u.uid ? { uid: u.uid } : {}), ...(u.extra ? { extra: u.extra } : {}) },
    });
    return review.status?.allowed === true;
  }

  private async canReadCredential(req: AdmissionRequest, cred: Terminal["spec"]["host"]["credentials"], reviews: Map<string, Promise<boolean>>): Promise<boolean> {
    if (cred.shootRef) {
      const ok = await this.allowed(req, { group: "core.gardener.cloud", resource: "shoots", subresource: "adminkubeconfig", verb: "create", name: cred.shootRef.name, namespace: cred.shootRef.namespace }, reviews);
      if (!ok) return false;
    }
    // A kubeconfig Secret (a seed host): whoever may read the Secret may use the cluster it reaches.
    if (cred.secretRef && !(await this.allowed(req, { group: "", resource: "secrets", verb: "get", name: cred.secretRef.name, namespace: cred.secretRef.namespace }, reviews))) return false;
    const sa = cred.serviceAccountRef;
    if (!sa) return true;
    if (!(await this.allowed(req, { group: "", resource: "serviceaccounts", verb: "get", name: sa.name, namespace: sa.namespace }, reviews))) return false;
    return this.allowed(req, { group: "", resource: "serviceaccounts", subresource: "token", verb: "create", namespace: sa.namespace }, reviews);
  }

  private async cleanupProjectMembership(req: AdmissionRequest, t: Terminal): Promise<string | undefined> {
    if (!t.spec.target.cleanupProjectMembership) return undefined;
    const path = Path.root("spec").child("target");
    if (!this.config.honourCleanupProjectMembership) return formatFieldError(forbidden(path.child("cleanupProjectMembership"), "field is forbidden by configuration"));
    const sa = t.spec.target.credentials.serviceAccountRef;
    if (!sa) return formatFieldError(required(path.child("credentials", "serviceAccountRef"), "field is required"));
    if (sa.namespace !== t.metadata.namespace) {
      return formatFieldError(invalid(path.child("credentials", "serviceAccountRef", "namespace"), sa.namespace ?? "", "only allowed to reference serviceaccount within the same namespace when cleanupProjectMembership is enabled"));
    }
    const projects = await this.garden.list(Projects);
    const project = projects.items.find((p) => p.spec?.namespace === t.metadata.namespace);
    if (!project) throw new Error(`no project found for namespace ${t.metadata.namespace}`);
    const ok = await this.allowed(req, { group: "core.gardener.cloud", resource: "projects", verb: "patch", name: project.metadata.name });
    return ok ? undefined : formatFieldError(forbidden(path.child("cleanupProjectMembership"), `${req.userInfo.username} is not allowed to manage project members`));
  }
}
