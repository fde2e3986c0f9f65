// Watching the Bastion (docs/gardenctl-ssh.md#waiting-for-bastionready, docs/gardenctl-ssh.md#keepalive-signals-and-cleanup): one watch by name, reopened with backoff (1 s doubling to
// 30 s) after a GET resynchronizes; watch errors alone never fail, a failing GET does. On it sit
// the wait for BastionReady (bounded by --wait-timeout, exit 2 on timeout) and the detection of
// bastion loss during the session.
import { isIP } from "node:net";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import { unlessNotFound } from "../../../apimachinery/errors.ts";
import type { Client } from "../../../client/index.ts";
import { isDNS1123Subdomain } from "../../../apimachinery/names/validation.ts";
import { formatDuration } from "../../../utils/duration.ts";
import { CLIError, TimeoutError } from "./errors.ts";
import type { Logger } from "./log.ts";
import { isMulticast, isUnspecified } from "./options.ts";
import { Bastions } from "./resources.ts";

/** Called with the current object, or undefined when it is gone (DELETED or 404). */
export type BastionListener = (b: Bastion | undefined) => void;

/** Watches until `signal` aborts; `onError` gets a failing resync GET (the watch then stops). */
export async function watchBastion(client: Client, namespace: string, name: string, resourceVersion: string | undefined, listener: BastionListener, onError: (err: unknown) => void, signal: AbortSignal): Promise<void> {
  let rv = resourceVersion;
  let backoff = 1000;
  while (!signal.aborted) {
    try {
      await client.watch(
        Bastions,
        { namespace, fieldSelector: `metadata.name=${name}`, resourceVersion: rv },
        (ev) => {
          if (ev.type === "BOOKMARK") return;
          const obj = ev.object as Bastion;
          rv = obj.metadata?.resourceVersion ?? rv;
          backoff = 1000;
          listener(ev.type === "DELETED" ? undefined : obj);
        },
        signal,
      );
    } catch {
      // Watch errors never fail on their own; the resync below decides.
    }
    if (signal.aborted) return;
    await sleep(backoff, signal);
    backoff = Math.min(backoff * 2, 30_000);
    if (signal.aborted) return;
    try {
      const b = await unlessNotFound(client.get(Bastions, { namespace, name }, { signal }));
      if (!b) return listener(undefined);
      rv = b.metadata.resourceVersion;
      listener(b);
    } catch (err) {
      if (signal.aborted) return;
      return onError(err);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export interface WaitOptions {
  timeoutMs: number;
  bastionHost?: string;
  /** Draw a spinner instead of one log line per change. */
  spinner: boolean;
  signal: AbortSignal;
  now?: () => number;
}

/**
 * Gardener's error codes that retrying does not cure (its `nonRetryableErrorCodes`): a BastionReady=False
 * carrying one of them ends the wait at once instead of at --wait-timeout.
 */
export const NON_RETRYABLE_CODES: readonly string[] = [
  "ERR_INFRA_UNAUTHENTICATED",
  "ERR_INFRA_UNAUTHORIZED",
  "ERR_INFRA_QUOTA_EXCEEDED",
  "ERR_INFRA_DEPENDENCIES",
  "ERR_CONFIGURATION_PROBLEM",
  "ERR_PROBLEMATIC_WEBHOOK",
];

/** Checks status.ingress once BastionReady=True; returns the problem or "". */
export function ingressProblem(b: Bastion): string {
  const ing = b.status?.ingress;
  if (ing?.ip) {
    if (isIP(ing.ip) === 0) return `ip ${JSON.stringify(ing.ip)} is not a valid IP address`;
    if (isUnspecified(ing.ip) || isMulticast(ing.ip)) return `ip ${JSON.stringify(ing.ip)} is not a unicast address`;
  }
  if (ing?.hostname) {
    if (isIP(ing.hostname) !== 0) return `hostname ${JSON.stringify(ing.hostname)} must not be an IP address`;
    const errs = isDNS1123Subdomain(ing.hostname);
    if (errs.length) return `hostname ${JSON.stringify(ing.hostname)}: ${errs.join("; ")}`;
  }
  return "";
}

/** Resolves with the Bastion once it is ready with an address (or --bastion-host is given). */
export function waitForReady(client: Client, initial: Bastion, o: WaitOptions, log: Logger): Promise<Bastion> {
  const ns = initial.metadata.namespace!;
  const name = initial.metadata.name!;
  const key = `${ns}/${name}`;
  const now = o.now ?? Date.now;
  const start = now();
  log.info("Waiting for bastion to be ready…", { waitTimeout: formatDuration(o.timeoutMs) });
  const ctl = new AbortController();
  const stopOuter = (): void => ctl.abort();
  o.signal.addEventListener("abort", stopOuter, { once: true });
  return new Promise<Bastion>((resolve, reject) => {
    let last = "";
    let lastReason = "";
    let lastShown = "";
    let spinTimer: NodeJS.Timeout | undefined;
    const finish = (err: unknown, b?: Bastion): void => {
      ctl.abort();
      clearTimeout(timer);
      clearInterval(spinTimer);
      o.signal.removeEventListener("abort", stopOuter);
      log.clearSpinner();
      if (err !== undefined) reject(err);
      else resolve(b!);
    };
    const draw = (): void => {
      log.spinner(`Waiting for bastion ${key} (${formatDuration(Math.floor((now() - start) / 1000) * 1000)}/${formatDuration(o.timeoutMs)})${last ? `: ${lastReason}: ${last}` : ""}`);
    };
    if (o.spinner) spinTimer = setInterval(draw, 250);
    const timer = setTimeout(() => finish(new TimeoutError(`timed out waiting for the bastion to become ready: ${last || "no BastionReady condition yet"}`)), o.timeoutMs);
    const onBastion = (b: Bastion | undefined): void => {
      if (b === undefined || b.metadata.deletionTimestamp) return finish(new CLIError(`bastion "${key}" was deleted while waiting for it to become ready`));
      const cond = b.status?.conditions?.find((c) => c.type === "BastionReady");
      if (cond === undefined) return;
      if (cond.status !== "True") {
        const fatal = (cond.codes ?? []).filter((c) => NON_RETRYABLE_CODES.includes(c));
        if (cond.status === "False" && fatal.length > 0) {
          return finish(new CLIError(`the bastion cannot become ready (${fatal.join(", ")}): ${cond.message}`));
        }
        last = cond.message;
        lastReason = cond.reason;
        if (!o.spinner && `${lastReason}: ${last}` !== lastShown) {
          lastShown = `${lastReason}: ${last}`;
          log.info("Still waiting", { reason: cond.reason, err: cond.message });
        }
        return;
      }
      const problem = ingressProblem(b);
      if (problem) return finish(new CLIError(`bastion status.ingress is invalid: ${problem}`));
      if (!b.status?.ingress?.ip && !b.status?.ingress?.hostname && !o.bastionHost) return;
      finish(undefined, b);
    };
    onBastion(initial);
    void watchBastion(client, ns, name, initial.metadata.resourceVersion, onBastion, (err) => finish(err), ctl.signal);
    if (o.signal.aborted) finish(o.signal.reason);
  });
}
