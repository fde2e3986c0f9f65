// Errors that end `gardenctl ssh` with a chosen exit code (docs/gardenctl-ssh.md#output-and-exit-codes). Anything
// else that escapes the flow is reported as `Error: <message>` with exit code 1.

export class CLIError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "CLIError";
  }
}

/** The bastion did not become ready or accept SSH within --wait-timeout (exit 2). */
export class TimeoutError extends CLIError {
  constructor(message: string) {
    super(message, 2);
    this.name = "TimeoutError";
  }
}

/** A signal ended the run before a session or the connect info started (128 + signal number). */
export class SignalError extends CLIError {
  constructor(readonly signal: NodeJS.Signals) {
    super(`caught signal ${signal}`, signalExitCode(signal));
    this.name = "SignalError";
  }
}

export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === "SIGHUP" ? 129 : signal === "SIGINT" ? 130 : 143;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
