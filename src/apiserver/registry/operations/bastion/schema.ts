// OpenAPI v3 schema of operations.gardener.cloud/v1alpha1 Bastion (docs/bastion.md#the-garden-bastion). Field
// rules beyond types live in the validation (docs/bastion.md#validation), so that errors carry Gardener's messages.
import type { JSONSchemaProps } from "../../../../apis/apiextensions/v1/types.ts";
import { arr, int32, int64, mergeList, obj, str, stringArray, time } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import { gardenConditionSchema } from "../../gardencore/schemas.ts";

export const ipBlockSchema: JSONSchemaProps = obj(
  {
    cidr: str("CIDR is a string representing the IP Block. Valid examples are \"192.168.1.1/24\" or \"2001:db9::/64\"."),
    except: stringArray("Except is a slice of CIDRs that should not be included within an IP Block."),
  },
  "IPBlock describes a particular CIDR that is allowed to access the bastion.",
);

export const bastionIngressPolicySchema: JSONSchemaProps = obj(
  { ipBlock: ipBlockSchema },
  "BastionIngressPolicy represents an ingress policy for SSH bastion hosts.",
);

export const loadBalancerIngressSchema: JSONSchemaProps = obj(
  {
    ip: str("IP is set for load-balancer ingress points that are IP based."),
    hostname: str("Hostname is set for load-balancer ingress points that are DNS based."),
    ipMode: str("IPMode specifies how the load-balancer IP behaves."),
    ports: arr(
      obj(
        {
          port: int32("Port is the port number of the service port of which status is recorded here."),
          protocol: str("Protocol is the protocol of the service port of which status is recorded here."),
          error: str("Error is to record the problem with the service port."),
        },
        undefined,
        ["port", "protocol"],
      ),
      "Ports is a list of records of service ports.",
      { "x-kubernetes-list-type": "atomic" },
    ),
  },
  "Ingress is the external IP and/or hostname of the bastion host.",
);

export const bastionSchema: JSONSchemaProps = kindSchema({
  description: "Bastion holds details about an SSH bastion for a shoot cluster.",
  required: ["metadata", "spec"],
  properties: {
    spec: obj(
      {
        shootRef: obj({ name: str("Name of the referent.") }, "ShootRef defines the target shoot for a Bastion. The name field of the ShootRef is immutable."),
        seedName: str("SeedName is the name of the seed to which this Bastion is currently scheduled. This field is populated at the beginning of a create/reconcile operation."),
        providerType: str("ProviderType is cloud provider used by the referenced Shoot."),
        sshPublicKey: str("SSHPublicKey is the user's public key. This field is immutable."),
        ingress: arr(bastionIngressPolicySchema, "Ingress controls from where the created bastion host should be reachable."),
      },
      "Specification of the Bastion.",
    ),
    status: obj(
      {
        ingress: loadBalancerIngressSchema,
        sshHostKeys: stringArray("SSHHostKeys are the host's public SSH keys as \"<type> <base64>\", for known_hosts entries."),
        conditions: mergeList(gardenConditionSchema, "type", "Conditions represents the latest available observations of a Bastion's current state."),
        lastHeartbeatTimestamp: time("LastHeartbeatTimestamp is the time when the bastion was last marked as not to be deleted. When this is set, the ExpirationTimestamp is advanced as well."),
        expirationTimestamp: time("ExpirationTimestamp is the time after which a Bastion is supposed to be garbage collected."),
        observedGeneration: int64("ObservedGeneration is the most recent generation observed for this Bastion. It corresponds to the Bastion's generation, which is updated on mutation by the API Server."),
      },
      "Most recently observed status of the Bastion.",
    ),
  },
});
