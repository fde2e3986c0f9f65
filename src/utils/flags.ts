// Flag helpers shared by the components' commands (controller manager, gardenlet, provider-local, ...).
import { isIP } from "node:net";
import { type Command, CommanderError } from "commander";

export class FlagError extends Error {}

export interface BindAddress {
  host: string;
  port: number;
}

/** "host:port", ":port" (all interfaces), "[::1]:port"; "0" disables (undefined). */
export function parseBindAddress(text: string, flag: string): BindAddress | undefined {
  if (text === "0") return undefined;
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new FlagError(`invalid value "${text}" for ${flag}: expected host:port, :port or 0`);
  const host = m[1] ?? m[2] ?? "";
  if (host !== "" && host !== "localhost" && isIP(host) === 0) throw new FlagError(`invalid value "${text}" for ${flag}: ${host} is not an IP address`);
  return { host: host === "" ? "0.0.0.0" : host, port };
}

/** The `--leader-elect*` flags of a leader-elected component, parsed. */
export interface LeaderElectFlags {
  leaderElect: boolean;
  leaderElectLeaseDurationMs: number;
  leaderElectRenewDeadlineMs: number;
  leaderElectRetryPeriodMs: number;
  leaderElectResourceNamespace: string;
  leaderElectResourceName: string;
}

export type FlagsResult<T> = { kind: "options"; options: T } | { kind: "exit"; code: number; stdout: string; stderr: string };

/**
 * Parses a command's flags without ever exiting the process: `--help` gives exit 0 with the help
 * text; a commander error or a FlagError thrown by `build` gives exit 2 with a one-line message.
 * `cmd` must use `exitOverride()`.
 */
export function parseFlags<T, O = Record<string, unknown>>(cmd: Command, argv: string[], build: (opts: O) => T): FlagsResult<T> {
  let stdout = "";
  cmd.configureOutput({ writeOut: (s) => (stdout += s), writeErr: () => undefined });
  try {
    cmd.parse(argv, { from: "user" });
    return { kind: "options", options: build(cmd.opts<O & Record<string, unknown>>()) };
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return { kind: "exit", code: 0, stdout, stderr: "" };
      return { kind: "exit", code: 2, stdout: "", stderr: `error: ${err.message.replace(/^error: /, "").split("\n")[0]}\n` };
    }
    if (err instanceof FlagError) return { kind: "exit", code: 2, stdout: "", stderr: `error: ${err.message}\n` };
    throw err;
  }
}
