// core/v1 Pod: namespaced, with status and (added by the server) binding; field selectors as
// kube-apiserver's pod registry offers them (pkg/registry/core/pod/strategy.go ToSelectableFields).
import type { Pod } from "../../../../apis/core/v1/pod.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { ResourceDefinition, Strategy } from "../../types.ts";
import { podSchema } from "./schema.ts";
import { podStrategy } from "./strategy.ts";
import { podTable } from "./table.ts";

const pod = (o: KubeObject) => o as Pod;

export const podFieldSelectors: Record<string, (obj: KubeObject) => string | undefined> = {
  "spec.nodeName": (o) => pod(o).spec?.nodeName ?? "",
  "spec.restartPolicy": (o) => pod(o).spec?.restartPolicy ?? "",
  "spec.schedulerName": (o) => pod(o).spec?.schedulerName ?? "",
  "spec.serviceAccountName": (o) => pod(o).spec?.serviceAccountName ?? "",
  "spec.hostNetwork": (o) => String(pod(o).spec?.hostNetwork === true),
  "status.phase": (o) => pod(o).status?.phase ?? "",
  "status.podIP": (o) => pod(o).status?.podIPs?.[0]?.ip ?? pod(o).status?.podIP ?? "",
  "status.nominatedNodeName": (o) => pod(o).status?.nominatedNodeName ?? "",
};

export const podDefinition: ResourceDefinition = {
  group: "",
  version: "v1",
  kind: "Pod",
  listKind: "PodList",
  plural: "pods",
  singular: "pod",
  namespaced: true,
  shortNames: ["po"],
  categories: ["all"],
  schema: podSchema,
  hasStatus: true,
  strategy: podStrategy as Strategy,
  table: podTable,
  fieldSelectors: podFieldSelectors,
  strategicMergePatch: true,
  tracksGeneration: false,
};
