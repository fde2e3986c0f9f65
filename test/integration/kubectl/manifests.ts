// YAML manifests shared by the kubectl suites.

export function namespaceYaml(name: string, labels: Record<string, string> = {}): string {
  const l = Object.entries(labels).map(([k, v]) => `\n    ${k}: "${v}"`).join("");
  return `apiVersion: v1
kind: Namespace
metadata:
  name: ${name}${l ? `\n  labels:${l}` : ""}
`;
}

export function configMapYaml(ns: string, name: string, data: Record<string, string>, labels: Record<string, string> = {}): string {
  const d = Object.entries(data).map(([k, v]) => `\n  ${k}: "${v}"`).join("");
  const l = Object.entries(labels).map(([k, v]) => `\n    ${k}: "${v}"`).join("");
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${ns}${l ? `\n  labels:${l}` : ""}
data:${d || " {}"}
`;
}

/** One of each kind `kubectl create -f` must handle, in dependency order. */
export function everyKindYaml(ns: string): string {
  return [
    namespaceYaml(ns),
    configMapYaml(ns, "cm1", { a: "1", b: "2" }),
    `apiVersion: v1
kind: Secret
metadata:
  name: s1
  namespace: ${ns}
type: Opaque
stringData:
  username: admin
  password: secret
`,
    `apiVersion: v1
kind: ServiceAccount
metadata:
  name: sa1
  namespace: ${ns}
`,
    `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: r1
  namespace: ${ns}
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list"]
`,
    `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: rb1
  namespace: ${ns}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: r1
subjects:
- kind: User
  apiGroup: rbac.authorization.k8s.io
  name: alice
- kind: Group
  apiGroup: rbac.authorization.k8s.io
  name: devs
- kind: ServiceAccount
  name: sa1
  namespace: ${ns}
`,
  ].join("---\n");
}

export function roleYaml(ns: string, name: string, verbs: string[]): string {
  return `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ${name}
  namespace: ${ns}
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: [${verbs.map((v) => `"${v}"`).join(", ")}]
`;
}

/** A namespaced CRD with printer columns, a status subresource, a default, an enum and a minimum. */
export const widgetCrd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    listKind: WidgetList
    shortNames: [wd]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - name: Size
      type: integer
      jsonPath: .spec.size
    - name: Color
      type: string
      jsonPath: .spec.color
    - name: Ready
      type: boolean
      jsonPath: .status.ready
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    schema:
      openAPIV3Schema:
        type: object
        description: A Widget is a test object.
        properties:
          spec:
            type: object
            description: Desired state of the widget.
            required: [size]
            properties:
              size:
                type: integer
                minimum: 1
                description: Number of parts in the widget.
              color:
                type: string
                enum: [red, green, blue]
                default: red
          status:
            type: object
            properties:
              ready:
                type: boolean
`;
