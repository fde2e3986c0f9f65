// Node identities as kube-apiserver recognises them (pkg/auth/nodeidentifier): user
// `system:node:<name>` in group `system:nodes`. Both must hold; a user with the prefix and the
// group but no name is a node whose name is unknown (its requests are refused).
export const NODES_GROUP = "system:nodes";
export const NODE_USER_PREFIX = "system:node:";

export interface NodeIdentity {
  /** "" when the user is a node of unknown name. */
  nodeName: string;
}

/** The node a user acts for, or undefined when the user is not a node identity. */
export function nodeIdentity(user: { username: string; groups?: readonly string[] }): NodeIdentity | undefined {
  if (!user.username.startsWith(NODE_USER_PREFIX)) return undefined;
  if (!user.groups?.includes(NODES_GROUP)) return undefined;
  return { nodeName: user.username.slice(NODE_USER_PREFIX.length) };
}

/** The user name of a node's client certificate (CN). */
export function nodeUserName(node: string): string {
  return `${NODE_USER_PREFIX}${node}`;
}
