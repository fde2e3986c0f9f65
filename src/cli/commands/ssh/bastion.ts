// The Bastion's life as the client sees it (docs/gardenctl-ssh.md#flow steps 5-6, docs/gardenctl-ssh.md#keepalive-signals-and-cleanup): create (or reuse with
// --bastion-name), keepalive heartbeats, deletion. Waiting for readiness is in wait.ts.
import { randomInt } from "node:crypto";
import type { Bastion, BastionIngressPolicy } from "../../../apis/operations/v1alpha1/types.ts";
import { isAlreadyExists, isNotFound, StatusError } from "../../../apimachinery/errors.ts";
import type { Client } from "../../../client/index.ts";
import { CLIError, errorMessage } from "./errors.ts";
import type { Logger } from "./log.ts";
import { Bastions } from "./resources.ts";
import { unlessNotFound } from "../../../client/helpers.ts";

export const KEEPALIVE = { "gardener.cloud/operation": "keepalive" };

export function randomBastionName(): string {
  const chars = "0123456789abcdefghijklmnopqrstuvwxyz";
  let s = "cli-";
  for (let i = 0; i < 8; i++) s += chars[randomInt(chars.length)];
  return s;
}

export interface CreateParams {
  namespace: string;
  shootName: string;
  publicKey: string;
  ingress: BastionIngressPolicy[];
  /** --bastion-name: reuse an existing Bastion of that name. */
  name?: string;
}

/** Creates the Bastion (or reuses the named one); returns the object as stored. */
export async function createOrReuseBastion(client: Client, p: CreateParams, log: Logger): Promise<Bastion> {
  const key = (name: string) => `${p.namespace}/${name}`;
  const build = (name: string): Bastion => ({
    metadata: { name, namespace: p.namespace, annotations: { ...KEEPALIVE } },
    spec: { shootRef: { name: p.shootName }, sshPublicKey: p.publicKey, ingress: p.ingress },
  });
  try {
    if (p.name === undefined) {
      for (let attempt = 0; ; attempt++) {
        const name = randomBastionName();
        try {
          const created = await client.create(Bastions, build(name));
          log.info("Bastion operation", { bastion: key(name), result: "created" });
          return created;
        } catch (err) {
          if (!isAlreadyExists(err) || attempt >= 3) throw err;
        }
      }
    }
    const existing = await unlessNotFound(client.get(Bastions, { namespace: p.namespace, name: p.name }));
    if (existing === undefined) {
      const created = await client.create(Bastions, build(p.name));
      log.info("Bastion operation", { bastion: key(p.name), result: "created" });
      return created;
    }
    if (existing.metadata.deletionTimestamp) throw new CLIError(`bastion "${key(p.name)}" is being deleted`);
    if (existing.spec.shootRef.name !== p.shootName) throw new CLIError(`bastion "${key(p.name)}" belongs to shoot "${existing.spec.shootRef.name}"`);
    if (existing.spec.sshPublicKey.trim() !== p.publicKey.trim()) {
      throw new CLIError(`bastion "${key(p.name)}" already exists with a different SSH public key; pass the matching --public-key-file and --private-key-file`);
    }
    const sameIngress = JSON.stringify(existing.spec.ingress) === JSON.stringify(p.ingress);
    const patched = await client.patch(Bastions, { namespace: p.namespace, name: p.name }, { type: "merge", body: { metadata: { annotations: KEEPALIVE }, spec: { ingress: p.ingress } } });
    log.info("Bastion operation", { bastion: key(p.name), result: sameIngress ? "unchanged" : "updated" });
    return patched;
  } catch (err) {
    if (err instanceof CLIError) throw err;
    throw new CLIError(`failed to create or patch bastion: ${errorMessage(err)}`);
  }
}

export type KeepaliveResult = { kind: "ok" } | { kind: "gone" } | { kind: "rejected"; reason: string } | { kind: "transient"; err: string };

/** One heartbeat: merge-patches the keepalive annotation and classifies the outcome (docs/gardenctl-ssh.md#keepalive-signals-and-cleanup). */
export async function sendKeepalive(client: Client, namespace: string, name: string, signal?: AbortSignal): Promise<KeepaliveResult> {
  try {
    const b = await client.patch(Bastions, { namespace, name }, { type: "merge", body: { metadata: { annotations: KEEPALIVE } } }, { signal });
    return b.metadata.deletionTimestamp ? { kind: "gone" } : { kind: "ok" };
  } catch (err) {
    if (isNotFound(err)) return { kind: "gone" };
    if (err instanceof StatusError && err.code >= 400 && err.code < 500 && err.code !== 409 && err.code !== 429) return { kind: "rejected", reason: err.message };
    return { kind: "transient", err: errorMessage(err) };
  }
}

/**
 * Sends a heartbeat every `intervalMs` (first one interval after start) until stopped; calls
 * `onEnd` with the message that ends the session when the bastion is gone or heartbeats are rejected.
 */
export function startKeepalive(client: Client, namespace: string, name: string, intervalMs: number, log: Logger, onEnd: (message: string) => void): () => void {
  const ctl = new AbortController();
  const key = `${namespace}/${name}`;
  let timer: NodeJS.Timeout | undefined;
  const tick = async (): Promise<void> => {
    const r = await sendKeepalive(client, namespace, name, ctl.signal);
    if (ctl.signal.aborted) return;
    switch (r.kind) {
      case "ok":
        log.debug("Sent keepalive", { bastion: key });
        break;
      case "gone":
        log.info("Can't keep bastion alive. Bastion is already gone.");
        return onEnd(`bastion "${key}" is gone (deleted or expired); ending the session`);
      case "rejected":
        return onEnd(`keepalive for bastion "${key}" was rejected: ${r.reason}; ending the session`);
      case "transient":
        log.info("Failed to keep bastion alive.", { err: r.err });
        break;
    }
    schedule();
  };
  const schedule = (): void => {
    timer = setTimeout(() => void tick(), intervalMs);
  };
  schedule();
  return () => {
    ctl.abort();
    clearTimeout(timer);
  };
}

/** DELETE with a 30 s timeout; NotFound ignored; failures are logged, never thrown. */
export async function deleteBastion(client: Client, namespace: string, name: string, log: Logger): Promise<void> {
  try {
    await unlessNotFound(client.delete(Bastions, { namespace, name }, { timeoutMs: 30_000 }));
  } catch (err) {
    log.info("Failed to delete bastion.", { bastion: `${namespace}/${name}`, err: errorMessage(err), note: "it expires within 1h of the last heartbeat" });
  }
}
