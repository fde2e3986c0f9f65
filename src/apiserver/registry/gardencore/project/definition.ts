// core.gardener.cloud/v1beta1 Project (cluster-scoped, docs/bastion.md#project). Printed as
// NAME NAMESPACE STATUS AGE; selectable by spec.namespace (controllers find the project of a namespace).
import { nameIsDNSLabel } from "../../../../apimachinery/validation/names.ts";
import { GROUP, VERSION, type Project } from "../../../../apis/gardencore/v1beta1/types.ts";
import type { JSONSchemaProps } from "../../../../apis/apiextensions/v1/types.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { validateProject, validateProjectUpdate } from "../../../../api/gardencore/validation/project.ts";
import { arr, int64, obj, str, stringArray, time } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import { asRecord, asString } from "../../core/keys.ts";
import { ageCell, ageColumn, column } from "../../core/printers.ts";
import type { ResourceDefinition, Strategy, TableConvertor } from "../../types.ts";

export const PROJECTS = { group: GROUP, resource: "projects" } as const;

const subjectFields: Record<string, JSONSchemaProps> = {
  apiGroup: str("APIGroup holds the API group of the referenced subject."),
  kind: str("Kind of object being referenced. Values defined by this API group are \"User\", \"Group\", and \"ServiceAccount\"."),
  name: str("Name of the object being referenced."),
  namespace: str("Namespace of the referenced object."),
};
const subject = (description: string) => obj(subjectFields, description, ["kind", "name"]);

export const projectSchema = kindSchema({
  description: "Project holds certain properties about a Gardener project.",
  properties: {
    spec: obj(
      {
        createdBy: subject("CreatedBy is a subject representing a user name, an email address, or any other identifier of a user who created the project."),
        description: str("Description is a human-readable description of what the project is used for."),
        owner: subject("Owner is a subject representing a user name, an email address, or any other identifier of a user owning the project."),
        purpose: str("Purpose is a human-readable explanation of the project's purpose."),
        members: arr(
          obj({ ...subjectFields, role: str("Role represents the role of this member."), roles: stringArray("Roles represents further roles that are assigned to the project member.") }, "ProjectMember is a member of a project.", ["kind", "name"]),
          "Members is a list of subjects representing a user name, an email address, or any other identifier of a user, group, or service account that has a certain role.",
        ),
        namespace: str("Namespace is the name of the namespace that has been created for the Project object."),
      },
      "Spec defines the project properties.",
    ),
    status: obj(
      {
        observedGeneration: int64("ObservedGeneration is the most recent generation observed for this project."),
        phase: str("Phase is the current phase of the project."),
        staleSinceTimestamp: time("StaleSinceTimestamp contains the timestamp when the project was first discovered to be stale/unused."),
        staleAutoDeleteTimestamp: time("StaleAutoDeleteTimestamp contains the timestamp when the project will be garbage-collected/automatically deleted because it's stale/unused."),
        lastActivityTimestamp: time("LastActivityTimestamp contains the timestamp from the last activity performed in this project."),
      },
      "Most recently observed status of the Project.",
    ),
  },
});

const strategy: Strategy<Project> = {
  // Project names become parts of namespace names (garden-<name>) and shoot technical IDs.
  validate: (_ctx, p) => validateProject(p),
  validateUpdate: (_ctx, p, old) => validateProjectUpdate(p, old),
  validateStatusUpdate: () => [],
};


export const projectTable: TableConvertor = {
  columns: [column("Namespace", "string", "The project namespace in the garden."), column("Status", "string", "The project's phase."), ageColumn()],
  cells: (o: KubeObject, now: Date) => [asString(asRecord(o.spec)?.namespace), asString(asRecord(o.status)?.phase), ageCell(o, now)],
};

export const projectDefinition: ResourceDefinition = {
  group: GROUP,
  version: VERSION,
  kind: "Project",
  listKind: "ProjectList",
  plural: "projects",
  singular: "project",
  namespaced: false,
  schema: projectSchema,
  hasStatus: true,
  strategy,
  table: projectTable,
  fieldSelectors: { "spec.namespace": (o) => asString(asRecord(o.spec)?.namespace) },
  strategicMergePatch: true,
  // Names become parts of DNS names, namespaces and host names.
  nameValidator: nameIsDNSLabel,
};
