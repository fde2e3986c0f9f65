// What the kubelet resolves from the API before the runtime runs a pod (docs/kubelet.md): env values
// (fieldRef, secretKeyRef, configMapKeyRef, envFrom) and the files of secret, configMap, projected and
// downwardAPI volumes, with the kubelet's error messages. Pure apart from the sources it is handed.
import type { Container, KeySelector, KeyToPath, Pod, ServiceAccountTokenProjection, Volume, VolumeProjection } from "../../apis/core/v1/pod.ts";
import type { ConfigMap, Secret } from "../../client/builtins.ts";
import type { PodInputs } from "./runtime/types.ts";

export interface InputSources {
  /** undefined when the object does not exist. */
  secret(namespace: string, name: string): Promise<Secret | undefined>;
  configMap(namespace: string, name: string): Promise<ConfigMap | undefined>;
  /** A token of the pod's service account bound to the pod. */
  token(pod: Pod, serviceAccount: string, projection: ServiceAccountTokenProjection): Promise<string>;
}

/** What the node knows about the pod beyond its object. */
export interface PodContext {
  hostIP?: string;
  podIP?: string;
}

/** A container's configuration cannot be made: the container waits with CreateContainerConfigError. */
export class ContainerConfigError extends Error {
  override readonly name = "ContainerConfigError";
}

/** A volume cannot be set up: the pod waits in ContainerCreating with a FailedMount event. */
export class MountError extends Error {
  override readonly name = "MountError";
  constructor(
    readonly volume: string,
    message: string,
  ) {
    super(`MountVolume.SetUp failed for volume "${volume}" : ${message}`);
  }
}

type Files = Record<string, { data: string; mode?: number }>;

const decode = (b64: string): string => Buffer.from(b64, "base64").toString("utf8");

function secretData(s: Secret): Record<string, string> {
  return Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, decode(v)]));
}

function configMapData(c: ConfigMap): Record<string, string> {
  return { ...Object.fromEntries(Object.entries(c.binaryData ?? {}).map(([k, v]) => [k, decode(v)])), ...(c.data ?? {}) };
}

/** strconv.Quote for the downward API's labels and annotations files. */
function quote(s: string): string {
  return JSON.stringify(s);
}

function mapField(m: Record<string, string> | undefined, key: string | undefined): string {
  if (key !== undefined) return m?.[key] ?? "";
  return Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${quote(m![k]!)}`)
    .join("\n");
}

/** The value of a fieldRef (env or downwardAPI), as the kubelet formats it. */
export function fieldValue(pod: Pod, path: string, ctx: PodContext): string {
  const sub = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (sub) return mapField(sub[1] === "labels" ? pod.metadata.labels : pod.metadata.annotations, sub[2]);
  switch (path) {
    case "metadata.name":
      return pod.metadata.name ?? "";
    case "metadata.namespace":
      return pod.metadata.namespace ?? "";
    case "metadata.uid":
      return pod.metadata.uid ?? "";
    case "metadata.labels":
      return mapField(pod.metadata.labels, undefined);
    case "metadata.annotations":
      return mapField(pod.metadata.annotations, undefined);
    case "spec.nodeName":
      return pod.spec?.nodeName ?? "";
    case "spec.serviceAccountName":
      return pod.spec?.serviceAccountName ?? "";
    case "status.hostIP":
    case "status.hostIPs":
      return ctx.hostIP ?? "";
    case "status.podIP":
    case "status.podIPs":
      return ctx.podIP ?? "";
    default:
      throw new ContainerConfigError(`unsupported fieldPath: ${path}`);
  }
}

/** Values of the container's env entries with valueFrom and of its envFrom sources. */
export async function resolveEnv(pod: Pod, c: Container, src: InputSources, ctx: PodContext): Promise<Record<string, string>> {
  const ns = pod.metadata.namespace ?? "";
  const out: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    const ref = from.secretRef ?? from.configMapRef;
    if (!ref?.name) continue;
    const data = await sourceData(src, ns, from.secretRef !== undefined, ref.name);
    if (!data) {
      if ((ref as { optional?: boolean }).optional === true) continue;
      throw new ContainerConfigError(`${from.secretRef ? "secret" : "configmap"} "${ref.name}" not found`);
    }
    for (const [k, v] of Object.entries(data)) out[`${from.prefix ?? ""}${k}`] = v;
  }
  for (const e of c.env ?? []) {
    const vf = e.valueFrom;
    if (!vf) {
      delete out[e.name];
      continue;
    }
    let v: string | undefined;
    if (vf.fieldRef) v = fieldValue(pod, vf.fieldRef.fieldPath, ctx);
    else if (vf.secretKeyRef) v = await keyRefValue(src, ns, vf.secretKeyRef, true);
    else if (vf.configMapKeyRef) v = await keyRefValue(src, ns, vf.configMapKeyRef, false);
    else if (vf.resourceFieldRef) v = "0";
    if (v !== undefined) out[e.name] = v;
  }
  return out;
}

/** The data of Secret or ConfigMap `name` in `ns`, undefined when it does not exist. */
async function sourceData(src: InputSources, ns: string, isSecret: boolean, name: string): Promise<Record<string, string> | undefined> {
  if (isSecret) {
    const s = await src.secret(ns, name);
    return s ? secretData(s) : undefined;
  }
  const m = await src.configMap(ns, name);
  return m ? configMapData(m) : undefined;
}

/** A secretKeyRef's or configMapKeyRef's value; undefined when an optional one is missing. */
async function keyRefValue(src: InputSources, ns: string, ref: KeySelector, isSecret: boolean): Promise<string | undefined> {
  const name = ref.name ?? "";
  const data = await sourceData(src, ns, isSecret, name);
  if (!data) {
    if (ref.optional) return undefined;
    throw new ContainerConfigError(`${isSecret ? "secret" : "configmap"} "${name}" not found`);
  }
  const v = data[ref.key];
  if (v === undefined && !ref.optional) throw new ContainerConfigError(`couldn't find key ${ref.key} in ${isSecret ? "Secret" : "ConfigMap"} ${ns}/${name}`);
  return v;
}

function project(volume: string, kind: "secret" | "configmap", data: Record<string, string>, items: KeyToPath[] | undefined, mode: number, into: Files): void {
  if (!items || items.length === 0) {
    for (const [k, v] of Object.entries(data)) into[k] = { data: v, mode };
    return;
  }
  for (const it of items) {
    const v = data[it.key];
    if (v === undefined) throw new MountError(volume, `${kind === "secret" ? "secret" : "configmap"} references non-existent ${kind === "secret" ? "secret" : "config"} key: ${it.key}`);
    into[it.path] = { data: v, mode: it.mode ?? mode };
  }
}

async function fromSecret(pod: Pod, volume: string, name: string, items: KeyToPath[] | undefined, optional: boolean, mode: number, src: InputSources, into: Files): Promise<void> {
  const s = await src.secret(pod.metadata.namespace ?? "", name);
  if (!s) {
    if (optional) return;
    throw new MountError(volume, `secret "${name}" not found`);
  }
  project(volume, "secret", secretData(s), items, mode, into);
}

async function fromConfigMap(pod: Pod, volume: string, name: string, items: KeyToPath[] | undefined, optional: boolean, mode: number, src: InputSources, into: Files): Promise<void> {
  const c = await src.configMap(pod.metadata.namespace ?? "", name);
  if (!c) {
    if (optional) return;
    throw new MountError(volume, `configmap "${name}" not found`);
  }
  project(volume, "configmap", configMapData(c), items, mode, into);
}

function downward(pod: Pod, items: { path: string; fieldRef?: { fieldPath: string }; mode?: number }[] | undefined, mode: number, ctx: PodContext, into: Files): void {
  for (const it of items ?? []) if (it.fieldRef) into[it.path] = { data: fieldValue(pod, it.fieldRef.fieldPath, ctx), mode: it.mode ?? mode };
}

async function projected(pod: Pod, v: Volume, sources: VolumeProjection[], mode: number, src: InputSources, ctx: PodContext, into: Files): Promise<void> {
  for (const s of sources) {
    if (s.secret?.name) await fromSecret(pod, v.name, s.secret.name, s.secret.items, s.secret.optional === true, mode, src, into);
    if (s.configMap?.name) await fromConfigMap(pod, v.name, s.configMap.name, s.configMap.items, s.configMap.optional === true, mode, src, into);
    if (s.downwardAPI) downward(pod, s.downwardAPI.items, mode, ctx, into);
    if (s.serviceAccountToken) {
      const sa = pod.spec?.serviceAccountName || "default";
      try {
        into[s.serviceAccountToken.path] = { data: await src.token(pod, sa, s.serviceAccountToken), mode };
      } catch (err) {
        throw new MountError(v.name, `failed to fetch token: ${(err as Error).message}`);
      }
    }
  }
}

/** The files of every secret, configMap, projected and downwardAPI volume of the pod (the volumes' reads at once). */
export async function resolveVolumes(pod: Pod, src: InputSources, ctx: PodContext): Promise<NonNullable<PodInputs["volumes"]>> {
  const one = async (v: Volume): Promise<Files | undefined> => {
    const files: Files = {};
    if (v.secret) await fromSecret(pod, v.name, v.secret.secretName ?? "", v.secret.items, v.secret.optional === true, v.secret.defaultMode ?? 0o644, src, files);
    else if (v.configMap) await fromConfigMap(pod, v.name, v.configMap.name ?? "", v.configMap.items, v.configMap.optional === true, v.configMap.defaultMode ?? 0o644, src, files);
    else if (v.projected) await projected(pod, v, v.projected.sources ?? [], v.projected.defaultMode ?? 0o644, src, ctx, files);
    else if (v.downwardAPI) downward(pod, v.downwardAPI.items, v.downwardAPI.defaultMode ?? 0o644, ctx, files);
    else return undefined;
    return files;
  };
  const volumes = pod.spec?.volumes ?? [];
  // Every read is awaited before the first failure (in volume order) is thrown.
  const settled = await Promise.allSettled(volumes.map(one));
  const out: NonNullable<PodInputs["volumes"]> = {};
  for (const [i, r] of settled.entries()) {
    if (r.status === "rejected") throw r.reason;
    if (r.value) out[volumes[i]!.name] = r.value;
  }
  return out;
}
