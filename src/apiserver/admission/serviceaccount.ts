// Admission plugin `ServiceAccount` (plugin/pkg/admission/serviceaccount): a new pod runs as
// `default` unless it names a service account, which must exist (403 otherwise); unless automounting
// is off (pod first, then service account), it gets the projected volume kube-api-access-<5 chars>
// (a bound token, the cluster CA from kube-root-ca.crt and the namespace) mounted read-only at
// /var/run/secrets/kubernetes.io/serviceaccount in every container that mounts nothing there, and
// the service account's image pull secrets when it has none of its own.
import type { Container, Pod, Volume } from "../../apis/core/v1/pod.ts";
import type { ServiceAccount } from "../../apis/core/v1/types.ts";
import { isMirrorPod } from "../../api/core/podrefs.ts";
import { newForbidden } from "../../apimachinery/errors.ts";
import { generateName } from "../../apimachinery/names/generate.ts";
import type { InternalClient } from "../registry/client.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "./types.ts";
import { PODS, SERVICE_ACCOUNTS } from "../registry/core/resources.ts";

export const PLUGIN_NAME = "ServiceAccount";
export const DEFAULT_API_TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
export const TOKEN_VOLUME_PREFIX = "kube-api-access-";
/** kube's warnafter-padded default: one hour plus 7 seconds. */
export const TOKEN_EXPIRATION_SECONDS = 3607;

export function isPodCreate(attrs: AdmissionAttributes): boolean {
  return attrs.operation === "CREATE" && attrs.subresource === "" && attrs.resource.group === "" && attrs.resource.plural === "pods";
}

export function tokenVolume(name: string): Volume {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: "token" } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
      ],
    },
  };
}

function containersOf(pod: Pod): Container[] {
  const spec = pod.spec;
  return [...(Array.isArray(spec?.initContainers) ? spec.initContainers : []), ...(Array.isArray(spec?.containers) ? spec.containers : [])].filter(
    (c) => typeof c === "object" && c !== null,
  );
}

export class ServiceAccountAdmission implements AdmissionPlugin {
  readonly name = PLUGIN_NAME;

  constructor(private readonly randomName: (base: string) => string = generateName) {}

  admit(attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void {
    if (!isPodCreate(attrs) || !attrs.object) return;
    return this.admitPod(attrs, attrs.object as Pod, client);
  }

  private async admitPod(attrs: AdmissionAttributes, pod: Pod, client: InternalClient): Promise<void> {
    // Mirror pods (a kubelet's static pods) run as no service account; NodeRestriction refuses their references.
    if (isMirrorPod(pod)) return;
    const spec = pod.spec;
    if (!spec || typeof spec !== "object") return;
    if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || "default";
    spec.serviceAccount = spec.serviceAccountName;
    const namespace = attrs.namespace ?? "";
    const sa = (await client.get(SERVICE_ACCOUNTS, namespace, spec.serviceAccountName)) as ServiceAccount | undefined;
    if (!sa) {
      throw newForbidden(PODS, attrs.name, `error looking up service account ${namespace}/${spec.serviceAccountName}: serviceaccount "${spec.serviceAccountName}" not found`);
    }
    const automount = spec.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
    if (automount) this.mountToken(pod);
    if (!spec.imagePullSecrets?.length && sa.imagePullSecrets?.length) spec.imagePullSecrets = structuredClone(sa.imagePullSecrets);
  }

  private mountToken(pod: Pod): void {
    const spec = pod.spec!;
    const needing = containersOf(pod).filter((c) => !(Array.isArray(c.volumeMounts) ? c.volumeMounts : []).some((m) => m?.mountPath === DEFAULT_API_TOKEN_MOUNT_PATH));
    if (needing.length === 0) return;
    const volumes = Array.isArray(spec.volumes) ? spec.volumes : [];
    let name = this.randomName(TOKEN_VOLUME_PREFIX);
    while (volumes.some((v) => v?.name === name)) name = this.randomName(TOKEN_VOLUME_PREFIX);
    spec.volumes = [...volumes, tokenVolume(name)];
    for (const c of needing) c.volumeMounts = [...(Array.isArray(c.volumeMounts) ? c.volumeMounts : []), { name, readOnly: true, mountPath: DEFAULT_API_TOKEN_MOUNT_PATH }];
  }
}
