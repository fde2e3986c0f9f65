// Wiring for cmd/: the first SIGTERM or SIGINT stops the manager cleanly and exits; a second
// one exits at once (controller-runtime's SetupSignalHandler behaviour).

export interface Stoppable {
  stop(): Promise<void>;
  done?(): Promise<void>;
}

export interface SignalOptions {
  signals?: NodeJS.Signals[];
  /** Called with the exit code after the stop (default process.exit). */
  exit?: (code: number) => void;
  /** Told about the shutdown; default nothing. */
  onSignal?: (signal: NodeJS.Signals) => void;
}

/**
 * Stops `target` on the first signal and exits 0 (1 if stopping failed); exits 1 on a second signal.
 * If `target.done()` rejects on its own (leadership lost), exits 1 too. Returns a function that
 * removes the handlers.
 */
export function stopOnSignals(target: Stoppable, opts: SignalOptions = {}): () => void {
  const signals = opts.signals ?? ["SIGTERM", "SIGINT"];
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let received = false;
  const handler = (sig: NodeJS.Signals): void => {
    opts.onSignal?.(sig);
    if (received) return exit(1);
    received = true;
    target.stop().then(
      () => exit(0),
      () => exit(1),
    );
  };
  for (const s of signals) process.on(s, handler);
  target.done?.().catch(() => {
    if (!received) exit(1);
  });
  return () => {
    for (const s of signals) process.off(s, handler);
  };
}
