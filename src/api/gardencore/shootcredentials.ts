// Where the garden keeps what `shoots/adminkubeconfig` is answered from (docs/terminals.md#shoot-credentials):
// the ConfigMap `<shoot>.ca-cluster` (key ca.crt) in the project namespace, readable by the project's
// members and viewers, and the shoot's client CA in namespace `garden`, where project members have no access.

/** A namespace only operators read. */
export const CA_CLIENT_NAMESPACE = "garden";

export const caClusterConfigMapName = (shoot: string): string => `${shoot}.ca-cluster`;

/** Namespaces and shoot names are DNS labels (no dots), so `<namespace>.<shoot>.ca-client` names one shoot's CA. */
export const caClientSecretName = (namespace: string, shoot: string): string => `${namespace}.${shoot}.ca-client`;
