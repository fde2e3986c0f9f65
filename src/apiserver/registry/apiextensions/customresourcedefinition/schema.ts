// The schema of CustomResourceDefinition itself. openAPIV3Schema is recursive, which a schema
// without references cannot express: it is kept as is here and checked by the CRD validation.
import type { JSONSchemaProps } from "../../../../apis/apiextensions/v1/types.ts";
import { anyValue, atomicList, bool, enumStr, int32, mergeList, obj, str, stringArray } from "../../../schema/builders.ts";
import { conditionSchema, kindSchema } from "../../../schema/objectmeta.ts";

const names = (description: string): JSONSchemaProps =>
  obj(
    {
      plural: str("plural is the plural name of the resource to serve. Must be all lowercase."),
      singular: str("singular is the singular name of the resource. It must be all lowercase. Defaults to lowercased `kind`."),
      shortNames: atomicList(str(), "shortNames are short names for the resource, exposed in API discovery documents. It must be all lowercase."),
      kind: str("kind is the serialized kind of the resource. It is normally CamelCase and singular."),
      listKind: str('listKind is the serialized kind of the list for this resource. Defaults to "`kind`List".'),
      categories: atomicList(str(), "categories is a list of grouped resources this custom resource belongs to (e.g. 'all')."),
    },
    description,
    ["plural", "kind"],
  );

const columnDefinition = obj(
  {
    name: str("name is a human readable name for the column."),
    type: str("type is an OpenAPI type definition for this column (integer, number, string, boolean or date)."),
    format: str("format is an optional OpenAPI type definition for this column."),
    description: str("description is a human readable description of this column."),
    priority: int32("priority is an integer defining the relative importance of this column compared to others. Lower numbers are considered higher priority."),
    jsonPath: str("jsonPath is a simple JSON path (i.e. with array notation) which is evaluated against each custom resource to produce the value for this column."),
  },
  "CustomResourceColumnDefinition specifies a column for server side printing.",
  ["name", "type", "jsonPath"],
);

const version = obj(
  {
    name: str("name is the version name, e.g. \u201cv1\u201d, \u201cv2beta1\u201d, etc."),
    served: bool("served is a flag enabling/disabling this version from being served via REST APIs"),
    storage: bool("storage indicates this version should be used when persisting custom resources to storage. There must be exactly one version with storage=true."),
    deprecated: bool("deprecated indicates this version of the custom resource API is deprecated."),
    deprecationWarning: str("deprecationWarning overrides the default warning returned to API clients."),
    schema: obj(
      { openAPIV3Schema: { ...anyValue("openAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning."), type: "object" } },
      "schema describes the schema used for validation, pruning, and defaulting of this version of the custom resource.",
    ),
    subresources: obj(
      {
        status: { type: "object", description: "status indicates the custom resource should serve a `/status` subresource." },
        scale: obj(
          {
            specReplicasPath: str("specReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `spec.replicas`."),
            statusReplicasPath: str("statusReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `status.replicas`."),
            labelSelectorPath: str("labelSelectorPath defines the JSON path inside of a custom resource that corresponds to Scale `status.selector`."),
          },
          "scale indicates the custom resource should serve a `/scale` subresource that returns an `autoscaling/v1` Scale object.",
          ["specReplicasPath", "statusReplicasPath"],
        ),
      },
      "subresources specify what subresources this version of the defined custom resource have.",
    ),
    additionalPrinterColumns: atomicList(columnDefinition, "additionalPrinterColumns specifies additional columns returned in Table output."),
    selectableFields: atomicList(
      obj({ jsonPath: str("jsonPath is a simple JSON path which is evaluated against each custom resource to produce a field selector value.") }, "SelectableField specifies the JSON path of a field that may be used with field selectors.", ["jsonPath"]),
      "selectableFields specifies paths to fields that may be used as field selectors.",
    ),
  },
  "CustomResourceDefinitionVersion describes a version for CRD.",
  ["name", "served", "storage"],
);

export const crdSchema = kindSchema({
  description:
    "CustomResourceDefinition represents a resource that should be exposed on the API server. Its name MUST be in the format <.spec.name>.<.spec.group>.",
  required: ["spec"],
  properties: {
    spec: obj(
      {
        group: str("group is the API group of the defined custom resource."),
        names: names("names specify the resource and kind names for the custom resource."),
        scope: enumStr(["Cluster", "Namespaced"], "scope indicates whether the defined custom resource is cluster- or namespace-scoped."),
        versions: atomicList(version, "versions is the list of all API versions of the defined custom resource."),
        conversion: obj(
          {
            strategy: str("strategy specifies how custom resources are converted between versions. This server supports None."),
            webhook: { ...anyValue("webhook describes how to call the conversion webhook."), type: "object" },
          },
          "conversion defines conversion settings for the CRD.",
          ["strategy"],
        ),
        preserveUnknownFields: bool("preserveUnknownFields indicates that object fields which are not specified in the OpenAPI schema should be preserved when persisting to storage."),
      },
      "CustomResourceDefinitionSpec describes how a user wants their resource to appear",
      ["group", "names", "scope", "versions"],
    ),
    status: obj(
      {
        conditions: mergeList(conditionSchema("CustomResourceDefinitionCondition contains details for the current condition of this pod."), "type", "conditions indicate state for particular aspects of a CustomResourceDefinition"),
        acceptedNames: names("acceptedNames are the names that are actually being used to serve discovery."),
        storedVersions: stringArray("storedVersions lists all versions of CustomResources that were ever persisted."),
      },
      "CustomResourceDefinitionStatus indicates the state of the CustomResourceDefinition",
    ),
  },
});
