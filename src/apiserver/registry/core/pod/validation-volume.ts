// Volume validation (pkg/apis/core/validation ValidateVolumes): names, exactly one source, and
// the sources users meet (emptyDir, hostPath, secret, configMap, projected, downwardAPI).
import { type FieldError, type Path, duplicate, forbidden, invalid, notSupported, required } from "../../../../apimachinery/field/errors.ts";
import { isDNS1123Label } from "../../../../apimachinery/names/validation.ts";
import { asArray, asRecord, asString } from "../keys.ts";
import { validateFieldPath } from "./validation-container.ts";

export const HOST_PATH_TYPES = ["", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice"];
const VOLUME_FIELD_PATHS = ["metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"];
const MIN_TOKEN_SECONDS = 600;
const MAX_TOKEN_SECONDS = 2 ** 32;

/** The keys of a volume that are sources (everything but name). */
export function volumeSources(volume: Record<string, unknown>): string[] {
  return Object.keys(volume).filter((k) => k !== "name" && volume[k] !== undefined && volume[k] !== null);
}

function validateMode(path: Path, mode: unknown): FieldError[] {
  if (mode === undefined) return [];
  return typeof mode === "number" && mode >= 0 && mode <= 0o777 ? [] : [invalid(path, mode, "must be a number between 0 and 0777 (octal), both inclusive")];
}

function validateLocalPath(path: Path, p: string): FieldError[] {
  if (p.startsWith("/")) return [invalid(path, p, "must be a relative path")];
  if (p.split("/").includes("..")) return [invalid(path, p, "must not contain '..'")];
  return [];
}

function validateItems(items: unknown[], path: Path, paths: Set<string> | undefined): FieldError[] {
  const errs: FieldError[] = [];
  items.forEach((x, i) => {
    const item = asRecord(x);
    if (!item) return;
    const p = path.index(i);
    if (!asString(item.key) && item.fieldRef === undefined && item.resourceFieldRef === undefined) errs.push(required(p.child("key")));
    const itemPath = asString(item.path);
    if (!itemPath) errs.push(required(p.child("path")));
    else errs.push(...validateLocalPath(p.child("path"), itemPath));
    errs.push(...validateMode(p.child("mode"), item.mode));
    const fieldRef = asRecord(item.fieldRef);
    if (fieldRef) errs.push(...validateFieldPath(p.child("fieldRef", "fieldPath"), asString(fieldRef.fieldPath), VOLUME_FIELD_PATHS));
    if (paths && itemPath) {
      if (paths.has(itemPath)) errs.push(invalid(p.child("path"), itemPath, "conflicting duplicate paths"));
      paths.add(itemPath);
    }
  });
  return errs;
}

function validateProjected(src: Record<string, unknown>, path: Path): FieldError[] {
  const errs: FieldError[] = [...validateMode(path.child("defaultMode"), src.defaultMode)];
  const paths = new Set<string>();
  asArray(src.sources).forEach((x, i) => {
    const s = asRecord(x);
    if (!s) return;
    const p = path.child("sources").index(i);
    const kinds = Object.keys(s).filter((k) => s[k] !== undefined && s[k] !== null);
    if (kinds.length !== 1) errs.push(forbidden(p, "may not specify more than 1 volume type per source"));
    const token = asRecord(s.serviceAccountToken);
    if (token) {
      const tp = p.child("serviceAccountToken");
      const tokenPath = asString(token.path);
      if (!tokenPath) errs.push(required(tp.child("path")));
      else {
        errs.push(...validateLocalPath(tp.child("path"), tokenPath));
        if (paths.has(tokenPath)) errs.push(invalid(tp.child("path"), tokenPath, "conflicting duplicate paths"));
        paths.add(tokenPath);
      }
      const exp = token.expirationSeconds;
      if (typeof exp === "number" && exp < MIN_TOKEN_SECONDS) errs.push(invalid(tp.child("expirationSeconds"), exp, "may not specify a duration less than 10 minutes"));
      if (typeof exp === "number" && exp > MAX_TOKEN_SECONDS) errs.push(invalid(tp.child("expirationSeconds"), exp, "may not specify a duration larger than 2^32 seconds"));
    }
    for (const k of ["secret", "configMap", "downwardAPI"]) {
      const sub = asRecord(s[k]);
      if (sub) errs.push(...validateItems(asArray(sub.items), p.child(k, "items"), paths));
    }
  });
  return errs;
}

function validateSource(kind: string, src: Record<string, unknown>, path: Path): FieldError[] {
  switch (kind) {
    case "hostPath": {
      const errs: FieldError[] = [];
      const p = asString(src.path);
      if (!p) errs.push(required(path.child("path")));
      else if (p.split("/").includes("..")) errs.push(invalid(path.child("path"), p, "must not contain '..'"));
      const type = asString(src.type);
      if (!HOST_PATH_TYPES.includes(type)) errs.push(notSupported(path.child("type"), type, HOST_PATH_TYPES));
      return errs;
    }
    case "secret":
      return [
        ...(asString(src.secretName) ? [] : [required(path.child("secretName"))]),
        ...validateMode(path.child("defaultMode"), src.defaultMode),
        ...validateItems(asArray(src.items), path.child("items"), undefined),
      ];
    case "configMap":
      return [
        ...(asString(src.name) ? [] : [required(path.child("name"))]),
        ...validateMode(path.child("defaultMode"), src.defaultMode),
        ...validateItems(asArray(src.items), path.child("items"), undefined),
      ];
    case "downwardAPI":
      return [...validateMode(path.child("defaultMode"), src.defaultMode), ...validateItems(asArray(src.items), path.child("items"), new Set())];
    case "projected":
      return validateProjected(src, path);
    default:
      return [];
  }
}

/** Validates spec.volumes; returns the errors and the valid volume names (for volumeMounts). */
export function validateVolumes(volumes: unknown[], path: Path): { errs: FieldError[]; names: Set<string> } {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  volumes.forEach((x, i) => {
    const v = asRecord(x);
    if (!v) return;
    const p = path.index(i);
    const name = asString(v.name);
    if (!name) errs.push(required(p.child("name")));
    else {
      for (const m of isDNS1123Label(name)) errs.push(invalid(p.child("name"), name, m));
      if (names.has(name)) errs.push(duplicate(p.child("name"), name));
      names.add(name);
    }
    const sources = volumeSources(v);
    if (sources.length === 0) errs.push(required(p, "must specify a volume type"));
    for (const extra of sources.slice(1)) errs.push(forbidden(p.child(extra), "may not specify more than 1 volume type"));
    for (const s of sources) {
      const src = asRecord(v[s]);
      if (src) errs.push(...validateSource(s, src, p.child(s)));
    }
  });
  return { errs, names };
}
