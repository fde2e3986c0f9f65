// Parser for the JSONPath subset of jsonpath.ts: expressions become a list of segments.

export type Literal = string | number | boolean | null;

export type Segment =
  | { kind: "field"; name: string }
  | { kind: "wildcard" }
  | { kind: "recursive"; name: string | undefined }
  | { kind: "index"; index: number }
  | { kind: "slice"; start: number | undefined; end: number | undefined }
  | { kind: "filter"; path: Segment[]; op: string | undefined; value: Literal };

export class JSONPathError extends Error {
  constructor(expression: string, detail: string) {
    super(`invalid JSONPath ${JSON.stringify(expression)}: ${detail}`);
    this.name = "JSONPathError";
  }
}

export class Parser {
  private i = 0;
  constructor(
    private readonly src: string,
    private readonly expr: string,
  ) {}

  fail(detail: string): never {
    throw new JSONPathError(this.expr, detail);
  }

  done(): boolean {
    return this.i >= this.src.length;
  }

  peek(n = 0): string {
    return this.src[this.i + n] ?? "";
  }

  /** Segments until the end, or (inside a filter) until a comparison operator or ')'. */
  segments(inFilter: boolean): Segment[] {
    const segs: Segment[] = [];
    while (!this.done()) {
      const c = this.peek();
      if (inFilter && (c === ")" || c === " " || "=!<>".includes(c))) break;
      if (c === ".") {
        this.i++;
        if (this.peek() === ".") {
          this.i++;
          const name = this.peek() === "*" ? (this.i++, undefined) : this.name();
          segs.push({ kind: "recursive", name });
        } else if (this.peek() === "*") {
          this.i++;
          segs.push({ kind: "wildcard" });
        } else if (this.done() || this.peek() === "[") {
          // A lone "." (the current object) selects nothing more.
          continue;
        } else {
          segs.push({ kind: "field", name: this.name() });
        }
      } else if (c === "[") {
        segs.push(this.bracket());
      } else if (segs.length === 0 && !inFilter) {
        // kubectl tolerates a missing leading dot ("spec.x").
        segs.push({ kind: "field", name: this.name() });
      } else {
        this.fail(`unexpected ${JSON.stringify(c)} at position ${this.i}`);
      }
    }
    return segs;
  }

  name(): string {
    let out = "";
    while (!this.done()) {
      const c = this.peek();
      if (c === "\\" && this.i + 1 < this.src.length) {
        out += this.src[this.i + 1];
        this.i += 2;
        continue;
      }
      if (".[]()=!<> '\"".includes(c)) break;
      out += c;
      this.i++;
    }
    if (!out) this.fail(`missing field name at position ${this.i}`);
    return out;
  }

  bracket(): Segment {
    const close = (): void => {
      if (this.peek() !== "]") this.fail(`expected "]" at position ${this.i}`);
      this.i++;
    };
    this.i++; // [
    const c = this.peek();
    if (c === "'" || c === '"') {
      const name = this.quoted();
      close();
      return { kind: "field", name };
    }
    if (c === "*") {
      this.i++;
      close();
      return { kind: "wildcard" };
    }
    if (c === "?") {
      this.i++;
      if (this.peek() !== "(") this.fail(`expected "(" after "?" at position ${this.i}`);
      this.i++;
      const seg = this.filter();
      if (this.peek() !== ")") this.fail(`expected ")" at position ${this.i}`);
      this.i++;
      close();
      return seg;
    }
    const end = this.src.indexOf("]", this.i);
    if (end < 0) this.fail("unterminated [");
    const body = this.src.slice(this.i, end).trim();
    this.i = end + 1;
    const int = (s: string): number | undefined => {
      if (s === "") return undefined;
      if (!/^-?\d+$/.test(s)) this.fail(`invalid array index ${JSON.stringify(s)}`);
      return Number(s);
    };
    if (body.includes(":")) {
      const [a = "", b = ""] = body.split(":");
      return { kind: "slice", start: int(a.trim()), end: int(b.trim()) };
    }
    const index = int(body);
    if (index === undefined) this.fail("empty []");
    return { kind: "index", index };
  }

  quoted(): string {
    const q = this.peek();
    this.i++;
    let out = "";
    while (!this.done() && this.peek() !== q) {
      if (this.peek() === "\\" && this.i + 1 < this.src.length) this.i++;
      out += this.peek();
      this.i++;
    }
    if (this.done()) this.fail("unterminated string");
    this.i++;
    return out;
  }

  filter(): Segment {
    this.skipSpaces();
    if (this.peek() !== "@") this.fail(`filter must start with "@" at position ${this.i}`);
    this.i++;
    const path = this.segments(true);
    this.skipSpaces();
    const op = ["==", "!=", "<=", ">=", "<", ">"].find((o) => this.src.startsWith(o, this.i));
    if (!op) return { kind: "filter", path, op: undefined, value: null };
    this.i += op.length;
    this.skipSpaces();
    const value = this.literal();
    this.skipSpaces();
    return { kind: "filter", path, op, value };
  }

  literal(): Literal {
    const c = this.peek();
    if (c === "'" || c === '"') return this.quoted();
    const m = /^(-?\d+(?:\.\d+)?|true|false|null)/.exec(this.src.slice(this.i));
    if (!m) this.fail(`invalid literal at position ${this.i}`);
    this.i += m[1]!.length;
    return m[1] === "true" ? true : m[1] === "false" ? false : m[1] === "null" ? null : Number(m[1]);
  }

  skipSpaces(): void {
    while (this.peek() === " ") this.i++;
  }
}
