// The API objects a pod references by name, as kube's podutil.VisitPodSecretNames and
// VisitPodConfigmapNames (and the Node authorizer's graph) find them: image pull secrets, every
// container's (init, regular, ephemeral) env and envFrom, and the volume sources that name a
// Secret, ConfigMap or PersistentVolumeClaim (ephemeral volumes: the claim `<pod>-<volume>`).
// Stored pods are read defensively: a field of the wrong shape is skipped, never thrown on.
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { isRecord } from "../../utils/guards.ts";

export const MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror";

export interface PodReferences {
  secrets: Set<string>;
  configMaps: Set<string>;
  persistentVolumeClaims: Set<string>;
  /** spec.serviceAccountName, "" when unset. */
  serviceAccount: string;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (isRecord(v) ? v : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** Volume sources whose `secretRef.name` names a Secret (besides secret, azureFile, projected and csi). */
const SECRET_REF_SOURCES = ["cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"];

export function isMirrorPod(pod: KubeObject): boolean {
  return pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;
}

export function podReferences(pod: KubeObject): PodReferences {
  const out: PodReferences = { secrets: new Set(), configMaps: new Set(), persistentVolumeClaims: new Set(), serviceAccount: "" };
  const spec = rec(pod.spec) ?? {};
  out.serviceAccount = str(spec.serviceAccountName);
  for (const s of arr(spec.imagePullSecrets)) add(out.secrets, rec(s)?.name);
  for (const list of [spec.initContainers, spec.containers, spec.ephemeralContainers]) {
    for (const c of arr(list)) addContainerReferences(out, rec(c) ?? {});
  }
  for (const v of arr(spec.volumes)) addVolumeReferences(out, rec(v) ?? {}, pod.metadata.name ?? "");
  return out;
}

function add(set: Set<string>, name: unknown): void {
  if (typeof name === "string" && name !== "") set.add(name);
}

/** A container's env and envFrom. */
function addContainerReferences(out: PodReferences, container: Rec): void {
  for (const e of arr(container.envFrom)) {
    add(out.secrets, rec(rec(e)?.secretRef)?.name);
    add(out.configMaps, rec(rec(e)?.configMapRef)?.name);
  }
  for (const e of arr(container.env)) {
    const from = rec(rec(e)?.valueFrom);
    add(out.secrets, rec(from?.secretKeyRef)?.name);
    add(out.configMaps, rec(from?.configMapKeyRef)?.name);
  }
}

/** A volume's source: Secret, ConfigMap (also projected), PersistentVolumeClaim (also ephemeral). */
function addVolumeReferences(out: PodReferences, volume: Rec, podName: string): void {
  add(out.secrets, rec(volume.secret)?.secretName);
  add(out.secrets, rec(volume.azureFile)?.secretName);
  add(out.secrets, rec(rec(volume.csi)?.nodePublishSecretRef)?.name);
  for (const source of SECRET_REF_SOURCES) add(out.secrets, rec(rec(volume[source])?.secretRef)?.name);
  add(out.configMaps, rec(volume.configMap)?.name);
  for (const p of arr(rec(volume.projected)?.sources)) {
    add(out.secrets, rec(rec(p)?.secret)?.name);
    add(out.configMaps, rec(rec(p)?.configMap)?.name);
  }
  add(out.persistentVolumeClaims, rec(volume.persistentVolumeClaim)?.claimName);
  if (rec(volume.ephemeral) && str(volume.name)) add(out.persistentVolumeClaims, `${podName}-${str(volume.name)}`);
}
