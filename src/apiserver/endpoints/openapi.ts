// The served OpenAPI documents (docs/kubernetes-api.md#openapi): /openapi/v2 as gnostic protobuf (openapi-v2-protobuf.ts)
// or swagger 2.0 JSON on Accept application/json, the /openapi/v3 index and one v3 document per
// group-version. Documents are rebuilt lazily when the registry changes; hashes are content hashes.
import { createHash } from "node:crypto";
import type { ResourceRegistry } from "../registry/registry.ts";
import type { ResourceDefinition } from "../registry/types.ts";
import { resourcePaths, type Builder } from "./openapi-paths.ts";
import { encodeOpenAPIV2 } from "./openapi-v2-protobuf.ts";
import { listSchema, metaSchemas, resourceSchema, type Schema, schemaName } from "./openapi-schemas.ts";

export const OPENAPI_V2_PROTOBUF_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

function field(num: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(num << 3) | 2, ...varint(payload.length)]), payload]);
}

/** gnostic openapi.v2.Document { swagger: "2.0", info: { title, version } } (docs/kubernetes-api.md#openapi byte layout). */
export function minimalOpenAPIV2Protobuf(title: string, version: string): Buffer {
  const info = Buffer.concat([field(1, Buffer.from(title)), field(2, Buffer.from(version))]);
  return Buffer.concat([field(1, Buffer.from("2.0")), field(2, info)]);
}

export function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function hashOf(text: string): string {
  return createHash("sha512").update(text).digest("hex").toUpperCase();
}

export interface Served {
  json: string;
  hash: string;
}

/** v3 document for the definitions of one group-version. */
export function openAPIV3Document(defs: ResourceDefinition[], info: { title: string; version: string }): Schema {
  const prefix = "#/components/schemas/";
  const b: Builder = { style: "v3", ref: (name) => ({ $ref: `${prefix}${name}` }) };
  const paths: Record<string, Schema> = {};
  const schemas: Record<string, Schema> = metaSchemas(prefix);
  for (const def of [...defs].sort((x, y) => (x.plural < y.plural ? -1 : 1))) {
    Object.assign(paths, resourcePaths(b, def));
    schemas[schemaName(def.group, def.version, def.kind)] = resourceSchema(def, prefix, false);
    schemas[schemaName(def.group, def.version, def.listKind)] = listSchema(def, prefix);
  }
  return { openapi: "3.0.0", info, paths, components: { schemas } };
}

/** Swagger 2.0 JSON document of all definitions. */
export function openAPIV2Document(defs: ResourceDefinition[], info: { title: string; version: string }): Schema {
  const prefix = "#/definitions/";
  const b: Builder = { style: "v2", ref: (name) => ({ $ref: `${prefix}${name}` }) };
  const paths: Record<string, Schema> = {};
  const definitions: Record<string, Schema> = metaSchemas(prefix);
  for (const def of defs) {
    Object.assign(paths, resourcePaths(b, def));
    definitions[schemaName(def.group, def.version, def.kind)] = resourceSchema(def, prefix, true);
    definitions[schemaName(def.group, def.version, def.listKind)] = listSchema(def, prefix);
  }
  return { swagger: "2.0", info, paths, definitions };
}

/** Caches the documents per registry version. */
export class OpenAPIService {
  private cachedAt = -1;
  private v3 = new Map<string, Served>();
  private v2: Served | undefined;
  private v2Pb: Buffer | undefined;
  readonly protobuf: Buffer;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly info: { title: string; version: string },
  ) {
    this.protobuf = minimalOpenAPIV2Protobuf(info.title, info.version);
  }

  private refresh(): void {
    if (this.cachedAt === this.registry.version) return;
    this.cachedAt = this.registry.version;
    this.v3.clear();
    this.v2 = undefined;
    this.v2Pb = undefined;
  }

  /** The group-versions served, as index keys ("api/v1", "apis/<g>/<v>"). */
  groupVersions(): string[] {
    const keys = new Set(this.registry.all().map((d) => gvPath(d.group, d.version)));
    return [...keys].sort();
  }

  v3Index(): Record<string, unknown> {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const key of this.groupVersions()) {
      const doc = this.v3Document(key);
      if (doc) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
    }
    return { paths };
  }

  /** key: "api/v1" or "apis/<g>/<v>". */
  v3Document(key: string): Served | undefined {
    this.refresh();
    const hit = this.v3.get(key);
    if (hit) return hit;
    const defs = this.registry.all().filter((d) => gvPath(d.group, d.version) === key);
    if (defs.length === 0) return undefined;
    const json = JSON.stringify(openAPIV3Document(defs, this.info));
    const served = { json, hash: hashOf(json) };
    this.v3.set(key, served);
    return served;
  }

  /** The v2 document as gnostic protobuf (what kubectl reads). */
  v2Protobuf(): Buffer {
    this.refresh();
    this.v2Pb ??= encodeOpenAPIV2(openAPIV2Document(this.registry.all(), this.info));
    return this.v2Pb;
  }

  v2Json(): Served {
    this.refresh();
    if (!this.v2) {
      const json = JSON.stringify(openAPIV2Document(this.registry.all(), this.info));
      this.v2 = { json, hash: hashOf(json) };
    }
    return this.v2;
  }
}
