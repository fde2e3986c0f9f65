// OpenAPI v3 schema of core.gardener.cloud/v1beta1 Shoot: the fields of docs/bastion.md#shoot
// typed, the rest of Gardener's Shoot kept as given (spec and status preserve unknown fields, so
// real Gardener manifests apply unchanged).
import type { JSONSchemaProps } from "../../../../apis/apiextensions/v1/types.ts";
import { anyValue, arr, bool, int32, mergeList, obj, str } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import { gardenConditionSchema } from "../schemas.ts";

const open = (schema: JSONSchemaProps): JSONSchemaProps => ({ ...schema, "x-kubernetes-preserve-unknown-fields": true });

const worker = open(
  obj(
    {
      name: str("Name is the name of the worker group."),
      minimum: int32("Minimum is the minimum number of machines to create."),
      maximum: int32("Maximum is the maximum number of machines to create."),
      machine: open(
        obj(
          {
            type: str("Type is the machine type of the worker group."),
            image: obj({ name: str("Name is the name of the image."), version: str("Version is the version of the shoot's image.") }, "Image holds information about the machine image to use for all nodes of this pool."),
          },
          "Machine contains information about the machine type and image.",
        ),
      ),
    },
    "Worker is the base definition of a worker group.",
    ["name"],
  ),
);

const provider = open(
  obj(
    {
      type: str("Type is the type of the provider."),
      workers: arr(worker, "Workers is a list of worker groups."),
      workersSettings: obj(
        { sshAccess: obj({ enabled: bool("Enabled indicates whether the SSH access to the worker nodes is ensured to be enabled or disabled in systemd.", { default: true }) }, "SSHAccess contains settings regarding ssh access to the worker nodes.") },
        "WorkersSettings contains settings for all workers.",
      ),
      infrastructureConfig: anyValue("InfrastructureConfig contains the provider-specific infrastructure config blob."),
      controlPlaneConfig: anyValue("ControlPlaneConfig contains the provider-specific control plane config blob."),
    },
    "Provider contains all provider-specific and provider-relevant information.",
    ["type"],
  ),
);

export const shootSchema: JSONSchemaProps = kindSchema({
  description: "Shoot represents a Shoot cluster created and managed by Gardener.",
  properties: {
    spec: open(
      obj(
        {
          seedName: str("SeedName is the name of the seed cluster that runs the control plane of the Shoot."),
          provider,
          hibernation: open(obj({ enabled: bool("Enabled specifies whether the Shoot needs to be hibernated or not.") }, "Hibernation contains information whether the Shoot is suspended or not.")),
          maintenance: open(
            obj(
              { timeWindow: obj({ begin: str("Begin is the beginning of the time window in the format HHMMSS+ZONE."), end: str("End is the end of the time window in the format HHMMSS+ZONE.") }, "TimeWindow contains information about the time window for maintenance operations.", ["begin", "end"]) },
              "Maintenance contains information about the time window for maintenance operations and which operations should be performed.",
            ),
          ),
          networking: open(
            obj(
              {
                type: str("Type identifies the type of the networking plugin."),
                nodes: str("Nodes is the CIDR of the entire node network."),
                pods: str("Pods is the CIDR of the pod network."),
                services: str("Services is the CIDR of the service network."),
              },
              "Networking contains information about cluster networking such as CNI Plugin type, CIDRs, ...etc.",
            ),
          ),
        },
        "Specification of the Shoot cluster.",
        ["provider"],
      ),
    ),
    status: open(
      obj(
        {
          technicalID: str("TechnicalID is the name that is used for creating the Seed namespace, the infrastructure resources, and basically everything that is related to this particular Shoot."),
          conditions: mergeList(gardenConditionSchema, "type", "Conditions represents the latest available observations of a Shoots's current state."),
        },
        "Most recently observed status of the Shoot cluster.",
      ),
    ),
  },
  required: ["spec"],
});
