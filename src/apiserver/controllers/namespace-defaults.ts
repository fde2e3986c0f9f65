// What Kubernetes gives every namespace, kept by the server: the `default` ServiceAccount
// (kube-controller-manager's serviceaccount controller), the `kube-root-ca.crt` ConfigMap with the
// cluster CA (root-ca-cert-publisher), and the kubernetes.io/metadata.name label (set by the
// namespace strategy; filled in here for generateName namespaces, whose name comes later).
// Deleting or changing one of these objects brings it back.
import { isAlreadyExists, isNotFound } from "../../apimachinery/errors.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { LABEL_METADATA_NAME } from "../registry/core/namespace/strategy.ts";
import { NAMESPACES } from "./namespace-deletion.ts";
import { KeyController, type KeyControllerOptions } from "./keycontroller.ts";
import type { SyncResult } from "./queue.ts";
import { CONFIG_MAPS, SERVICE_ACCOUNTS } from "../registry/core/resources.ts";

export const DEFAULT_SERVICE_ACCOUNT = "default";
export const ROOT_CA_CONFIGMAP = "kube-root-ca.crt";
export const ROOT_CA_DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

export interface NamespaceDefaultsOptions extends KeyControllerOptions {
  /** The cluster CA (PEM) published as kube-root-ca.crt's ca.crt. */
  caPem: string;
}

export class NamespaceDefaultsController extends KeyController<NamespaceDefaultsOptions> {
  constructor(opts: NamespaceDefaultsOptions) {
    super(opts);
    const enqueue = (obj: KubeObject) => this.queue.add(obj.metadata.namespace ?? "");
    this.watch(NAMESPACES, (e) => e.type !== "DELETED" && this.queue.add(e.object.metadata.name!));
    this.watch(SERVICE_ACCOUNTS, (e) => e.type === "DELETED" && e.object.metadata.name === DEFAULT_SERVICE_ACCOUNT && enqueue(e.object));
    this.watch(CONFIG_MAPS, (e) => e.type !== "ADDED" && e.object.metadata.name === ROOT_CA_CONFIGMAP && enqueue(e.object));
  }

  async sync(name: string): Promise<SyncResult> {
    const client = this.opts.client;
    const ns = await client.get(NAMESPACES, undefined, name);
    if (!ns || ns.metadata.deletionTimestamp) return;
    if (ns.metadata.labels?.[LABEL_METADATA_NAME] !== name) {
      await client.patch(NAMESPACES, undefined, name, "merge", { metadata: { labels: { [LABEL_METADATA_NAME]: name } } });
    }
    if (!(await client.get(SERVICE_ACCOUNTS, name, DEFAULT_SERVICE_ACCOUNT))) {
      await this.create(SERVICE_ACCOUNTS, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace: name } });
    }
    const data = { "ca.crt": this.opts.caPem };
    const annotations = { "kubernetes.io/description": ROOT_CA_DESCRIPTION };
    const cm = await client.get(CONFIG_MAPS, name, ROOT_CA_CONFIGMAP);
    if (!cm) {
      await this.create(CONFIG_MAPS, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: ROOT_CA_CONFIGMAP, namespace: name, annotations }, data });
    } else if (cm.metadata.deletionTimestamp === undefined && (JSON.stringify(cm.data) !== JSON.stringify(data) || cm.metadata.annotations?.["kubernetes.io/description"] !== ROOT_CA_DESCRIPTION)) {
      await client.update(CONFIG_MAPS, { ...cm, data, metadata: { ...cm.metadata, annotations: { ...cm.metadata.annotations, ...annotations } } });
    }
  }

  /** Creates obj; a namespace that is going away (403) or a concurrent create are not errors. */
  private async create(gr: { group: string; resource: string }, obj: KubeObject): Promise<void> {
    try {
      await this.opts.client.create(gr, obj);
    } catch (err) {
      if (isAlreadyExists(err) || isNotFound(err)) return;
      const ns = await this.opts.client.get(NAMESPACES, undefined, obj.metadata.namespace!);
      if (ns?.metadata.deletionTimestamp) return;
      throw err;
    }
  }
}
