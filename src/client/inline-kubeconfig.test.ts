import assert from "node:assert/strict";
import { test } from "node:test";
import { UnsafeKubeconfigError, inlineKubeConfig } from "./inline-kubeconfig.ts";

const kubeconfig = (cluster: string, user: string, extra = "") => `apiVersion: v1
kind: Config
clusters:
- name: s
  cluster:
${cluster}
users:
- name: u
  user:
${user}
contexts:
- name: other
  context: {cluster: s, user: u}
- name: main
  context: {cluster: s, user: u}
current-context: main
${extra}`;
const CLUSTER = "    server: https://198.18.0.2:7444\n    certificate-authority-data: Q0E=";
const USER = "    token: abc";

test("an inline kubeconfig keeps its current cluster and user", () => {
  const kc = inlineKubeConfig(kubeconfig(CLUSTER, USER), "secret garden/seed");
  assert.equal(kc.getCurrentCluster()?.server, "https://198.18.0.2:7444");
  assert.equal(kc.getCurrentCluster()?.caData, "Q0E=");
  assert.equal(kc.getCurrentUser()?.token, "abc");
  assert.equal(kc.getContexts().length, 1);
});

test("every way a kubeconfig reads the reader's files or runs its programs is refused, as is unverified TLS", () => {
  const cases: [string, string, RegExp][] = [
    ["    server: https://x\n    certificate-authority: /etc/ca.crt", USER, /not certificate-authority/],
    [CLUSTER, "    client-certificate: /root/c.crt\n    client-key: /root/c.key", /not client-certificate, client-key/],
    [CLUSTER, "    tokenFile: /var/run/token", /not tokenFile/],
    [CLUSTER, "    token-file: /etc/shadow", /not token-file/],
    [CLUSTER, "    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: [-c, id]}", /not exec/],
    [CLUSTER, "    auth-provider: {name: oidc, config: {}}", /not auth-provider/],
    ["    server: http://198.18.0.2:7444", USER, /must be https and verified/],
    ["    server: https://198.18.0.2:7444\n    insecure-skip-tls-verify: true", USER, /must be https and verified/],
  ];
  for (const [cluster, user, re] of cases) {
    assert.throws(() => inlineKubeConfig(kubeconfig(cluster, user), "secret garden/seed"), (err: Error) => err instanceof UnsafeKubeconfigError && re.test(err.message) && err.message.startsWith("secret garden/seed: "), `${cluster} ${user}`);
  }
  assert.throws(() => inlineKubeConfig("{", "x"), /x: not a kubeconfig/);
  // Users outside the current context are checked too: the parser would read their files.
  const other = kubeconfig(CLUSTER, USER).replace("contexts:", "- name: v\n  user:\n    token-file: /etc/shadow\ncontexts:");
  assert.throws(() => inlineKubeConfig(other, "x"), /not token-file/);
  assert.throws(() => inlineKubeConfig("apiVersion: v1\nkind: Config\n", "x"), /no current context/);
});
