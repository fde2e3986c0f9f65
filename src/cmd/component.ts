// What every component's composition root does around its own wiring: flags or exit (help: 0, bad
// flags: one line and 2), a pino logger on stderr, start or exit 1 with one line, the ready line,
// and leader election from the `--leader-elect*` flags.
import { type Logger, pino } from "pino";
import type { LeaderElectionOptions } from "../controllerruntime/manager.ts";
import type { FlagsResult, LeaderElectFlags } from "../utils/flags.ts";

/** The parsed flags; otherwise writes what the parser said and exits with its code. */
export function flagsOrExit<T>(parsed: FlagsResult<T>): T {
  if (parsed.kind === "options") return parsed.options;
  process.stdout.write(parsed.stdout);
  process.stderr.write(parsed.stderr);
  process.exit(parsed.code);
}

export function componentLogger(component: string, level: string): Logger {
  return pino({ level, base: { component } }, pino.destination(2));
}

/** What start resolves to; a failure is logged, written as one line and exits 1. */
export async function orExit<T>(logger: Logger, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    logger.error({ err }, "failed to start");
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

/** Builds and starts the component (orExit). */
export function startOrExit<A extends { start(): Promise<void> }>(logger: Logger, build: () => A): Promise<A> {
  return orExit(logger, async () => {
    const app = build();
    await app.start();
    return app;
  });
}

/** "; metrics on http://host:port/metrics" when the manager serves metrics, else "". */
export function metricsSuffix(manager: { address(): { host: string; port: number } | undefined }): string {
  const address = manager.address();
  return address ? `; metrics on http://${address.host}:${address.port}/metrics` : "";
}

/** The manager's leader election from the flags (undefined with --leader-elect=false); the Lease is released on stop. */
export function leaderElectionOf(flags: LeaderElectFlags): LeaderElectionOptions | undefined {
  if (!flags.leaderElect) return undefined;
  return {
    namespace: flags.leaderElectResourceNamespace,
    name: flags.leaderElectResourceName,
    leaseDurationMs: flags.leaderElectLeaseDurationMs,
    renewDeadlineMs: flags.leaderElectRenewDeadlineMs,
    retryPeriodMs: flags.leaderElectRetryPeriodMs,
    releaseOnCancel: true,
  };
}

/**
 * `--name value` from the command line (or `fallback`) for the small VPN processes, which take a config file
 * and a log level only; a missing required one is one line and the usage on stderr, exit 2.
 */
export function argFlag(usage: string): (name: string, fallback?: string) => string {
  return (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    const v = i >= 0 ? process.argv[i + 1] : fallback;
    if (v === undefined) {
      process.stderr.write(`error: --${name} is required\nusage: ${usage}\n`);
      process.exit(2);
    }
    return v;
  };
}
