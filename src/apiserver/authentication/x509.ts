// Client-certificate authentication ([as] pkg/authentication/request/x509): CN is the user
// name, each O is a group. The HTTP layer verifies the chain against --client-ca-file (TLS
// `requestCert: true`, `rejectUnauthorized: false`) and passes the certificate only when
// `socket.authorized`; an unverified certificate never reaches this authenticator.
import { StatusError } from "../../apimachinery/errors.ts";
import type { AuthenticationRequest, RequestAuthenticator, UserInfo } from "./types.ts";

const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const ANY_EXTENDED_KEY_USAGE = "2.5.29.37.0";

export class X509Authenticator implements RequestAuthenticator {
  authenticate(req: AuthenticationRequest): Promise<UserInfo | undefined> {
    const cert = req.peerCertificate;
    if (!cert) return Promise.resolve(undefined);
    // Like Go's chain verification with ExtKeyUsageClientAuth: a certificate restricted to other
    // usages (e.g. a serving certificate) is not a client credential. OpenSSL's purpose check at the handshake
    // usually refuses it already; this check does not rely on that.
    const eku = cert.ext_key_usage;
    if (eku && eku.length > 0 && !eku.includes(CLIENT_AUTH) && !eku.includes(ANY_EXTENDED_KEY_USAGE)) {
      return Promise.reject(new StatusError(401, "Unauthorized", "x509: certificate specifies an incompatible key usage"));
    }
    return Promise.resolve(userFromCertificateSubject(cert.subject));
  }
}

/** undefined without a subject or with an empty CN (kube: no opinion). */
export function userFromCertificateSubject(subject: { CN?: string; O?: string | string[] } | undefined): UserInfo | undefined {
  if (!subject) return undefined;
  // Node gives an array when the attribute repeats, a string otherwise.
  const cn = Array.isArray(subject.CN) ? (subject.CN as string[])[0] : subject.CN;
  if (!cn) return undefined;
  const o = subject.O;
  const groups = o === undefined ? [] : Array.isArray(o) ? [...o] : [o];
  return { username: cn, groups };
}
