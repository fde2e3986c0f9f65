// Reads the admin kubeconfig the server writes and derives other kubeconfigs from it
// (token users for RBAC tests), plus the static token file the server reads with --token-auth-file.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { parse, stringify } from "yaml";

export interface KubeconfigParts {
  server: string;
  caPem: string;
  /** Client certificate and key (PEM), when the user authenticates with a certificate. */
  certPem?: string;
  keyPem?: string;
  token?: string;
}

interface NamedCluster {
  name: string;
  cluster: Record<string, string | boolean | undefined>;
}
interface NamedUser {
  name: string;
  user: Record<string, string | undefined>;
}
interface NamedContext {
  name: string;
  context: { cluster: string; user: string; namespace?: string };
}
interface RawKubeconfig {
  "current-context"?: string;
  clusters?: NamedCluster[];
  users?: NamedUser[];
  contexts?: NamedContext[];
}

function dataOrFile(entry: Record<string, unknown>, dataKey: string, fileKey: string, base: string): string | undefined {
  const data = entry[dataKey];
  if (typeof data === "string" && data !== "") return Buffer.from(data, "base64").toString("utf8");
  const file = entry[fileKey];
  if (typeof file === "string" && file !== "") return readFileSync(isAbsolute(file) ? file : join(base, file), "utf8");
  return undefined;
}

/** Resolves the current context of a kubeconfig file into its server, CA and credentials. */
export function readKubeconfig(path: string): KubeconfigParts {
  const raw = parse(readFileSync(path, "utf8")) as RawKubeconfig;
  const base = dirname(path);
  const ctxName = raw["current-context"] ?? raw.contexts?.[0]?.name;
  const ctx = raw.contexts?.find((c) => c.name === ctxName)?.context;
  if (!ctx) throw new Error(`kubeconfig ${path}: no current context`);
  const cluster = raw.clusters?.find((c) => c.name === ctx.cluster)?.cluster;
  const user = raw.users?.find((u) => u.name === ctx.user)?.user ?? {};
  if (!cluster || typeof cluster.server !== "string") throw new Error(`kubeconfig ${path}: no cluster ${ctx.cluster}`);
  const caPem = dataOrFile(cluster, "certificate-authority-data", "certificate-authority", base);
  if (!caPem) throw new Error(`kubeconfig ${path}: cluster ${ctx.cluster} has no certificate authority`);
  const parts: KubeconfigParts = { server: cluster.server, caPem };
  const certPem = dataOrFile(user, "client-certificate-data", "client-certificate", base);
  const keyPem = dataOrFile(user, "client-key-data", "client-key", base);
  if (certPem) parts.certPem = certPem;
  if (keyPem) parts.keyPem = keyPem;
  if (typeof user.token === "string") parts.token = user.token;
  return parts;
}

function b64(s: string): string {
  return Buffer.from(s, "utf8").toString("base64");
}

/** Writes a kubeconfig for the same cluster as `adminKubeconfig` that authenticates with a bearer token. */
export function writeTokenKubeconfig(adminKubeconfig: string, outPath: string, userName: string, token: string, namespace?: string): string {
  const admin = readKubeconfig(adminKubeconfig);
  const context: NamedContext["context"] = { cluster: "test", user: userName };
  if (namespace) context.namespace = namespace;
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    "current-context": "test",
    clusters: [{ name: "test", cluster: { server: admin.server, "certificate-authority-data": b64(admin.caPem) } }],
    users: [{ name: userName, user: { token } }],
    contexts: [{ name: "test", context }],
  };
  writeFileSync(outPath, stringify(doc), { mode: 0o600 });
  return outPath;
}

export interface TokenUser {
  token: string;
  user: string;
  uid: string;
  groups?: string[];
}

/** Writes a kube-apiserver static token file: `token,user,uid,"g1,g2"` per line. */
export function writeTokenAuthFile(path: string, users: TokenUser[]): string {
  const lines = users.map((u) => {
    const base = `${u.token},${u.user},${u.uid}`;
    return u.groups && u.groups.length > 0 ? `${base},"${u.groups.join(",")}"` : base;
  });
  writeFileSync(path, lines.join("\n") + "\n", { mode: 0o600 });
  return path;
}
