// Lexer and recursive-descent parser for the label selector syntax of
// k8s.io/apimachinery/pkg/labels/selector.go. Error texts follow Go's so users see familiar messages.
import { Path, formatFieldError } from "../field/errors.ts";
import { type Operator, type Requirement, SelectorSyntaxError, labelKeyError, newRequirement } from "./requirement.ts";

type TokenType =
  | "identifier"
  | "in"
  | "notin"
  | "!"
  | "="
  | "=="
  | "!="
  | ">"
  | "<"
  | "("
  | ")"
  | ","
  | "end";

interface Token {
  type: TokenType;
  literal: string;
}

const SPECIAL = new Set(["=", "!", "(", ")", ",", ">", "<"]);
const SYMBOLS: readonly TokenType[] = ["!=", "==", "=", "!", "(", ")", ",", ">", "<"];
const isSpace = (c: string): boolean => c === " " || c === "\t" || c === "\r" || c === "\n";

function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  while (pos < input.length) {
    const c = input[pos]!;
    if (isSpace(c)) {
      pos++;
    } else if (SPECIAL.has(c)) {
      // Longest match: "!=" and "==" before "!" and "=".
      const sym = SYMBOLS.find((s) => input.startsWith(s, pos))!;
      tokens.push({ type: sym, literal: sym });
      pos += sym.length;
    } else {
      const start = pos;
      while (pos < input.length && !isSpace(input[pos]!) && !SPECIAL.has(input[pos]!)) pos++;
      const word = input.slice(start, pos);
      tokens.push({ type: word === "in" || word === "notin" ? word : "identifier", literal: word });
    }
  }
  tokens.push({ type: "end", literal: "" });
  return tokens;
}

const BINARY_OPERATORS = "in, notin, =, ==, !=, gt, lt";

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  /** Outside operator position, the keywords "in" and "notin" are plain identifiers. */
  private lookahead(): Token {
    const t = this.tokens[this.pos]!;
    return t.type === "in" || t.type === "notin" ? { type: "identifier", literal: t.literal } : t;
  }
  private consume(): Token {
    const t = this.lookahead();
    this.pos = Math.min(this.pos + 1, this.tokens.length - 1);
    return t;
  }
  private consumeOperatorToken(): Token {
    const t = this.tokens[this.pos]!;
    this.pos = Math.min(this.pos + 1, this.tokens.length - 1);
    return t;
  }

  parse(): Requirement[] {
    const out: Requirement[] = [];
    for (;;) {
      const t = this.lookahead();
      if (t.type === "end") return out;
      if (t.type !== "identifier" && t.type !== "!") {
        throw new SelectorSyntaxError(`found '${t.literal}', expected: !, identifier, or 'end of string'`);
      }
      try {
        out.push(this.parseRequirement());
      } catch (err) {
        if (err instanceof SelectorSyntaxError) throw new SelectorSyntaxError(`unable to parse requirement: ${err.message}`);
        throw err;
      }
      const sep = this.consume();
      if (sep.type === "end") return out;
      if (sep.type !== ",") throw new SelectorSyntaxError(`found '${sep.literal}', expected: ',' or 'end of string'`);
      const next = this.lookahead();
      if (next.type !== "identifier" && next.type !== "!") {
        throw new SelectorSyntaxError(`found '${next.literal}', expected: identifier after ','`);
      }
    }
  }

  private parseRequirement(): Requirement {
    let t = this.consume();
    let unary: Operator | undefined;
    if (t.type === "!") {
      unary = "!";
      t = this.consume();
    }
    if (t.type !== "identifier") throw new SelectorSyntaxError(`found '${t.literal}', expected: identifier`);
    const key = t.literal;
    const keyErr = labelKeyError(key, Path.root("key"));
    if (keyErr) throw new SelectorSyntaxError(formatFieldError(keyErr));
    const next = this.lookahead().type;
    if (unary === undefined && (next === "end" || next === ",")) unary = "exists";
    if (unary) return newRequirement(key, unary, []);

    const operator = this.parseOperator();
    const values = operator === "in" || operator === "notin" ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, operator, values);
  }

  private parseOperator(): Operator {
    const t = this.consumeOperatorToken();
    switch (t.type) {
      case "in":
        return "in";
      case "notin":
        return "notin";
      case "=":
        return "=";
      case "==":
        return "==";
      case "!=":
        return "!=";
      case ">":
        return "gt";
      case "<":
        return "lt";
      default:
        throw new SelectorSyntaxError(`found '${t.literal}', expected: ${BINARY_OPERATORS}`);
    }
  }

  /** `(a,b)`; empty slots such as `()`, `(,a)` and `(a,)` stand for the empty value. */
  private parseValues(): string[] {
    const open = this.consume();
    if (open.type !== "(") throw new SelectorSyntaxError(`found '${open.literal}' expected: '('`);
    const t = this.lookahead();
    if (t.type === ")") {
      this.consume();
      return [""];
    }
    if (t.type !== "identifier" && t.type !== ",") {
      throw new SelectorSyntaxError(`found '${t.literal}', expected: ',', ')' or identifier`);
    }
    const values = this.parseIdentifiersList();
    const close = this.consume();
    if (close.type !== ")") throw new SelectorSyntaxError(`found '${t.literal}', expected: ')'`);
    return values;
  }

  private parseIdentifiersList(): string[] {
    const s = new Set<string>();
    for (;;) {
      const t = this.consume();
      if (t.type === "identifier") {
        s.add(t.literal);
        const next = this.lookahead();
        if (next.type === ",") continue;
        if (next.type === ")") return [...s];
        throw new SelectorSyntaxError(`found '${next.literal}', expected: ',' or ')'`);
      } else if (t.type === ",") {
        if (s.size === 0) s.add(""); // "(,"
        const next = this.lookahead();
        if (next.type === ")") {
          s.add(""); // ",)"
          return [...s];
        }
        if (next.type === ",") {
          this.consume();
          s.add(""); // ",,"
        }
      } else {
        throw new SelectorSyntaxError(`found '${t.literal}', expected: ',', or identifier`);
      }
    }
  }

  /** The single value after =, ==, !=, > or <; nothing before ',' or the end means "". */
  private parseExactValue(): string[] {
    const t = this.lookahead();
    if (t.type === "end" || t.type === ",") return [""];
    const v = this.consume();
    if (v.type === "identifier") return [v.literal];
    throw new SelectorSyntaxError(`found '${v.literal}', expected: identifier`);
  }
}

/** Parses selector text into requirements sorted by key; throws SelectorSyntaxError. */
export function parseRequirements(text: string): Requirement[] {
  const reqs = new Parser(lex(text)).parse();
  return reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
