// Schemas of rbac.authorization.k8s.io/v1. The Go types carry no patch strategies, so a
// strategic merge patch on RBAC objects behaves like a merge patch (lists are replaced).
import type { JSONSchemaProps } from "../../../apis/apiextensions/v1/types.ts";
import { atomicList, obj, str, stringArray } from "../../schema/builders.ts";
import { kindSchema, labelSelectorSchema } from "../../schema/objectmeta.ts";

export const RBAC_GROUP = "rbac.authorization.k8s.io";

const atomicStrings = (description: string): JSONSchemaProps => stringArray(description, { "x-kubernetes-list-type": "atomic" });

export const policyRuleSchema = obj(
  {
    verbs: atomicStrings("Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. '*' represents all verbs."),
    apiGroups: atomicStrings("APIGroups is the name of the APIGroup that contains the resources. \"\" represents the core API group and \"*\" represents all API groups."),
    resources: atomicStrings("Resources is a list of resources this rule applies to. '*' represents all resources."),
    resourceNames: atomicStrings("ResourceNames is an optional white list of names that the rule applies to. An empty set means that everything is allowed."),
    nonResourceURLs: atomicStrings("NonResourceURLs is a set of partial urls that a user should have access to. *s are allowed, but only as the full, final step in the path."),
  },
  "PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to.",
  ["verbs"],
);

const rules = (): JSONSchemaProps => atomicList(policyRuleSchema, "Rules holds all the PolicyRules for this Role");

export const roleSchema = kindSchema({
  description: "Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.",
  properties: { rules: rules() },
});

export const clusterRoleSchema = kindSchema({
  description: "ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.",
  properties: {
    rules: rules(),
    aggregationRule: obj(
      {
        clusterRoleSelectors: atomicList(
          labelSelectorSchema,
          "ClusterRoleSelectors holds a list of selectors which will be used to find ClusterRoles and create the rules. If any of the selectors match, then the ClusterRole's permissions will be added",
        ),
      },
      "AggregationRule is an optional field that describes how to build the Rules for this ClusterRole. If AggregationRule is set, then the Rules are controller managed and direct changes to Rules will be stomped by the controller.",
    ),
  },
});

const subjectSchema: JSONSchemaProps = {
  ...obj(
    {
      kind: str('Kind of object being referenced. Values defined by this API group are "User", "Group", and "ServiceAccount".'),
      apiGroup: str('APIGroup holds the API group of the referenced subject. Defaults to "" for ServiceAccount subjects. Defaults to "rbac.authorization.k8s.io" for User and Group subjects.'),
      name: str("Name of the object being referenced."),
      namespace: str('Namespace of the referenced object. If the object kind is non-namespace, such as "User" or "Group", and this value is not empty the Authorizer should report an error.'),
    },
    "Subject contains a reference to the object or user identities a role binding applies to.",
    ["kind", "name"],
  ),
  "x-kubernetes-map-type": "atomic",
};

const roleRefSchema: JSONSchemaProps = {
  ...obj(
    {
      apiGroup: str("APIGroup is the group for the resource being referenced"),
      kind: str("Kind is the type of resource being referenced"),
      name: str("Name is the name of resource being referenced"),
    },
    "RoleRef contains information that points to the role being used",
    ["apiGroup", "kind", "name"],
  ),
  "x-kubernetes-map-type": "atomic",
};

function bindingSchema(description: string, roleRefDescription: string): JSONSchemaProps {
  return kindSchema({
    description,
    required: ["roleRef"],
    properties: {
      subjects: atomicList(subjectSchema, "Subjects holds references to the objects the role applies to."),
      roleRef: { ...roleRefSchema, description: roleRefDescription },
    },
  });
}

export const roleBindingSchema = bindingSchema(
  "RoleBinding references a role, but does not contain it. It can reference a Role in the same namespace or a ClusterRole in the global namespace.",
  "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.",
);

export const clusterRoleBindingSchema = bindingSchema(
  "ClusterRoleBinding references a ClusterRole, but not contain it. It can reference a ClusterRole in the global namespace, and adds who information via Subject.",
  "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.",
);
