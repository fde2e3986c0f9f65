// A provider for tests: realises nothing, but behaves as the Actuator contract says. Reconcile
// writes status.ingress and status.providerStatus.sshHostKeys; it can be told to fail (with a
// message) or to take time (until released). Delete can be held (it then answers "requeue after"
// while held, as a provider whose resources are still going away); ForceDelete always succeeds.
import type { Cluster, ExtensionBastion } from "../../../src/apis/extensions/v1alpha1/types.ts";
import type { Client } from "../../../src/client/client.ts";
import { keyOf, keyString } from "../../../src/client/resource.ts";
import { ErrorWithCodes, RequeueAfterError } from "../../../src/extensions/controller/errors.ts";
import type { FieldError } from "../../../src/apimachinery/field/errors.ts";
import type { Actuator, ActuatorContext } from "../../../src/extensions/controller/bastion/actuator.ts";
import type { ConfigValidator } from "../../../src/extensions/controller/bastion/configvalidator.ts";
import { ExtensionBastions } from "../../../src/extensions/resources.ts";

export interface ActuatorCall {
  op: "reconcile" | "delete" | "forceDelete";
  /** namespace/name of the extension Bastion. */
  key: string;
  cidrs: string[];
}

/** The test's stand-in for a provider's SSH host key. */
/** A real ed25519 public key (clients parse and verify host keys). */
export const HOST_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB25NqTSQpIA1rYC6GuKUisyZbb4bcjrRUbKfSsdGODi";

export function ipFor(name: string): string {
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) % 250;
  return `192.0.2.${h + 1}`;
}

export class TestActuator implements Actuator {
  readonly calls: ActuatorCall[] = [];
  private readonly failures = new Map<string, { message: string; codes: string[] }>();
  private readonly reconcileHolds = new Map<string, Promise<void>>();
  private readonly deleteHolds = new Set<string>();

  constructor(private readonly client: Client) {}

  /** Reconciles of `key` ("namespace/name") fail with `message` (and Gardener error codes) until cleared. */
  fail(key: string, message: string, codes: string[] = []): void {
    this.failures.set(key, { message, codes });
  }

  clearFailure(key: string): void {
    this.failures.delete(key);
  }

  /** Reconciles of `key` wait until the returned function is called. */
  holdReconcile(key: string): () => void {
    let release!: () => void;
    this.reconcileHolds.set(key, new Promise<void>((r) => (release = r)));
    return () => {
      this.reconcileHolds.delete(key);
      release();
    };
  }

  /** Deletes of `key` answer "requeue after" until the returned function is called. */
  holdDeletion(key: string): () => void {
    this.deleteHolds.add(key);
    return () => this.deleteHolds.delete(key);
  }

  count(op: ActuatorCall["op"], key: string): number {
    return this.calls.filter((c) => c.op === op && c.key === key).length;
  }

  private record(op: ActuatorCall["op"], b: ExtensionBastion): string {
    const key = keyString(keyOf(b));
    this.calls.push({ op, key, cidrs: (b.spec.ingress ?? []).map((i) => i.ipBlock.cidr) });
    return key;
  }

  async reconcile(ctx: ActuatorContext, b: ExtensionBastion, _cluster: Cluster): Promise<void> {
    const key = this.record("reconcile", b);
    await this.reconcileHolds.get(key);
    const failure = this.failures.get(key);
    if (failure !== undefined) throw failure.codes.length ? new ErrorWithCodes(failure.message, failure.codes) : new Error(failure.message);
    const status = { ingress: { ip: ipFor(b.metadata.name ?? "") }, providerStatus: { sshHostKeys: [HOST_KEY] } };
    await this.client.patchStatus(ExtensionBastions, keyOf(b), { type: "merge", body: { status } }, { signal: ctx.signal });
  }

  delete(_ctx: ActuatorContext, b: ExtensionBastion, _cluster: Cluster): Promise<void> {
    const key = this.record("delete", b);
    if (this.deleteHolds.has(key)) return Promise.reject(new RequeueAfterError("waiting for 1 bastion resources to be deleted", 50));
    return Promise.resolve();
  }

  forceDelete(_ctx: ActuatorContext, b: ExtensionBastion, _cluster: Cluster): Promise<void> {
    this.record("forceDelete", b);
    return Promise.resolve();
  }
}

/** A ConfigValidator for tests: returns the errors set for a key ("namespace/name"). */
export class TestValidator implements ConfigValidator {
  readonly errors = new Map<string, FieldError[]>();
  validate(_ctx: ActuatorContext, b: ExtensionBastion): FieldError[] {
    return this.errors.get(keyString(keyOf(b))) ?? [];
  }
}
