// A pod's own credentials on the landscape: a pod of a ServiceAccount bound to a Role runs the machine's
// kubectl with in-cluster config (KUBERNETES_SERVICE_HOST/PORT and the projected token, ca.crt and
// namespace under /var/run/secrets/kubernetes.io/serviceaccount) and is allowed what the Role grants and
// refused the rest with kube-apiserver's Forbidden message. The token is bound: audience, pod, expiry.
import assert from "node:assert/strict";
import type { Kubectl } from "../../support/kubectl.ts";
import { eventually } from "../../support/http.ts";

const NS = "sa-kubectl";
const SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

function claims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
}

export async function checkInPodKubectl(k: Kubectl): Promise<void> {
  const role = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "pod-reader", namespace: NS }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }] };
  const binding = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: { name: "reader", namespace: NS }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "pod-reader" }, subjects: [{ kind: "ServiceAccount", name: "reader", namespace: NS }] };
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "kc", namespace: NS }, spec: { serviceAccountName: "reader", containers: [{ name: "c", image: "busybox", command: ["sh", "-c", "sleep 3600"] }] } };
  await k.ok(["create", "namespace", NS]);
  await k.ok(["create", "serviceaccount", "reader", "-n", NS]);
  await k.ok(["apply", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items: [role, binding, pod] }) });
  await eventually("pod kc Running", async () => ((await k.run(["get", "pod", "kc", "-n", NS, "-o", "jsonpath={.status.phase}"])).stdout === "Running" ? true : undefined), 60_000, 250);
  const inPod = (script: string): Promise<{ code: number | null; stdout: string; stderr: string }> => k.run(["exec", "-n", NS, "kc", "--", "sh", "-c", script]);

  const files = await inPod(`ls ${SA_DIR}; cat ${SA_DIR}/namespace; echo; echo host=$KUBERNETES_SERVICE_HOST port=$KUBERNETES_SERVICE_PORT`);
  assert.equal(files.code, 0, files.stderr);
  const [ca, ns, token, nsValue, env] = files.stdout.trim().split("\n");
  assert.deepEqual([ca, ns, token, nsValue], ["ca.crt", "namespace", "token", NS]);
  assert.match(env ?? "", /^host=\S+ port=\d+$/);

  const allowed = await inPod("HOME=/tmp kubectl get pods -o name");
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.equal(allowed.stdout.trim(), "pod/kc", "in-cluster kubectl lists its namespace's pods as its ServiceAccount");
  const denied = await inPod("HOME=/tmp kubectl get secrets");
  assert.equal(denied.code, 1);
  assert.match(denied.stderr, new RegExp(`Error from server \\(Forbidden\\): secrets is forbidden: User "system:serviceaccount:${NS}:reader" cannot list resource "secrets" in API group "" in the namespace "${NS}"`));
  const other = await inPod("HOME=/tmp kubectl get pods -n default");
  assert.match(other.stderr, new RegExp(`pods is forbidden: User "system:serviceaccount:${NS}:reader" cannot list resource "pods" in API group "" in the namespace "default"`));
  const write = await inPod("HOME=/tmp kubectl delete pod kc --dry-run=server");
  assert.match(write.stderr, new RegExp(`pods "kc" is forbidden: User "system:serviceaccount:${NS}:reader" cannot delete resource "pods" in API group "" in the namespace "${NS}"`));

  const c = claims((await k.ok(["exec", "-n", NS, "kc", "--", "cat", `${SA_DIR}/token`])).trim());
  const uid = (await k.ok(["get", "pod", "kc", "-n", NS, "-o", "jsonpath={.metadata.uid}"])).trim();
  assert.equal(c.sub, `system:serviceaccount:${NS}:reader`);
  assert.ok(Array.isArray(c.aud) && (c.aud as unknown[]).length > 0, "the token names its audience");
  const bound = (c["kubernetes.io"] as { pod?: { name: string; uid: string } } | undefined)?.pod;
  assert.deepEqual(bound, { name: "kc", uid }, "the token is bound to the pod");
  const ttl = Number(c.exp) - Number(c.iat);
  assert.ok(ttl > 0 && ttl <= 2 * 24 * 3600, `the token expires (lifetime ${ttl} s)`);
  await k.ok(["delete", "namespace", NS, "--wait=false"]);
}

