// The Node authorizer's graph (docs/node-authorization.md): which node may read which object
// because a pod bound to that node references it. Upstream keeps a general graph
// (secret -> pod -> node); here every reference of a bound pod is counted per node, so a decision
// is two map lookups. Pods that are not bound to a node are not in the graph. Memory is
// proportional to the references of stored bound pods (each pod's are deduplicated, and a pod is
// bounded by the request body limit).
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { podReferences } from "../../../api/core/podrefs.ts";

export type ReferencedType = "secret" | "configmap" | "persistentvolumeclaim" | "serviceaccount";

interface PodEntry {
  node: string;
  refs: string[];
}

const refKey = (type: ReferencedType, namespace: string, name: string) => `${type}/${namespace}/${name}`;
const podKey = (namespace: string, name: string) => `${namespace}/${name}`;

export class NodeGraph {
  private readonly pods = new Map<string, PodEntry>();
  /** Referenced object -> node -> number of that node's pods referencing it. */
  private readonly refs = new Map<string, Map<string, number>>();
  /** PersistentVolume -> the claim it is bound to (spec.claimRef), as a reference key. */
  private readonly volumeClaims = new Map<string, string>();
  private readonly listeners = new Set<() => void>();

  /** Adds, replaces or (for a pod not bound to a node) removes a pod and its references. */
  setPod(pod: KubeObject): void {
    const namespace = pod.metadata.namespace ?? "";
    const name = pod.metadata.name ?? "";
    this.dropPod(podKey(namespace, name));
    const node = (pod.spec as { nodeName?: unknown } | undefined)?.nodeName;
    if (typeof node === "string" && node !== "" && name !== "") {
      const r = podReferences(pod);
      const refs = [
        ...[...r.secrets].map((n) => refKey("secret", namespace, n)),
        ...[...r.configMaps].map((n) => refKey("configmap", namespace, n)),
        ...[...r.persistentVolumeClaims].map((n) => refKey("persistentvolumeclaim", namespace, n)),
        ...(r.serviceAccount ? [refKey("serviceaccount", namespace, r.serviceAccount)] : []),
      ];
      for (const ref of refs) {
        let nodes = this.refs.get(ref);
        if (!nodes) this.refs.set(ref, (nodes = new Map()));
        nodes.set(node, (nodes.get(node) ?? 0) + 1);
      }
      this.pods.set(podKey(namespace, name), { node, refs });
    }
    this.changed();
  }

  removePod(namespace: string, name: string): void {
    this.dropPod(podKey(namespace, name));
    this.changed();
  }

  /** The complete set of pods (after a relist). */
  replacePods(pods: KubeObject[]): void {
    this.pods.clear();
    this.refs.clear();
    for (const p of pods) this.setPod(p);
    this.changed();
  }

  /** A PersistentVolume's edge to the claim in its spec.claimRef (none: the edge goes). */
  setVolume(pv: KubeObject): void {
    const ref = (pv.spec as { claimRef?: { namespace?: unknown; name?: unknown } } | undefined)?.claimRef;
    const name = pv.metadata.name ?? "";
    if (typeof ref?.namespace === "string" && typeof ref.name === "string" && ref.name !== "") {
      this.volumeClaims.set(name, refKey("persistentvolumeclaim", ref.namespace, ref.name));
    } else this.volumeClaims.delete(name);
    this.changed();
  }

  removeVolume(name: string): void {
    this.volumeClaims.delete(name);
    this.changed();
  }

  replaceVolumes(pvs: KubeObject[]): void {
    this.volumeClaims.clear();
    for (const pv of pvs) this.setVolume(pv);
  }

  /** The node a pod is bound to, if the pod is in the graph. */
  nodeOfPod(namespace: string, name: string): string | undefined {
    return this.pods.get(podKey(namespace, name))?.node;
  }

  /** Whether a pod bound to `node` references the object. */
  relates(type: ReferencedType, namespace: string, name: string, node: string): boolean {
    return (this.refs.get(refKey(type, namespace, name))?.get(node) ?? 0) > 0;
  }

  /** node <- pod <- claim <- volume */
  relatesVolume(name: string, node: string): boolean {
    const claim = this.volumeClaims.get(name);
    return claim !== undefined && (this.refs.get(claim)?.get(node) ?? 0) > 0;
  }

  /** Called after every change (tests wait for the graph with it). Returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get podCount(): number {
    return this.pods.size;
  }

  /** Referenced objects (with at least one node), for tests and metrics. */
  get referenceCount(): number {
    return this.refs.size;
  }

  private dropPod(key: string): void {
    const old = this.pods.get(key);
    if (!old) return;
    this.pods.delete(key);
    for (const ref of old.refs) {
      const nodes = this.refs.get(ref);
      if (!nodes) continue;
      const n = (nodes.get(old.node) ?? 0) - 1;
      if (n > 0) nodes.set(old.node, n);
      else nodes.delete(old.node);
      if (nodes.size === 0) this.refs.delete(ref);
    }
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
