// Schemas of core/v1 types shared by several kinds.
import type { JSONSchemaProps } from "../../../apis/apiextensions/v1/types.ts";
import { obj, str } from "../../schema/builders.ts";

export function objectReferenceSchema(description = "ObjectReference contains enough information to let you inspect or modify the referred object."): JSONSchemaProps {
  return {
    ...obj(
      {
        kind: str("Kind of the referent."),
        namespace: str("Namespace of the referent."),
        name: str("Name of the referent."),
        uid: str("UID of the referent."),
        apiVersion: str("API version of the referent."),
        resourceVersion: str("Specific resourceVersion to which this reference is made, if any."),
        fieldPath: str("If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]."),
      },
      description,
    ),
    "x-kubernetes-map-type": "atomic",
  };
}

export function localObjectReferenceSchema(): JSONSchemaProps {
  return {
    ...obj(
      { name: str("Name of the referent.") },
      "LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.",
    ),
    "x-kubernetes-map-type": "atomic",
  };
}
