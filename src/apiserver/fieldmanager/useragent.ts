// The manager of a write without ?fieldManager: the User-Agent up to its first "/", printable
// characters only, at most 128 bytes (kube-apiserver's prefixFromUserAgent).
export const FIELD_MANAGER_MAX_BYTES = 128;

export function managerFromUserAgent(userAgent: string | undefined): string {
  const prefix = (userAgent ?? "").split("/")[0]!;
  let out = "";
  let bytes = 0;
  for (const ch of prefix) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    const n = Buffer.byteLength(ch);
    if (bytes + n > FIELD_MANAGER_MAX_BYTES) break;
    out += ch;
    bytes += n;
  }
  return out;
}
