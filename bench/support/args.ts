// Command-line flags of a benchmark: every flag with its default and one line of help, `--help`
// that prints them, and a clear error (exit 2) for an unknown flag or a value that is not a count.
import { parseArgs } from "node:util";

export interface BenchOption {
  type: "string" | "boolean";
  default?: string | boolean;
  /** One line: what the flag sets. */
  help: string;
  short?: string;
}

type Value<O extends BenchOption> = O["type"] extends "boolean" ? boolean : string;
/** A flag without a default is undefined when not given. */
type Values<T extends Record<string, BenchOption>> = { [K in keyof T]: T[K] extends { default: string | boolean } ? Value<T[K]> : Value<T[K]> | undefined };

export interface BenchArgs<T extends Record<string, BenchOption>> {
  values: Values<T>;
  /** The flag's value as a whole number >= min (default 0); anything else is a usage error. */
  count(key: keyof T & string, min?: number): number;
  /** A comma-separated list of whole numbers >= min. */
  counts(key: keyof T & string, min?: number): number[];
  /** The flag's value when it is one of `allowed`; anything else is a usage error. */
  choice<C extends string>(key: keyof T & string, allowed: readonly C[]): C;
}

export type ParsedBenchArgs<T extends Record<string, BenchOption>> = { kind: "help"; text: string } | { kind: "error"; text: string } | { kind: "ok"; args: BenchArgs<T> };

/** The usage text: the command, what it measures, each flag with its default. */
export function benchUsage(command: string, summary: string, options: Record<string, BenchOption>): string {
  const flags = Object.entries(options).map(([flag, o]) => {
    const left = `  ${o.short ? `-${o.short}, ` : ""}--${flag}${o.type === "string" ? " V" : ""}`;
    const def = o.default === undefined || o.default === false ? "" : ` (default ${o.default === true ? "on" : o.default})`;
    return `${left.padEnd(28)} ${o.help}${def}`;
  });
  return [`usage: ${command} [flags]`, "", summary, "", "flags:", ...flags, `${"  -h, --help".padEnd(28)} this text`].join("\n");
}

export class BenchUsageError extends Error {}

/** Parses `argv` against the options; never exits (benchArgs does). */
export function parseBenchArgs<T extends Record<string, BenchOption>>(command: string, summary: string, options: T, argv: string[]): ParsedBenchArgs<T> {
  const usage = benchUsage(command, summary, options);
  // Errors name the benchmark (bench/x or bench:x), not the whole command line of the usage.
  const name = /bench[:/][\w-]+(\/[\w-]+\.ts)?/.exec(command)?.[0] ?? command;
  const spec = Object.fromEntries(
    Object.entries(options).map(([flag, o]) => [flag, { type: o.type, ...(o.default !== undefined ? { default: o.default } : {}), ...(o.short ? { short: o.short } : {}) }]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options: { ...spec, help: { type: "boolean", short: "h", default: false } }, allowPositionals: false }).values as typeof values;
  } catch (err) {
    return { kind: "error", text: `${name}: ${(err as Error).message}\n\n${usage}` };
  }
  if (values.help) return { kind: "help", text: usage };
  const count = (key: string, min = 0): number => {
    const raw = String(values[key] ?? "");
    const v = Number(raw);
    if (raw.trim() === "" || !Number.isInteger(v) || v < min) throw new BenchUsageError(`${name}: --${key} "${raw}" is not a whole number >= ${min}\n\n${usage}`);
    return v;
  };
  const args: BenchArgs<T> = {
    values: values as Values<T>,
    count,
    counts: (key, min = 0) =>
      String(values[key] ?? "")
        .split(",")
        .map((part, i) => {
          const v = Number(part.trim());
          if (part.trim() === "" || !Number.isInteger(v) || v < min) throw new BenchUsageError(`${name}: --${key}: item ${i + 1} "${part}" is not a whole number >= ${min}\n\n${usage}`);
          return v;
        }),
    choice: <C extends string>(key: string, allowed: readonly C[]): C => {
      const raw = String(values[key] ?? "");
      if (!(allowed as readonly string[]).includes(raw)) throw new BenchUsageError(`${name}: --${key} "${raw}" is not one of ${allowed.join(", ")}\n\n${usage}`);
      return raw as C;
    },
  };
  return { kind: "ok", args };
}

/** As parseBenchArgs, for a benchmark's main: prints the help (exit 0) or the usage error (exit 2). */
export function benchArgs<T extends Record<string, BenchOption>>(command: string, summary: string, options: T, argv = process.argv.slice(2)): BenchArgs<T> {
  const parsed = parseBenchArgs(command, summary, options, argv);
  if (parsed.kind === "help") {
    console.log(parsed.text);
    process.exit(0);
  }
  if (parsed.kind === "error") exitUsage(parsed.text);
  const { args } = parsed;
  const guard =
    <A extends unknown[], R>(f: (...a: A) => R) =>
    (...a: A): R => {
      try {
        return f(...a);
      } catch (err) {
        if (err instanceof BenchUsageError) exitUsage(err.message);
        throw err;
      }
    };
  return { values: args.values, count: guard(args.count), counts: guard(args.counts), choice: guard(args.choice) as BenchArgs<T>["choice"] };
}

function exitUsage(text: string): never {
  console.error(text);
  process.exit(2);
}
