// The shoot's key pairs in the seed and their garden copies (docs/maintenance-and-rotation.md#key-pair-secrets):
// `ssh-keypair` (generated when missing, rotated when `lastInitiationTime` differs from the label that
// records the rotation that produced it; the previous pair is copied to `ssh-keypair.old` first), both
// validated, and `<shoot>.ssh-keypair[.old]` in the garden. Reads that do not depend on each other run
// at once: a rotation waits for as few round trips as possible.
import type { Logger } from "pino";
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { type Secret, Secrets } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import { type KeyGenerator, type KeyPair, keyPairOf, keyPairProblem } from "./keypair.ts";
import { LABEL_LAST_ROTATION_INITIATION_TIME, SECRET_CURRENT, SECRET_OLD, gardenCopyName, getOrUndefined, seedSecret, writeGardenCopy } from "./secrets.ts";

/** `ssh key pair secret <namespace>/<name> is invalid: <reason>` (docs/maintenance-and-rotation.md#key-validation). */
export class InvalidKeyPairError extends Error {
  constructor(namespace: string, name: string, reason: string) {
    super(`ssh key pair secret ${namespace}/${name} is invalid: ${reason}`);
    this.name = "InvalidKeyPairError";
  }
}

export interface SeedPairs {
  current: Secret;
  old: Secret | undefined;
  /** The valid pairs: current, then old if any. */
  pairs: KeyPair[];
}

export interface SeedPairsContext {
  seed: Client;
  generate: KeyGenerator;
  log: Logger;
  signal: AbortSignal;
}

/**
 * Ensures the seed pairs for rotation `want` (a `last-rotation-initiation-time` label value; "" before
 * any rotation). `known`: the Secrets as this pass last read or wrote them (its second round reuses
 * them instead of reading again; every write carries their resourceVersion).
 */
export async function ensureSeedPairs(c: SeedPairsContext, namespace: string, want: string, known?: SeedPairs): Promise<SeedPairs> {
  const { seed, signal } = c;
  let [current, old] = known ? [known.current, known.old] : await Promise.all([getOrUndefined(seed, { namespace, name: SECRET_CURRENT }, signal), getOrUndefined(seed, { namespace, name: SECRET_OLD }, signal)]);
  if (!current) {
    current = await seed.create(Secrets, seedSecret(namespace, SECRET_CURRENT, await c.generate(), want), { signal });
    c.log.info({ secret: `${namespace}/${SECRET_CURRENT}` }, "generated the node key pair");
  }
  if (want !== "" && current.metadata.labels?.[LABEL_LAST_ROTATION_INITIATION_TIME] !== want) {
    // Copy first, then replace: a crash in between repeats the copy, and a current key always exists.
    const copy = { ...seedSecret(namespace, SECRET_OLD, keyPairOf(current.data), current.metadata.labels?.[LABEL_LAST_ROTATION_INITIATION_TIME] ?? ""), data: current.data };
    const fresh = c.generate();
    // A failed generation surfaces below, not as an unhandled rejection while the copy is written.
    fresh.catch(() => undefined);
    old = old ? await seed.update(Secrets, { ...copy, metadata: { ...old.metadata, labels: copy.metadata.labels } }, { signal }) : await seed.create(Secrets, copy, { signal });
    const next = seedSecret(namespace, SECRET_CURRENT, await fresh, want);
    current = await seed.update(Secrets, { ...next, metadata: { ...current.metadata, labels: next.metadata.labels } }, { signal });
    c.log.info({ secret: `${namespace}/${SECRET_CURRENT}`, lastRotationInitiationTime: want }, "rotated the node key pair");
  }
  const present: [string, Secret][] = [[SECRET_CURRENT, current]];
  if (old) present.push([SECRET_OLD, old]);
  const pairs = present.map(([name, secret]) => {
    const pair = keyPairOf(secret.data);
    const problem = keyPairProblem(pair);
    if (problem) throw new InvalidKeyPairError(namespace, name, problem);
    return pair;
  });
  return { current, old, pairs };
}

/** Writes `<shoot>.ssh-keypair` and, with an old pair, `<shoot>.ssh-keypair.old` (at once). */
export async function writeGardenCopies(garden: Client, shoot: Shoot, p: SeedPairs, log: Logger, signal: AbortSignal): Promise<void> {
  const present: [string, Secret][] = [[SECRET_CURRENT, p.current]];
  if (p.old) present.push([SECRET_OLD, p.old]);
  await settleAll(
    present.map(async ([name, secret]) => {
      const copyName = gardenCopyName(shoot.metadata.name ?? "", name);
      const result = await writeGardenCopy(garden, shoot, copyName, secret.data ?? {}, signal);
      if (result !== "unchanged") log.info({ secret: copyName, result }, "garden copy written");
    }),
  );
}

/** Like Promise.all, but settles only when every promise has (a pass never ends with a write still in flight); rejects with the first failure. */
export async function settleAll<T extends readonly unknown[]>(promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
