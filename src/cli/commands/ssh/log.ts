// The CLI's stderr log (docs/gardenctl-ssh.md#output-and-exit-codes): one line per entry, `<message> key="value" ...`; warnings are
// prefixed `Warning: `; entries above the chosen verbosity are dropped. A progress line (the
// spinner) is cleared before any other line is written.
import type { Writable } from "node:stream";

export type Fields = Record<string, string | number | boolean | string[] | undefined>;

export class Logger {
  private spinnerShown = false;

  constructor(
    private readonly out: Writable,
    readonly verbosity = 0,
  ) {}

  info(message: string, fields: Fields = {}, level = 0): void {
    if (level > this.verbosity) return;
    this.line(format(message, fields));
  }

  debug(message: string, fields: Fields = {}): void {
    this.info(message, fields, 4);
  }

  warn(message: string, fields: Fields = {}): void {
    this.line(`Warning: ${format(message, fields)}`);
  }

  /** Writes raw text (prompts, banners) after clearing the spinner. */
  raw(text: string): void {
    this.clearSpinner();
    this.out.write(text);
  }

  /** Redraws the single spinner line (TTY only). */
  spinner(text: string): void {
    this.out.write(`\r\x1b[2K${text}`);
    this.spinnerShown = true;
  }

  clearSpinner(): void {
    if (!this.spinnerShown) return;
    this.out.write("\r\x1b[2K");
    this.spinnerShown = false;
  }

  private line(text: string): void {
    this.clearSpinner();
    this.out.write(`${text}\n`);
  }
}

export function format(message: string, fields: Fields): string {
  const parts = [message];
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    const s = Array.isArray(v) ? `[${v.join(" ")}]` : String(v);
    parts.push(`${k}=${JSON.stringify(s)}`);
  }
  return parts.join(" ");
}
