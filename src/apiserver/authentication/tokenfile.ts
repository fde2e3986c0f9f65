// Static bearer tokens from `--token-auth-file` (kube-apiserver's format): one CSV record per line,
// `token,user,uid[,"group1,group2"]`; blank lines are skipped; later duplicates win.
import { readFileSync } from "node:fs";
import type { TokenAuthResult, TokenAuthenticator, UserInfo } from "./types.ts";

export class TokenFileAuthenticator implements TokenAuthenticator {
  private readonly tokens: Map<string, UserInfo>;

  constructor(tokens: Map<string, UserInfo>) {
    this.tokens = tokens;
  }

  static fromFile(path: string): TokenFileAuthenticator {
    return new TokenFileAuthenticator(parseTokenFile(readFileSync(path, "utf8"), path));
  }

  static fromText(text: string, source = "token file"): TokenFileAuthenticator {
    return new TokenFileAuthenticator(parseTokenFile(text, source));
  }

  get size(): number {
    return this.tokens.size;
  }

  authenticateToken(token: string): Promise<TokenAuthResult | undefined> {
    const user = this.tokens.get(token);
    // A copy: callers (group adders, impersonation) must not mutate the table.
    return Promise.resolve(user ? { user: { ...user, groups: [...user.groups] } } : undefined);
  }
}

/** Parses the CSV text; throws an Error naming the source and line for malformed records. */
export function parseTokenFile(text: string, source = "token file"): Map<string, UserInfo> {
  const out = new Map<string, UserInfo>();
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    const where = `${source}: line ${i + 1}`;
    const record = parseCsvLine(line, where);
    if (record.length < 3) {
      throw new Error(`${where}: must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    }
    const [token, name, uid, groups] = record as [string, string, string, string | undefined];
    if (token === "") throw new Error(`${where}: empty token`);
    if (name === "") throw new Error(`${where}: empty user name`);
    const user: UserInfo = { username: name, uid, groups: groups ? groups.split(",").filter((g) => g !== "") : [] };
    out.set(token, user);
  });
  return out;
}

/** One CSV record (RFC 4180 quoting, `""` escapes a quote; leading spaces of fields trimmed like Go's TrimLeadingSpace). */
function parseCsvLine(line: string, where: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    while (line[i] === " " || line[i] === "\t") i++;
    let field = "";
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) throw new Error(`${where}: unterminated quoted field`);
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i++];
      }
      if (i < line.length && line[i] !== ",") throw new Error(`${where}: extraneous text after quoted field`);
    } else {
      const end = line.indexOf(",", i);
      field = end < 0 ? line.slice(i) : line.slice(i, end);
      if (field.includes('"')) throw new Error(`${where}: bare " in non-quoted field`);
      i = end < 0 ? line.length : end;
    }
    fields.push(field);
    if (i >= line.length) return fields;
    i++; // the comma
  }
}
