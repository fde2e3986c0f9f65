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
  peerCertificate?: {
    subject: { CN?: string; O?: string | string[] };
    /** Extended key usage OIDs, as Node's getPeerCertificate() reports them; checked for clientAuth when present. */
    ext_key_usage?: string[];
  };
}

/** Result of a token authenticator: the user and the audiences the token is valid for. */
export interface TokenAuthResult {
  user: UserInfo;
  /**
   * Audiences (of the requested ones) the token is valid for. undefined: the authenticator does
   * not know audiences (static tokens); the union then applies the server's API audiences.
   */
  audiences?: string[];
}

/** Authenticates a bearer token (Authorization header, WebSocket protocol, TokenReview). */
export interface TokenAuthenticator {
  /**
   * undefined: not a token of this kind (no opinion). Throws StatusError 401 whose message says
   * why, when the token is of this kind but invalid (expired, bad signature, deleted owner...).
   * `audiences`: the audiences the caller wants (TokenReview's spec.audiences); default the API audiences.
   */
  authenticateToken(token: string, audiences?: string[]): Promise<TokenAuthResult | undefined>;
}
