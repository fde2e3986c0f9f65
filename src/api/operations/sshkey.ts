// One authorized_keys entry without options (docs/bastion.md#validation-on-create, docs/bastion.md#d6-one-key-and-injection-safe-userdata): after trimming
// surrounding ASCII whitespace, a single line without control characters of the form
// `<type> <base64> [comment]`, where the blob is standard padded base64 of a well-formed key whose
// embedded type equals <type>. Options, `#` lines, blank values and further keys are rejected.
import { MAX_BLOB_BYTES, SSH_KEY_TYPES, SSHKeyError, parsePublicKeyBlob } from "./sshwire.ts";

export { SSH_KEY_TYPES, SSHKeyError, parsePublicKeyBlob } from "./sshwire.ts";

/**
 * The longest entry accepted: the base64 of the largest blob OpenSSH handles plus room for the
 * type and a comment. Checked before any parsing, so the work per key is bounded.
 */
export const MAX_AUTHORIZED_KEY_LENGTH = 32 * 1024;
const MAX_BASE64_LENGTH = Math.ceil(MAX_BLOB_BYTES / 3) * 4;

export interface AuthorizedKey {
  type: string;
  /** The decoded wire-format blob. */
  blob: Buffer;
  /** The rest of the line after the blob ("" when absent). */
  comment: string;
  /** The trimmed entry as given. */
  line: string;
}

const SURROUNDING_WHITESPACE = /^[ \t\r\n\v\f]+|[ \t\r\n\v\f]+$/g;
/** C0 and C1 control characters, DEL, and the Unicode line and paragraph separators. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const BASE64_CHARS = /^[A-Za-z0-9+/]+={0,2}$/;
const ENTRY = /^([^ ]+) +([^ ]+)(?: +(.*))?$/;

/** Removes surrounding spaces, tabs and line breaks (the only normalisation a key gets). */
export function trimKey(value: string): string {
  return value.replace(SURROUNDING_WHITESPACE, "");
}

/** Parses one entry; throws SSHKeyError saying what is wrong. */
export function parseAuthorizedKey(value: string): AuthorizedKey {
  if (value.length > MAX_AUTHORIZED_KEY_LENGTH) throw new SSHKeyError(`key longer than ${MAX_AUTHORIZED_KEY_LENGTH} characters`);
  const line = trimKey(value);
  if (line === "") throw new SSHKeyError("empty key");
  if (CONTROL.test(line)) throw new SSHKeyError("key must be a single line without control characters");
  const m = ENTRY.exec(line);
  if (!m) throw new SSHKeyError("key must have the form <type> <base64> [comment]");
  const [, type, b64, comment] = m as unknown as [string, string, string, string | undefined];
  if (!SSH_KEY_TYPES.includes(type)) throw new SSHKeyError(`unsupported key type ${JSON.stringify(type)}`);
  if (b64.length > MAX_BASE64_LENGTH) throw new SSHKeyError(`key data longer than ${MAX_BLOB_BYTES} bytes`);
  if (b64.length % 4 !== 0 || !BASE64_CHARS.test(b64)) throw new SSHKeyError("key data is not standard base64");
  const blob = Buffer.from(b64, "base64");
  const embedded = parsePublicKeyBlob(blob).type;
  if (embedded !== type) throw new SSHKeyError(`key type ${JSON.stringify(type)} does not match the key data (${JSON.stringify(embedded)})`);
  return { type, blob, comment: comment ?? "", line };
}

export function isValidAuthorizedKey(value: string): boolean {
  try {
    parseAuthorizedKey(value);
    return true;
  } catch (err) {
    if (err instanceof SSHKeyError) return false;
    throw err;
  }
}

/** `"<type> <base64>"` of a key, without comment (the form of status.sshHostKeys, docs/bastion.md#d8-published-host-keys). */
export function formatPublicKey(key: Pick<AuthorizedKey, "type" | "blob">): string {
  return `${key.type} ${key.blob.toString("base64")}`;
}
