// What the terminal controller creates for a Terminal (docs/terminals.md#what-the-controller-creates),
// as upstream's terminal_controller.go builds it: names from spec.identifier, the attach Role for
// one pod, the kubeconfig to the target (written as JSON, which kubectl reads as YAML), and the pod.
import {
  PREFIX_ACCESS,
  PREFIX_ATTACH,
  PREFIX_ATTACH_ROLE,
  PREFIX_KUBECONFIG_SECRET,
  PREFIX_POD,
  PREFIX_TOKEN_SECRET,
  type RoleRef,
  type Terminal,
  type TerminalRoleBinding,
} from "../../../apis/dashboard/v1alpha1/types.ts";

export function namesOf(t: Terminal) {
  const id = t.spec.identifier;
  return {
    attach: `${PREFIX_ATTACH}${id}`,
    attachRole: `${PREFIX_ATTACH_ROLE}${id}`,
    access: `${PREFIX_ACCESS}${id}`,
    kubeconfigSecret: `${PREFIX_KUBECONFIG_SECRET}${id}`,
    tokenSecret: `${PREFIX_TOKEN_SECRET}${id}`,
    pod: `${PREFIX_POD}${id}`,
  };
}

/** The attach Role: attach to (and watch) this one pod, nothing else. */
export function attachRules(podName: string) {
  return [
    { apiGroups: [""], resources: ["pods/attach"], verbs: ["get", "create"], resourceNames: [podName] },
    { apiGroups: [""], resources: ["pods"], verbs: ["watch"], resourceNames: [podName] },
  ];
}

/** The access bindings: the legacy roleName binding first, then authorization.roleBindings. */
export function accessBindings(t: Terminal): TerminalRoleBinding[] {
  const out: TerminalRoleBinding[] = [];
  const target = t.spec.target;
  if (target.roleName && target.bindingKind) {
    const roleRef: RoleRef = { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: target.roleName };
    out.push({ nameSuffix: "", roleRef, bindingKind: target.bindingKind });
  }
  return [...out, ...(target.authorization?.roleBindings ?? [])];
}

export function clusterNameOf(t: Terminal): string {
  const c = t.spec.target.credentials;
  const name = c.shootRef?.name ?? c.serviceAccountRef?.name ?? c.secretRef?.name;
  if (!name) throw new Error("no cluster credentials provided");
  return name;
}

/** Upstream's GenerateKubeconfig: one cluster, user and context named after the target credential; the token from a file. */
export function kubeconfig(clusterName: string, contextNamespace: string, server: string, caData: string | undefined): string {
  if (server === "") throw new Error("api server host is required");
  const url = /^https:\/\/localhost:\d{1,5}$/.test(server) ? "https://kubernetes.default.svc.cluster.local" : server;
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: clusterName, cluster: { server: url, ...(caData ? { "certificate-authority-data": caData } : {}) } }],
    users: [{ name: clusterName, user: { tokenFile: "/mnt/.auth/token" } }],
    contexts: [{ name: clusterName, context: { cluster: clusterName, user: clusterName, namespace: contextNamespace } }],
    "current-context": clusterName,
  }, null, 2);
}

export interface PodOptions {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** Same cluster and namespace: a projected token of the access service account; else the token Secret. */
  projectedTokenOf?: string;
}

/** The terminal pod (upstream's createOrUpdateTerminalPod, create branch). */
export function terminalPod(t: Terminal, o: PodOptions): Record<string, unknown> {
  const n = namesOf(t);
  const p = t.spec.host.pod;
  const image = p.container?.image ?? p.containerImage ?? "";
  const privileged = p.container ? (p.container.privileged ?? false) : (p.privileged ?? false);
  const hostRoot = privileged || Boolean(p.hostPID) || Boolean(p.hostNetwork);
  const tokenVolume = o.projectedTokenOf
    ? { name: "token", projected: { sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 3600 } }] } }
    : { name: "token", secret: { secretName: n.tokenSecret } };
  const volumes = [
    ...(hostRoot ? [{ name: "root-volume", hostPath: { path: "/" } }] : []),
    { name: "kubeconfig", secret: { secretName: n.kubeconfigSecret, items: [{ key: "kubeconfig", path: "config" }] } },
    { name: "kubeconfig-rw", emptyDir: {} },
    tokenVolume,
  ];
  const container: Record<string, unknown> = {
    name: "terminal",
    image,
    stdin: true,
    tty: true,
    securityContext: { privileged },
    env: [{ name: "KUBECONFIG", value: "/mnt/.kube/config" }],
    volumeMounts: [
      { name: "kubeconfig-rw", mountPath: "/mnt/.kube" },
      { name: "token", mountPath: "/mnt/.auth", readOnly: true },
      ...(hostRoot ? [{ name: "root-volume", mountPath: "/host" }] : []),
    ],
    ...(p.container?.command ? { command: p.container.command } : {}),
    ...(p.container?.args ? { args: p.container.args } : {}),
    ...(p.container?.resources ? { resources: p.container.resources } : {}),
  };
  const nodeSelector = p.nodeSelector ?? {};
  return {
    metadata: { namespace: t.spec.host.namespace, name: n.pod, labels: { ...(p.labels ?? {}), ...o.labels }, annotations: o.annotations },
    spec: {
      automountServiceAccountToken: false,
      ...(o.projectedTokenOf ? { serviceAccountName: o.projectedTokenOf } : {}),
      hostPID: Boolean(p.hostPID),
      hostNetwork: Boolean(p.hostNetwork),
      ...(p.hostNetwork ? { dnsPolicy: "ClusterFirstWithHostNet" } : {}),
      ...(Object.keys(nodeSelector).length ? { nodeSelector, tolerations: [{ operator: "Exists" }] } : {}),
      initContainers: [
        {
          name: "setup",
          image,
          command: ["/bin/cp", "/mnt/.kube-ro/config", "/mnt/.kube-rw/config"],
          volumeMounts: [
            { name: "kubeconfig-rw", mountPath: "/mnt/.kube-rw" },
            { name: "kubeconfig", mountPath: "/mnt/.kube-ro" },
          ],
        },
      ],
      containers: [container],
      volumes,
    },
  };
}
