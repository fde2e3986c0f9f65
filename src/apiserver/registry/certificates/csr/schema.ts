// certificates.k8s.io/v1 CertificateSigningRequest schema (k8s.io/api/certificates/v1).
import { KEY_USAGES } from "../../../../apis/certificates/v1/types.ts";
import { arr, int32, obj, str, stringArray, time } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";

const condition = obj(
  {
    type: str("type of the condition. Known conditions are \"Approved\", \"Denied\", and \"Failed\"."),
    status: str("status of the condition, one of True, False, Unknown."),
    reason: str("reason indicates a brief reason for the request state"),
    message: str("message contains a human readable message with details about the request state"),
    lastUpdateTime: time("lastUpdateTime is the time of the last update to this condition"),
    lastTransitionTime: time("lastTransitionTime is the time the condition last transitioned from one status to another."),
  },
  "CertificateSigningRequestCondition describes a condition of a CertificateSigningRequest object",
  ["type", "status"],
);

const spec = obj(
  {
    request: str("request contains an x509 certificate signing request encoded in a \"CERTIFICATE REQUEST\" PEM block.", {
      format: "byte",
      "x-kubernetes-list-type": "atomic",
    }),
    signerName: str("signerName indicates the requested signer, and is a qualified name."),
    expirationSeconds: int32("expirationSeconds is the requested duration of validity of the issued certificate."),
    usages: arr({ type: "string", enum: [...KEY_USAGES] }, "usages specifies a set of key usages requested in the issued certificate.", {
      "x-kubernetes-list-type": "atomic",
    }),
    username: str("username contains the name of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable."),
    uid: str("uid contains the uid of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable."),
    groups: stringArray("groups contains group membership of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.", {
      "x-kubernetes-list-type": "atomic",
    }),
    extra: {
      type: "object",
      description: "extra contains extra attributes of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.",
      additionalProperties: { type: "array", items: { type: "string" } },
    },
  },
  "CertificateSigningRequestSpec contains the certificate request.",
  ["request", "signerName"],
);

const status = obj(
  {
    conditions: arr(condition, "conditions applied to the request. Known conditions are \"Approved\", \"Denied\", and \"Failed\".", {
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["type"],
    }),
    certificate: str("certificate is populated with an issued certificate by the signer after an Approved condition is present.", {
      format: "byte",
      "x-kubernetes-list-type": "atomic",
    }),
  },
  "CertificateSigningRequestStatus contains conditions used to indicate approved/denied/failed status of the request, and the issued certificate.",
);

export const csrSchema = kindSchema({
  description: "CertificateSigningRequest objects provide a mechanism to obtain x509 certificates by submitting a certificate signing request, and having it asynchronously approved and issued.",
  properties: { spec, status },
  required: ["spec"],
});
