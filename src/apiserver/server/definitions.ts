// The resources the server serves at start: the built-in kinds (namespaces with their finalize
// subresource, pods with binding, exec, attach, log and proxy, nodes and services with proxy,
// serviceaccounts with token), CertificateSigningRequests, shoots/adminkubeconfig (with approval), the authorization and authentication reviews, and
// with --enable-gardener-apis Gardener's garden kinds.
// CRD-defined resources are added later by the CRD controller.
import type { Admission } from "../admission/chain.ts";
import type { TokenAuthenticator } from "../authentication/types.ts";
import { withNamespaceFinalize } from "../controllers/namespace-finalize.ts";
import { authenticationReviewDefinitions } from "../registry/authentication/definitions.ts";
import { authorizationReviewDefinitions, type ReviewAuthorizer } from "../registry/authorization/definitions.ts";
import { builtinDefinitions } from "../registry/builtin.ts";
import { withCSRApproval } from "../registry/certificates/csr/approval.ts";
import { csrDefinition } from "../registry/certificates/csr/definition.ts";
import { withPodBinding } from "../registry/core/pod/binding.ts";
import type { KubeletClientConfig } from "../registry/core/pod/kubelet-client.ts";
import { withPodStreaming } from "../registry/core/pod/streaming.ts";
import { withProxySubresource } from "../registry/core/proxy/subresources.ts";
import { gardenDefinitions } from "../registry/garden.ts";
import { adminKubeconfigSubresource } from "../registry/gardencore/shoot/adminkubeconfig.ts";
import type { Clock } from "../../utils/clock.ts";
import type { InternalClient } from "../registry/client.ts";
import type { ObjectStore } from "../registry/generic/interface.ts";
import type { ResourceRegistry } from "../registry/registry.ts";
import type { ResourceDefinition } from "../registry/types.ts";
import type { TokenSigner } from "../serviceaccount/signer.ts";
import { tokenRequestSubresource } from "../serviceaccount/tokenrequest.ts";

export interface DefinitionDeps {
  /** Gardener's garden APIs (Projects, Seeds, Shoots, Bastions), with this Bastion heartbeat TTL. */
  garden?: { bastionTTLMs: number; clock: Clock; credentialsRotationIntervalMs?: number };
  makeStore(def: ResourceDefinition): ObjectStore;
  signer: TokenSigner;
  client: InternalClient;
  /** Audiences of tokens whose request names none. */
  issuers: string[];
  authorizer: ReviewAuthorizer;
  tokenAuthenticator: TokenAuthenticator;
  /** How pods/exec, attach and log reach kubelets, and the proxy subresources their targets; absent: those subresources are not served. */
  kubelet?: KubeletClientConfig;
  /** The server's admission chain, for subresources that create without a store (serviceaccounts/token). */
  admission?: Admission;
}

export function serverDefinitions(d: DefinitionDeps): ResourceDefinition[] {
  const defs = builtinDefinitions().map((def) => {
    if (def.group !== "") return def;
    if (d.kubelet && (def.plural === "pods" || def.plural === "nodes" || def.plural === "services")) def = withProxySubresource(def, d.client, d.kubelet);
    if (def.plural === "namespaces") return withNamespaceFinalize(def, d.makeStore);
    if (def.plural === "pods") {
      const bound = withPodBinding(def, d.makeStore);
      return d.kubelet ? withPodStreaming(bound, d.client, d.kubelet) : bound;
    }
    if (def.plural === "serviceaccounts") {
      return { ...def, subresources: { ...def.subresources, token: tokenRequestSubresource(d.signer, d.client, { apiAudiences: d.issuers, admission: d.admission, resource: def }) } };
    }
    return def;
  });
  const garden = (d.garden ? gardenDefinitions(d.garden) : []).map((def) =>
    def.group === "core.gardener.cloud" && def.plural === "shoots" ? { ...def, subresources: { ...def.subresources, adminkubeconfig: adminKubeconfigSubresource(d.client) } } : def,
  );
  const csr = withCSRApproval(csrDefinition, d.makeStore, () => d.authorizer);
  return [...defs, csr, ...authorizationReviewDefinitions(d.authorizer), ...authenticationReviewDefinitions(d.tokenAuthenticator), ...garden];
}

export function registerDefinitions(registry: ResourceRegistry, d: DefinitionDeps): void {
  for (const def of serverDefinitions(d)) registry.add(def);
}
