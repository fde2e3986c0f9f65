// generated.proto layouts (field number -> JSON name and type) of the kinds kubectl's typed
// clients write in protobuf, from k8s.io/api and k8s.io/apimachinery. Only request-relevant
// fields are listed (status of reviews is computed by the server); unknown fields are skipped.

export type Scalar = "string" | "bytes" | "bool" | "int" | "time" | "microtime" | "fieldsV1" | "stringList" | "intOrString";
export type FieldType = Scalar | { message: () => Message } | { map: Scalar | { message: () => Message } };

export interface Field {
  name: string;
  type: FieldType;
  repeated?: boolean;
  /** Keep the value even when it is "" or 0 (pointer fields in Go). */
  keep?: boolean;
}

export type Message = Record<number, Field>;

const str = (name: string): Field => ({ name, type: "string" });
const strs = (name: string): Field => ({ name, type: "string", repeated: true });
const msg = (name: string, m: () => Message, repeated = false): Field => ({ name, type: { message: m }, repeated });
const int = (name: string, keep = false): Field => ({ name, type: "int", keep });
const bool = (name: string): Field => ({ name, type: "bool", keep: true });
const strMap = (name: string): Field => ({ name, type: { map: "string" } });

const ownerReference = (): Message => ({
  1: str("kind"),
  3: str("name"),
  4: str("uid"),
  5: str("apiVersion"),
  6: bool("controller"),
  7: bool("blockOwnerDeletion"),
});

const managedFieldsEntry = (): Message => ({
  1: str("manager"),
  2: str("operation"),
  3: str("apiVersion"),
  4: { name: "time", type: "time" },
  6: str("fieldsType"),
  7: { name: "fieldsV1", type: "fieldsV1" },
  8: str("subresource"),
});

export const objectMeta = (): Message => ({
  1: str("name"),
  2: str("generateName"),
  3: str("namespace"),
  4: str("selfLink"),
  5: str("uid"),
  6: str("resourceVersion"),
  7: int("generation"),
  8: { name: "creationTimestamp", type: "time" },
  9: { name: "deletionTimestamp", type: "time" },
  10: int("deletionGracePeriodSeconds", true),
  11: strMap("labels"),
  12: strMap("annotations"),
  13: msg("ownerReferences", ownerReference, true),
  14: strs("finalizers"),
  17: msg("managedFields", managedFieldsEntry, true),
});

const labelSelectorRequirement = (): Message => ({ 1: str("key"), 2: str("operator"), 3: strs("values") });
const labelSelector = (): Message => ({ 1: strMap("matchLabels"), 2: msg("matchExpressions", labelSelectorRequirement, true) });

const withMeta = (rest: Message): Message => ({ 1: msg("metadata", objectMeta), ...rest });

// core/v1
const objectReference = (): Message => ({ 1: str("kind"), 2: str("namespace"), 3: str("name"), 4: str("uid"), 5: str("apiVersion"), 6: str("resourceVersion"), 7: str("fieldPath") });
const namespace = withMeta({ 2: msg("spec", () => ({ 1: strs("finalizers") })) });
const configMap = withMeta({ 2: strMap("data"), 3: { name: "binaryData", type: { map: "bytes" } }, 4: bool("immutable") });
const secret = withMeta({ 2: { name: "data", type: { map: "bytes" } }, 3: str("type"), 4: strMap("stringData"), 5: bool("immutable") });
const serviceAccount = withMeta({
  2: msg("secrets", objectReference, true),
  3: msg("imagePullSecrets", () => ({ 1: str("name") }), true),
  4: bool("automountServiceAccountToken"),
});
const servicePort = (): Message => ({ 1: str("name"), 2: str("protocol"), 3: int("port", true), 4: { name: "targetPort", type: "intOrString" }, 5: int("nodePort"), 6: str("appProtocol") });
// kubectl create service (1.32+): the fields it sets; the rest of the spec is skipped.
const service = withMeta({
  2: msg("spec", () => ({
    1: msg("ports", servicePort, true),
    2: strMap("selector"),
    3: str("clusterIP"),
    4: str("type"),
    5: strs("externalIPs"),
    7: str("sessionAffinity"),
    10: str("externalName"),
    18: strs("clusterIPs"),
  })),
});

// rbac.authorization.k8s.io/v1
const policyRule = (): Message => ({ 1: strs("verbs"), 2: strs("apiGroups"), 3: strs("resources"), 4: strs("resourceNames"), 5: strs("nonResourceURLs") });
const subject = (): Message => ({ 1: str("kind"), 2: str("apiGroup"), 3: str("name"), 4: str("namespace") });
const roleRef = (): Message => ({ 1: str("apiGroup"), 2: str("kind"), 3: str("name") });
const role = withMeta({ 2: msg("rules", policyRule, true) });
const clusterRole = withMeta({ 2: msg("rules", policyRule, true), 3: msg("aggregationRule", () => ({ 1: msg("clusterRoleSelectors", labelSelector, true) })) });
const binding = withMeta({ 2: msg("subjects", subject, true), 3: msg("roleRef", roleRef) });

// authentication.k8s.io
const tokenRequest = withMeta({
  2: msg("spec", () => ({
    1: strs("audiences"),
    3: msg("boundObjectRef", () => ({ 1: str("kind"), 2: str("apiVersion"), 3: str("name"), 4: str("uid") })),
    4: int("expirationSeconds", true),
  })),
});
const tokenReview = withMeta({ 2: msg("spec", () => ({ 1: str("token"), 2: strs("audiences") })) });
const selfSubjectReview = withMeta({});

// authorization.k8s.io/v1
const selectorRequirement = (): Message => ({ 1: str("key"), 2: str("operator"), 3: strs("values") });
const selectorAttributes = (): Message => ({ 1: str("rawSelector"), 2: msg("requirements", selectorRequirement, true) });
const resourceAttributes = (): Message => ({
  1: str("namespace"),
  2: str("verb"),
  3: str("group"),
  4: str("version"),
  5: str("resource"),
  6: str("subresource"),
  7: str("name"),
  8: msg("fieldSelector", selectorAttributes),
  9: msg("labelSelector", selectorAttributes),
});
const nonResourceAttributes = (): Message => ({ 1: str("path"), 2: str("verb") });
const selfSubjectAccessReview = withMeta({ 2: msg("spec", () => ({ 1: msg("resourceAttributes", resourceAttributes), 2: msg("nonResourceAttributes", nonResourceAttributes) })) });
const subjectAccessReview = withMeta({
  2: msg("spec", () => ({
    1: msg("resourceAttributes", resourceAttributes),
    2: msg("nonResourceAttributes", nonResourceAttributes),
    3: str("user"),
    4: strs("groups"),
    5: { name: "extra", type: { map: "stringList" } },
    6: str("uid"),
  })),
});
const selfSubjectRulesReview = withMeta({ 2: msg("spec", () => ({ 1: str("namespace") })) });

// coordination.k8s.io/v1
const lease = withMeta({
  2: msg("spec", () => ({
    1: str("holderIdentity"),
    2: int("leaseDurationSeconds", true),
    3: { name: "acquireTime", type: "microtime" },
    4: { name: "renewTime", type: "microtime" },
    5: int("leaseTransitions", true),
    6: str("strategy"),
    7: str("preferredHolder"),
  })),
});

// meta.k8s.io/v1 DeleteOptions (typed clients' delete bodies)
const deleteOptions: Message = {
  1: int("gracePeriodSeconds", true),
  2: msg("preconditions", () => ({ 1: str("uid"), 2: str("resourceVersion") })),
  3: bool("orphanDependents"),
  4: str("propagationPolicy"),
  5: strs("dryRun"),
};

/** Layouts by "<apiVersion>/<kind>". */
// certificates.k8s.io/v1 (kubectl certificate approve/deny PUT the whole request to /approval).
const csrCondition = (): Message => ({
  1: str("type"),
  6: str("status"),
  2: str("reason"),
  3: str("message"),
  4: { name: "lastUpdateTime", type: "time" },
  5: { name: "lastTransitionTime", type: "time" },
});
const certificateSigningRequest = withMeta({
  2: msg("spec", () => ({ 1: { name: "request", type: "bytes" }, 7: str("signerName"), 8: int("expirationSeconds"), 5: strs("usages"), 2: str("username"), 3: str("uid"), 4: strs("groups") })),
  3: msg("status", () => ({ 1: msg("conditions", csrCondition, true), 2: { name: "certificate", type: "bytes" } })),
});

export const PROTOBUF_KINDS: Record<string, Message> = {
  "v1/Namespace": namespace,
  "v1/ConfigMap": configMap,
  "v1/Secret": secret,
  "v1/ServiceAccount": serviceAccount,
  "v1/Service": service,
  "v1/DeleteOptions": deleteOptions,
  "meta.k8s.io/v1/DeleteOptions": deleteOptions,
  "rbac.authorization.k8s.io/v1/Role": role,
  "rbac.authorization.k8s.io/v1/ClusterRole": clusterRole,
  "rbac.authorization.k8s.io/v1/RoleBinding": binding,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": binding,
  "authentication.k8s.io/v1/TokenRequest": tokenRequest,
  "authentication.k8s.io/v1/TokenReview": tokenReview,
  "authentication.k8s.io/v1/SelfSubjectReview": selfSubjectReview,
  "authentication.k8s.io/v1beta1/SelfSubjectReview": selfSubjectReview,
  "authorization.k8s.io/v1/SelfSubjectAccessReview": selfSubjectAccessReview,
  "authorization.k8s.io/v1/SubjectAccessReview": subjectAccessReview,
  "authorization.k8s.io/v1/LocalSubjectAccessReview": subjectAccessReview,
  "authorization.k8s.io/v1/SelfSubjectRulesReview": selfSubjectRulesReview,
  "coordination.k8s.io/v1/Lease": lease,
  "certificates.k8s.io/v1/CertificateSigningRequest": certificateSigningRequest,
};
