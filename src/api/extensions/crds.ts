// The seed-side CRD manifests (manifests/crds/): bastions and clusters of extensions.gardener.cloud.
// Read from the package's files so that the YAML users apply to a real seed and what our own seed
// API server installs are the same bytes.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { CustomResourceDefinition } from "../../apis/apiextensions/v1/types.ts";

export const EXTENSION_CRD_FILES: readonly string[] = ["extensions.gardener.cloud_bastions.yaml", "extensions.gardener.cloud_clusters.yaml"].map((f) =>
  fileURLToPath(new URL(`../../../manifests/crds/${f}`, import.meta.url)),
);

/** Parses the manifests (one CRD per file). */
export function readExtensionCRDs(): CustomResourceDefinition[] {
  return EXTENSION_CRD_FILES.map((file) => parse(readFileSync(file, "utf8")) as CustomResourceDefinition);
}
