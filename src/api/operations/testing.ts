// Test support: real SSH public keys made with node:crypto and encoded in the SSH wire format,
// so tests need no ssh-keygen.
import { generateKeyPairSync } from "node:crypto";

function sshString(b: Buffer | string): Buffer {
  const data = typeof b === "string" ? Buffer.from(b, "latin1") : b;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  return Buffer.concat([len, data]);
}

/** A fresh `ssh-ed25519 <base64> <comment>` authorized_keys entry. */
export function ed25519AuthorizedKey(comment = "user@example"): string {
  const { publicKey } = generateKeyPairSync("ed25519");
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x ?? "", "base64url");
  const blob = Buffer.concat([sshString("ssh-ed25519"), sshString(raw)]);
  return `ssh-ed25519 ${blob.toString("base64")}${comment ? ` ${comment}` : ""}`;
}
