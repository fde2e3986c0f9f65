// A kubeconfig that arrives as data (a Secret's `kubeconfig` key, docs/terminals.md#seed-hosts) must
// carry everything inline: a file path, a token file, an exec plugin or an auth provider would make
// the reader use its own files or run its own programs on a stranger's say.
import { KubeConfig } from "@kubernetes/client-node";
import { parse } from "yaml";

export class UnsafeKubeconfigError extends Error {
  override readonly name = "UnsafeKubeconfigError";
}

const FILE_KEYS = { cluster: ["certificate-authority"], user: ["client-certificate", "client-key", "token-file", "tokenFile", "exec", "auth-provider"] } as const;

/** Every cluster's and user's keys that would read a file or run a program, before anything reads them. */
function fromFiles(doc: unknown): string[] {
  const found = new Set<string>();
  const d = (doc ?? {}) as Record<string, unknown>;
  for (const [list, field, keys] of [["clusters", "cluster", FILE_KEYS.cluster], ["users", "user", FILE_KEYS.user]] as const) {
    for (const entry of Array.isArray(d[list]) ? (d[list] as Record<string, unknown>[]) : []) {
      const v = (entry?.[field] ?? {}) as Record<string, unknown>;
      for (const k of keys) if (v[k] !== undefined && v[k] !== null) found.add(k);
    }
  }
  return [...found];
}

/** Parses a kubeconfig and keeps only its current context's cluster and user, all inline. */
export function inlineKubeConfig(text: string, what: string): KubeConfig {
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 10 });
  } catch (err) {
    throw new UnsafeKubeconfigError(`${what}: not a kubeconfig: ${(err as Error).message}`);
  }
  const files = fromFiles(doc);
  if (files.length) throw new UnsafeKubeconfigError(`${what}: the kubeconfig must carry its credentials inline, not ${files.join(", ")}`);
  const kc = new KubeConfig();
  try {
    kc.loadFromString(text);
  } catch (err) {
    throw new UnsafeKubeconfigError(`${what}: not a kubeconfig: ${(err as Error).message}`);
  }
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster || !user) throw new UnsafeKubeconfigError(`${what}: the kubeconfig has no current context with a cluster and a user`);
  if (!/^https:\/\//.test(cluster.server) || cluster.skipTLSVerify) throw new UnsafeKubeconfigError(`${what}: the kubeconfig's server must be https and verified`);
  const out = new KubeConfig();
  out.loadFromOptions({ clusters: [cluster], users: [user], contexts: [{ name: "c", cluster: cluster.name, user: user.name }], currentContext: "c" });
  return out;
}
