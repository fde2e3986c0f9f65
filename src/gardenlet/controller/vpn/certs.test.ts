import assert from "node:assert/strict";
import { test } from "node:test";
import { EC_P256 } from "../../../apiserver/certs/keys.ts";
import { createCertificateAuthority, issueClientCertificate } from "../../../apiserver/certs/issue.ts";
import { isTlsAuthKey, mustRenew, renewAtMs, signedBy, validityOf } from "./certs.ts";

const DAY = 24 * 60 * 60 * 1000;

test("renewal: after 80 % of the validity, or when less than 10 days remain", () => {
  assert.equal(renewAtMs({ notBeforeMs: 0, notAfterMs: 365 * DAY }), 292 * DAY);
  assert.equal(renewAtMs({ notBeforeMs: 0, notAfterMs: 30 * DAY }), 20 * DAY, "short validity: 10 days before the end");
  assert.equal(mustRenew(undefined, 0), true);
  assert.equal(mustRenew("garbage", 0), true);
});

test("a certificate counts as ours only when the current CA signed it", async () => {
  const now = new Date(Date.UTC(2026, 0, 1));
  const ca = await createCertificateAuthority({ commonName: "vpn", alg: EC_P256, now });
  const other = await createCertificateAuthority({ commonName: "vpn", alg: EC_P256, now });
  const leaf = await issueClientCertificate(ca, { commonName: "vpn-shoot-client", alg: EC_P256, now, days: 365 });
  assert.equal(signedBy(leaf.certPem, ca.certPem), true);
  assert.equal(signedBy(leaf.certPem, other.certPem), false, "same CN, other key");
  assert.equal(signedBy(leaf.certPem, "not a pem"), false);
  const v = validityOf(leaf.certPem)!;
  assert.equal(mustRenew(leaf.certPem, v.notBeforeMs + 0.79 * (v.notAfterMs - v.notBeforeMs)), false);
  assert.equal(mustRenew(leaf.certPem, v.notBeforeMs + 0.8 * (v.notAfterMs - v.notBeforeMs)), true);
});

test("tls-auth keys must have the openvpn --genkey format", () => {
  const key = ["-----BEGIN OpenVPN Static key V1-----", ...Array.from({ length: 16 }, () => "0123456789abcdef0123456789abcdef"), "-----END OpenVPN Static key V1-----", ""].join("\n");
  assert.equal(isTlsAuthKey(key), true);
  assert.equal(isTlsAuthKey(key.replace("0123", "0123\n")), false);
  assert.equal(isTlsAuthKey(key.toUpperCase()), false);
  assert.equal(isTlsAuthKey(undefined), false);
});
