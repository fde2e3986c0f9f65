// authentication.k8s.io/v1: TokenReview, SelfSubjectReview and TokenRequest (the
// serviceaccounts/token subresource's kind), as plain JSON interfaces.
import type { KubeObject } from "../../meta/v1/types.ts";

export const GROUP = "authentication.k8s.io";
export const VERSION = "v1";
export const API_VERSION = `${GROUP}/${VERSION}`;

/** The API shape of a user (same fields as the server's internal UserInfo). */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface TokenReviewSpec {
  token?: string;
  audiences?: string[];
}

export interface TokenReviewStatus {
  authenticated?: boolean;
  user?: UserInfo;
  audiences?: string[];
  error?: string;
}

export interface TokenReview extends KubeObject {
  spec: TokenReviewSpec;
  status?: TokenReviewStatus;
}

export interface SelfSubjectReview extends KubeObject {
  status?: { userInfo: UserInfo };
}

export interface BoundObjectReference {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

export interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef?: BoundObjectReference;
}

export interface TokenRequestStatus {
  token: string;
  /** RFC 3339, second precision. */
  expirationTimestamp: string;
}

export interface TokenRequest extends KubeObject {
  spec: TokenRequestSpec;
  status?: TokenRequestStatus;
}
