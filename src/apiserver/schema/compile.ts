// compileSchema: the entry point turning a whole-object OpenAPI v3 schema into a CompiledSchema
// (prune, applyDefaults, validate). A small interpreter over a pre-compiled tree rather than
// generated code: Kubernetes' error paths and messages are easier to produce faithfully this way,
// and compiling a CRD's schema is cheap.
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import type { FieldError } from "../../apimachinery/field/errors.ts";
import { defaultNode, pruneNonNullableNulls } from "./defaults.ts";
import type { CompiledSchema } from "./interface.ts";
import { type SchemaNode, compileNode } from "./node.ts";
import { pruneNode } from "./prune.ts";
import { validateNode } from "./validate.ts";

export interface CompileOptions {
  /**
   * The schema describes a whole resource (default true): apiVersion and kind are always kept
   * and metadata is pruned to ObjectMeta. false compiles a plain schema (e.g. for tests or
   * sub-documents).
   */
  resource?: boolean;
}

class Compiled implements CompiledSchema {
  constructor(
    private readonly root: SchemaNode,
    private readonly resource: boolean,
  ) {}

  prune(obj: unknown): string[] {
    const removed: string[] = [];
    pruneNode(this.root, obj, "", removed, this.resource || this.root.embedded);
    return removed;
  }

  applyDefaults(obj: unknown): void {
    pruneNonNullableNulls(this.root, obj);
    defaultNode(this.root, obj);
  }

  validate(obj: unknown): FieldError[] {
    const errs: FieldError[] = [];
    validateNode(this.root, obj, "", errs, this.resource ? "root" : this.root.embedded ? "embedded" : undefined);
    return errs;
  }
}

const resourceCache = new WeakMap<JSONSchemaProps, CompiledSchema>();
const plainCache = new WeakMap<JSONSchemaProps, CompiledSchema>();

/** Compiles a schema once per schema object (the result is cached on the object's identity). */
export function compileSchema(schema: JSONSchemaProps, opts: CompileOptions = {}): CompiledSchema {
  const resource = opts.resource ?? true;
  const cache = resource ? resourceCache : plainCache;
  let compiled = cache.get(schema);
  if (!compiled) {
    compiled = new Compiled(compileNode(schema), resource);
    cache.set(schema, compiled);
  }
  return compiled;
}
