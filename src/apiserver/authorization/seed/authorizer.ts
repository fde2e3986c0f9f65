// The seed authorizer (docs/bastion.md#seed-authorizer): decides requests of gardenlet identities on
// Bastions (and reads of Shoots) from a graph of which object belongs to which seed; Events
// (create, patch) and its own Seed (get, patch, update, status) by name. It answers
// Allow or NoOpinion (then RBAC decides; the seeds group has no RBAC grants on Bastions, so that
// means 403). Runs before RBAC in the authorizer chain; start() before serving, stop() on shutdown.
import { GROUP as CORE_GROUP } from "../../../apis/gardencore/v1beta1/types.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { GROUP as OPERATIONS_GROUP, RESOURCE_BASTIONS } from "../../../apis/operations/v1alpha1/types.ts";
import { seedNameOfUser } from "../../../api/gardencore/identity.ts";
import { seedNameOf } from "../../../api/gardencore/shoot.ts";
import { parseFieldSelector, requirementsOf } from "../../../apimachinery/fields/selector.ts";
import type { Clock } from "../../../utils/clock.ts";
import type { InternalClient } from "../../registry/client.ts";
import { Reflector } from "../reflector.ts";
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from "../types.ts";
import { Graph, type VertexType, vertex } from "./graph.ts";

const BASTIONS = { group: OPERATIONS_GROUP, resource: RESOURCE_BASTIONS };
const SHOOTS = { group: CORE_GROUP, resource: "shoots" };

const BASTION_VERBS = ["create", "get", "list", "patch", "update", "watch"];
// patch and update: the operation annotation and (shoots/status) the rotation status and constraints.
const SHOOT_VERBS = ["get", "list", "patch", "update", "watch"];
const SECRET_VERBS = ["create", "delete", "get", "patch", "update"];
const EVENT_VERBS = ["create", "patch"];
const SEED_VERBS = ["get", "patch", "update"];

const noOpinion = (reason: string): AuthorizationResult => ({ decision: "noOpinion", reason });
const allow = (reason = ""): AuthorizationResult => ({ decision: "allow", reason });

export interface SeedAuthorizerOptions {
  clock?: Clock;
  onError?: (err: unknown) => void;
}

/** True when the field selector requires `spec.seedName=<seed>` (then only that seed's objects match). */
export function selectsSeed(fieldSelector: string | undefined, seed: string): boolean {
  if (!fieldSelector) return false;
  try {
    return requirementsOf(parseFieldSelector(fieldSelector)).some((r) => r.field === "spec.seedName" && r.operator !== "!=" && r.value === seed);
  } catch {
    return false;
  }
}

export class SeedAuthorizer implements Authorizer {
  private readonly graph = new Graph();
  private readonly reflectors: Reflector<KubeObject>[];
  private synced = false;

  constructor(client: InternalClient, opts: SeedAuthorizerOptions = {}) {
    const feed = (type: VertexType) => ({
      replace: (items: KubeObject[]) => {
        this.graph.clearType(type);
        for (const o of items) this.upsert(type, o);
      },
      upsert: (o: KubeObject) => this.upsert(type, o),
      remove: (o: KubeObject) => this.graph.removeVertex(vertex(type, o.metadata.namespace, o.metadata.name ?? "")),
    });
    const ropts = { clock: opts.clock, onError: opts.onError };
    this.reflectors = [new Reflector(client, BASTIONS, feed("Bastion"), ropts), new Reflector(client, SHOOTS, feed("Shoot"), ropts)];
  }

  /** Resolves when the graph holds the current Bastions and Shoots and follows their changes. */
  async start(): Promise<void> {
    await Promise.all(this.reflectors.map((r) => r.start()));
    this.synced = true;
  }

  stop(): void {
    this.synced = false;
    for (const r of this.reflectors) r.stop();
  }

  /** The Bastion -> Seed and Shoot -> Seed edges exist only while spec.seedName is set. */
  private upsert(type: VertexType, o: KubeObject): void {
    const seed = seedNameOf(o);
    this.graph.setEdges(vertex(type, o.metadata.namespace, o.metadata.name ?? ""), seed ? [vertex("Seed", undefined, seed)] : []);
  }

  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    return Promise.resolve(this.decide(attrs));
  }

  private decide(attrs: AuthorizationAttributes): AuthorizationResult {
    if (!attrs.resourceRequest) return noOpinion("");
    const seed = seedNameOfUser(attrs.user);
    if (seed === undefined) return noOpinion("");
    if (attrs.apiGroup === OPERATIONS_GROUP && attrs.resource === RESOURCE_BASTIONS) return this.decideBastion(attrs, seed);
    if (attrs.apiGroup === CORE_GROUP && attrs.resource === "shoots") return this.decideShoot(attrs, seed);
    if (attrs.apiGroup === "" && attrs.resource === "secrets") return this.decideSecret(attrs, seed);
    if ((attrs.apiGroup === "" || attrs.apiGroup === "events.k8s.io") && attrs.resource === "events") return this.decideEvent(attrs);
    if (attrs.apiGroup === CORE_GROUP && attrs.resource === "seeds") return this.decideSeed(attrs, seed);
    return noOpinion("");
  }

  /** Gardener's authorizeEvent: a gardenlet may create and patch (aggregate) Events anywhere. */
  private decideEvent(attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.subresource) return noOpinion("only the following subresources are allowed for this resource type: []");
    if (!EVENT_VERBS.includes(attrs.verb)) return noOpinion(`only the following verbs are allowed for this resource type: [${EVENT_VERBS.join(" ")}]`);
    return allow();
  }

  /** A gardenlet reads and reports (status: conditions) on its own Seed only. */
  private decideSeed(attrs: AuthorizationAttributes, seed: string): AuthorizationResult {
    if (attrs.subresource && attrs.subresource !== "status") return noOpinion("only the following subresources are allowed for this resource type: [status]");
    if (!SEED_VERBS.includes(attrs.verb)) return noOpinion(`only the following verbs are allowed for this resource type: [${SEED_VERBS.join(" ")}]`);
    return attrs.name === seed ? allow() : noOpinion("no relationship found");
  }

  /**
   * The garden copies of a shoot's node key pair (`<shoot>.ssh-keypair[.old]`, ssh-keypair-rotation
   * docs/bastion.md#cluster) belong to the gardenlet of the shoot's seed: Secret -> Shoot -> Seed.
   */
  private decideSecret(attrs: AuthorizationAttributes, seed: string): AuthorizationResult {
    if (attrs.subresource) return noOpinion("only the following subresources are allowed for this resource type: []");
    if (!SECRET_VERBS.includes(attrs.verb)) {
      return noOpinion(`only the following verbs are allowed for this resource type: [${SECRET_VERBS.join(" ")}]`);
    }
    // create carries no name in the URL: allowed here, narrowed by the SeedRestriction admission plugin.
    if (attrs.verb === "create") return allow();
    const shoot = /^(.+)\.ssh-keypair(\.old)?$/.exec(attrs.name ?? "")?.[1];
    if (!shoot) return noOpinion("no relationship found");
    return this.byGraph("Shoot", { ...attrs, name: shoot }, seed);
  }

  private decideBastion(attrs: AuthorizationAttributes, seed: string): AuthorizationResult {
    if (attrs.subresource && attrs.subresource !== "status") {
      return noOpinion("only the following subresources are allowed for this resource type: [status]");
    }
    if (!BASTION_VERBS.includes(attrs.verb)) {
      return noOpinion(`only the following verbs are allowed for this resource type: [${BASTION_VERBS.join(" ")}]`);
    }
    if (attrs.verb === "create") return allow();
    if (attrs.verb === "list" || attrs.verb === "watch") return this.bySelector(attrs, seed);
    return this.byGraph("Bastion", attrs, seed);
  }

  private decideShoot(attrs: AuthorizationAttributes, seed: string): AuthorizationResult {
    if (attrs.subresource && attrs.subresource !== "status") return noOpinion("only the following subresources are allowed for this resource type: [status]");
    if (!SHOOT_VERBS.includes(attrs.verb)) {
      return noOpinion(`only the following verbs are allowed for this resource type: [${SHOOT_VERBS.join(" ")}]`);
    }
    if (attrs.verb === "list" || attrs.verb === "watch") return this.bySelector(attrs, seed);
    return this.byGraph("Shoot", attrs, seed);
  }

  private bySelector(attrs: AuthorizationAttributes, seed: string): AuthorizationResult {
    return selectsSeed(attrs.fieldSelector, seed) ? allow() : noOpinion(`must specify field or label selector for name ${seed}`);
  }

  private byGraph(type: VertexType, attrs: AuthorizationAttributes, seed: string): AuthorizationResult {
    if (!this.synced) return noOpinion("seed authorizer is not ready yet");
    const from = vertex(type, attrs.namespace, attrs.name ?? "");
    return this.graph.hasPath(from, vertex("Seed", undefined, seed)) ? allow() : noOpinion("no relationship found");
  }
}
