// Which Node labels a node may set itself (kube's NodeRestriction getForbiddenLabels and
// k8s.io/kubelet IsKubeletLabel): none under node-restriction.kubernetes.io/, and of the
// kubernetes.io and k8s.io namespaces only the labels the kubelet sets.
const KUBELET_LABELS = new Set([
  "kubernetes.io/hostname",
  "kubernetes.io/arch",
  "kubernetes.io/os",
  "beta.kubernetes.io/arch",
  "beta.kubernetes.io/os",
  "beta.kubernetes.io/instance-type",
  "node.kubernetes.io/instance-type",
  "node.kubernetes.io/windows-build",
  "failure-domain.beta.kubernetes.io/region",
  "failure-domain.beta.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "topology.kubernetes.io/zone",
]);
const KUBELET_LABEL_NAMESPACES = ["kubelet.kubernetes.io", "node.kubernetes.io"];
const NODE_RESTRICTION_NAMESPACE = "node-restriction.kubernetes.io";

const labelNamespace = (key: string) => (key.includes("/") ? key.slice(0, key.indexOf("/")) : "");
const inNamespace = (ns: string, parent: string) => ns === parent || ns.endsWith(`.${parent}`);

export function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.has(key)) return true;
  const ns = labelNamespace(key);
  return KUBELET_LABEL_NAMESPACES.some((allowed) => inNamespace(ns, allowed));
}

function isKubernetesLabel(key: string): boolean {
  const ns = labelNamespace(key);
  return inNamespace(ns, "kubernetes.io") || inNamespace(ns, "k8s.io");
}

/** Keys added, removed or changed between two label maps. */
export function modifiedLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): Set<string> {
  const out = new Set<string>();
  const get = (m: Record<string, string> | undefined, k: string) => (m && Object.hasOwn(m, k) ? m[k] : undefined);
  for (const [k, v] of Object.entries(a ?? {})) if (get(b, k) !== v) out.add(k);
  for (const [k, v] of Object.entries(b ?? {})) if (get(a, k) !== v) out.add(k);
  return out;
}

/** The labels (sorted) a node may not add, remove or change. */
export function forbiddenLabels(modified: Set<string>): string[] {
  const out: string[] = [];
  for (const key of modified) {
    if (inNamespace(labelNamespace(key), NODE_RESTRICTION_NAMESPACE) || (isKubernetesLabel(key) && !isKubeletLabel(key))) out.push(key);
  }
  return out.sort();
}
