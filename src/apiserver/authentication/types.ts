// Who is asking: the result of authentication, passed to authorization, admission and strategies.

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const ANONYMOUS_USER = "system:anonymous";
export const GROUP_AUTHENTICATED = "system:authenticated";
export const GROUP_UNAUTHENTICATED = "system:unauthenticated";
export const GROUP_MASTERS = "system:masters";

/** Authenticates one request from its headers and TLS peer certificate. */
export interface RequestAuthenticator {
  /** undefined: this authenticator has no opinion (no credential of its kind); throws StatusError 401 on a bad credential. */
  authenticate(req: AuthenticationRequest): Promise<UserInfo | undefined>;
}

export interface AuthenticationRequest {
  headers: Record<string, string | string[] | undefined>;
  /** DER of the verified client certificate chain's leaf, when the TLS peer presented one signed by the client CA. */
  peerCertificate?: { subject: { CN?: string; O?: string | string[] } };
}
