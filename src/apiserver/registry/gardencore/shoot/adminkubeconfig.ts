// POST .../namespaces/<ns>/shoots/<name>/adminkubeconfig (docs/terminals.md#shoot-credentials;
// gardener's pkg/registry/core/shoot/storage/kubeconfig.go): an AdminKubeconfigRequest
// (authentication.gardener.cloud/v1alpha1) is answered with a kubeconfig for the shoot's API server
// whose user is a client certificate (CN = the requesting user, O = system:masters) that expires after
// `spec.expirationSeconds`. Everything comes from what the garden stores: the Shoot's
// `status.advertisedAddresses`, the ConfigMap `<shoot>.ca-cluster` (key ca.crt) in the project
// namespace and the shoot's client CA, the Secret `<project namespace>.<shoot>.ca-client` in namespace
// `garden` (keys ca.crt, ca.key), which project members cannot read. Authorization (verb create on
// shoots/adminkubeconfig) is the REST handler's, as for every subresource.
import { stringify } from "yaml";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { newBadRequest, newInvalid, newMethodNotSupported, newNotFound } from "../../../../apimachinery/errors.ts";
import { Path, invalid } from "../../../../apimachinery/field/errors.ts";
import { isRecord } from "../../../../utils/guards.ts";
import { metaTime } from "../../../../utils/time.ts";
import { CA_CLIENT_NAMESPACE, caClientSecretName, caClusterConfigMapName } from "../../../../api/gardencore/shootcredentials.ts";
import { issueClientCertificate } from "../../../certs/issue.ts";
import type { InternalClient } from "../../client.ts";
import type { SubresourceHandler, SubresourceRequest } from "../../types.ts";
import { CONFIG_MAPS, SECRETS } from "../../core/resources.ts";

export const AUTHENTICATION_GROUP = "authentication.gardener.cloud";
const REQUEST_GK = { group: AUTHENTICATION_GROUP, kind: "AdminKubeconfigRequest" };
const SHOOTS = { group: "core.gardener.cloud", resource: "shoots" };
/** Upstream's bounds: at least 10 minutes; default one hour; longer requests are cut to the server's maximum (default 24 h). */
export const MIN_EXPIRATION_SECONDS = 600;
export const DEFAULT_EXPIRATION_SECONDS = 3600;
export const DEFAULT_MAX_EXPIRATION_SECONDS = 24 * 3600;
const LARGEST_EXPIRATION_SECONDS = 2 ** 32;

export interface AdminKubeconfigOptions {
  /** Requests for longer are shortened to this (gardener-apiserver's --shoot-admin-kubeconfig-max-expiration). */
  maxExpirationSeconds?: number;
}

export function adminKubeconfigSubresource(client: InternalClient, o: AdminKubeconfigOptions = {}): SubresourceHandler {
  return {
    verbs: ["create"],
    responseKind: { group: AUTHENTICATION_GROUP, version: "v1alpha1", kind: "AdminKubeconfigRequest" },
    handle: async (req) => ({ status: 201, body: await createAdminKubeconfig(client, o.maxExpirationSeconds ?? DEFAULT_MAX_EXPIRATION_SECONDS, req) }),
  };
}

interface Address {
  name: string;
  url: string;
}

async function createAdminKubeconfig(client: InternalClient, maxSeconds: number, req: SubresourceRequest): Promise<KubeObject> {
  if (req.verb !== "create") throw newMethodNotSupported({ ...SHOOTS, resource: "shoots/adminkubeconfig" }, req.verb);
  const namespace = req.namespace ?? "";
  const seconds = Math.min(requestedSeconds(req), maxSeconds);
  const { addresses, clusterCa, ca } = await shootCredentials(client, namespace, req.name);
  const now = req.ctx.clock.now();
  const out: KubeObject & { spec: { expirationSeconds: number }; status?: unknown } = {
    apiVersion: `${AUTHENTICATION_GROUP}/v1alpha1`,
    kind: "AdminKubeconfigRequest",
    metadata: { name: req.name, namespace },
    spec: { expirationSeconds: seconds },
  };
  if (req.ctx.dryRun) return out;
  const cert = await issueClientCertificate(ca, { commonName: req.ctx.user.username, organizations: ["system:masters"], validForMs: seconds * 1000, now });
  const kubeconfig = kubeconfigFor(namespace, req.name, addresses, clusterCa, cert);
  out.metadata.creationTimestamp = metaTime(now);
  out.status = { kubeconfig: Buffer.from(kubeconfig, "utf8").toString("base64"), expirationTimestamp: metaTime(new Date(now.getTime() + seconds * 1000)) };
  return out;
}

/** spec.expirationSeconds of the request body, defaulted and validated (not yet cut to the server's maximum). */
function requestedSeconds(req: SubresourceRequest): number {
  const body = req.body;
  if (!isRecord(body)) throw newBadRequest("the body of an AdminKubeconfigRequest must be a JSON object");
  const spec = body.spec ?? {};
  if (!isRecord(spec)) throw newBadRequest("spec of an AdminKubeconfigRequest must be an object");
  const given = spec.expirationSeconds;
  const requested = given === undefined || given === null ? DEFAULT_EXPIRATION_SECONDS : given;
  const path = Path.root("spec").child("expirationSeconds");
  if (typeof requested !== "number" || !Number.isInteger(requested)) throw newInvalid(REQUEST_GK, req.name, [invalid(path, requested, "must be an integer")]);
  if (requested < MIN_EXPIRATION_SECONDS) throw newInvalid(REQUEST_GK, req.name, [invalid(path, requested, "may not specify a duration less than 10 minutes")]);
  if (requested > LARGEST_EXPIRATION_SECONDS) throw newInvalid(REQUEST_GK, req.name, [invalid(path, requested, "may not specify a duration larger than 2^32 seconds")]);
  return requested;
}

/** What the garden stores for the shoot: its advertised addresses, its cluster CA and its client CA (PEM). */
async function shootCredentials(client: InternalClient, namespace: string, name: string): Promise<{ addresses: Address[]; clusterCa: string; ca: { certPem: string; keyPem: string } }> {
  const shoot = await client.get(SHOOTS, namespace, name, { readOnly: true });
  if (!shoot) throw newNotFound(SHOOTS, name);
  const addresses = advertisedAddresses(shoot);
  if (addresses.length === 0) throw newBadRequest("no kube-apiserver advertised addresses in Shoot .status.advertisedAddresses");
  const caCluster = await client.get(CONFIG_MAPS, namespace, caClusterConfigMapName(name), { readOnly: true });
  const clusterCa = (caCluster as { data?: Record<string, string> } | undefined)?.data?.["ca.crt"];
  if (!clusterCa) throw newBadRequest(`could not find the cluster CA of shoot ${namespace}/${name}: ConfigMap ${caClusterConfigMapName(name)} has no ca.crt`);
  const caClient = await client.get(SECRETS, CA_CLIENT_NAMESPACE, caClientSecretName(namespace, name), { readOnly: true });
  const data = (caClient as { data?: Record<string, string> } | undefined)?.data ?? {};
  if (!data["ca.crt"] || !data["ca.key"]) throw newBadRequest(`could not find the client CA of shoot ${namespace}/${name}`);
  const ca = { certPem: Buffer.from(data["ca.crt"], "base64").toString("utf8"), keyPem: Buffer.from(data["ca.key"], "base64").toString("utf8") };
  return { addresses, clusterCa, ca };
}

function advertisedAddresses(shoot: KubeObject): Address[] {
  const list = (shoot as { status?: { advertisedAddresses?: unknown } }).status?.advertisedAddresses;
  if (!Array.isArray(list)) return [];
  return list.filter((a): a is Address => typeof a === "object" && a !== null && typeof a.name === "string" && typeof a.url === "string" && a.url !== "");
}

/** One cluster and context per advertised address, the first current; all share the user. */
function kubeconfigFor(namespace: string, shoot: string, addresses: Address[], caPem: string, cert: { certPem: string; keyPem: string }): string {
  const project = namespace.startsWith("garden-") ? namespace.slice("garden-".length) : namespace;
  const user = `${project}--${shoot}`;
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  const names = addresses.map((a) => `${user}-${a.name}`);
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: addresses.map((a, i) => ({ name: names[i], cluster: { server: a.url, "certificate-authority-data": b64(caPem) } })),
    users: [{ name: user, user: { "client-certificate-data": b64(cert.certPem), "client-key-data": b64(cert.keyPem) } }],
    contexts: names.map((n) => ({ name: n, context: { cluster: n, user } })),
    "current-context": names[0],
    preferences: {},
  });
}
