// The egress proxy's credential files (docs/reversed-vpn.md#health): read at start and again on each poll of the
// vpn-seed-server, each bounded in size.
import { open } from "node:fs/promises";
import type { EgressCredentials } from "./egressproxy.ts";

/** Where the egress proxy's credentials are; the vpn-seed-server reads them again on each poll (reload in place). */
export interface CredentialFiles {
  cert: string;
  key: string;
  ca: string;
}

/** A credential file is at most this large (a bundle of a few certificates is a few KiB). */
export const MAX_CREDENTIAL_FILE_BYTES = 256 * 1024;

async function readBounded(file: string): Promise<string> {
  const h = await open(file, "r");
  try {
    const buf = Buffer.alloc(MAX_CREDENTIAL_FILE_BYTES + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await h.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n > MAX_CREDENTIAL_FILE_BYTES) throw new Error(`${file} exceeds ${MAX_CREDENTIAL_FILE_BYTES} bytes`);
    }
    return buf.subarray(0, n).toString("utf8");
  } finally {
    await h.close();
  }
}

/** The egress proxy's certificate, key and client CA bundle, each file bounded in size. */
export async function readCredentialFiles(f: CredentialFiles): Promise<EgressCredentials> {
  const [certPem, keyPem, caBundlePem] = await Promise.all([f.cert, f.key, f.ca].map(readBounded));
  return { certPem: certPem!, keyPem: keyPem!, caBundlePem: caBundlePem! };
}
