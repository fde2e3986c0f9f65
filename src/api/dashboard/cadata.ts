// caData of a Terminal's target API server (docs/terminals.md#validating-webhook): empty, or PEM
// CERTIFICATE blocks that each parse as X.509 and nothing but whitespace after them (upstream's
// ValidateCAData and its messages). caData is base64 in JSON.
import { X509Certificate } from "node:crypto";

const BLOCK = /^-----BEGIN ([A-Z0-9 ]+)-----\r?\n([A-Za-z0-9+/=\r\n]*?)-----END \1-----\r?\n?/;

/** The problem with the bundle, or undefined when it is valid (or empty). At most 1 MiB is looked at. */
export function validateCAData(base64: string): string | undefined {
  const text = Buffer.from(base64.slice(0, 1.5 * 1024 * 1024), "base64").toString("latin1");
  let rest = text.replace(/^\s+/, "");
  let parsedAny = false;
  for (;;) {
    const start = rest.indexOf("-----BEGIN ");
    if (start < 0) break;
    const m = BLOCK.exec(rest.slice(start));
    if (!m) break;
    if (m[1] !== "CERTIFICATE") return `unexpected PEM block type ${JSON.stringify(m[1])} (expected CERTIFICATE)`;
    try {
      new X509Certificate(Buffer.from(m[2]!.replace(/\s+/g, ""), "base64"));
    } catch (err) {
      return `cannot parse X.509 certificate: ${(err as Error).message}`;
    }
    parsedAny = true;
    rest = rest.slice(start + m[0].length);
  }
  if (!parsedAny) return "CA bundle must contain at least one PEM-encoded certificate";
  return rest.trim() !== "" ? "CA bundle contains trailing non-PEM data" : undefined;
}
