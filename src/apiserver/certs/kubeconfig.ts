// Kubeconfig files as kubectl and client-node read them (clusters/users/contexts, *-data base64).
import { stringify } from "yaml";
import { writeAtomic } from "./pki.ts";

export type KubeconfigUser = { certPem: string; keyPem: string } | { token: string };

export interface KubeconfigOptions {
  server: string;
  caPem: string;
  clusterName: string;
  userName: string;
  user: KubeconfigUser;
  /** Default `<clusterName>`. */
  contextName?: string;
  namespace?: string;
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

/** The kubeconfig as a plain object (e.g. to embed in a Secret). */
export function kubeconfigObject(o: KubeconfigOptions): Record<string, unknown> {
  const contextName = o.contextName ?? o.clusterName;
  const user =
    "token" in o.user
      ? { token: o.user.token }
      : { "client-certificate-data": b64(o.user.certPem), "client-key-data": b64(o.user.keyPem) };
  const context: Record<string, string> = { cluster: o.clusterName, user: o.userName };
  if (o.namespace) context.namespace = o.namespace;
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: o.clusterName, cluster: { server: o.server, "certificate-authority-data": b64(o.caPem) } }],
    users: [{ name: o.userName, user }],
    contexts: [{ name: contextName, context }],
    "current-context": contextName,
    preferences: {},
  };
}

export function kubeconfigYaml(o: KubeconfigOptions): string {
  return stringify(kubeconfigObject(o));
}

/** Writes the kubeconfig with mode 0600 (it holds credentials). */
export async function writeKubeconfig(path: string, o: KubeconfigOptions): Promise<void> {
  await writeAtomic(path, kubeconfigYaml(o), 0o600);
}
