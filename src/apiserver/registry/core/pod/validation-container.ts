// Container validation (pkg/apis/core/validation validateContainers, validateEnv, validatePorts,
// validateVolumeMounts, validateResourceRequirements), with Kubernetes' paths and messages.
import type { Container } from "../../../../apis/core/v1/pod.ts";
import { type FieldError, type Path, duplicate, forbidden, invalid, notFound, notSupported, required } from "../../../../apimachinery/field/errors.ts";
import { isDNS1123Label, isQualifiedName, regexError } from "../../../../apimachinery/names/validation.ts";
import { asArray, asRecord, asString, isConfigMapKey } from "../keys.ts";
import { QUANTITY_REGEXP, parseQuantity } from "./quantity.ts";

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const ENV_NAME_MSG = regexError(
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
  "[-._a-zA-Z][-._a-zA-Z0-9]*",
  "my.env-name",
  "MY_ENV.NAME",
  "MyEnvName1",
);

/** Field paths env[].valueFrom.fieldRef may name (validEnvDownwardAPIFieldPathExpressions). */
export const ENV_FIELD_PATHS = [
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.serviceAccountName",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
];

const SUBSCRIPTED = /^metadata\.(labels|annotations)\['(.*)'\]$/;

/** A downward API field path: one of `allowed`, or metadata.labels['k'] / metadata.annotations['k']. */
export function validateFieldPath(path: Path, fieldPath: string, allowed: string[]): FieldError[] {
  const sub = SUBSCRIPTED.exec(fieldPath);
  if (sub) {
    const key = sub[2]!;
    if (sub[1] === "annotations") return key ? [] : [invalid(path, key, "name part must be non-empty")];
    return isQualifiedName(key).map((m) => invalid(path, key, m));
  }
  return allowed.includes(fieldPath) ? [] : [notSupported(path, fieldPath, allowed)];
}

function validateKeyRef(path: Path, ref: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  if (!asString(ref.name)) errs.push(required(path.child("name")));
  const key = asString(ref.key);
  if (!key) errs.push(required(path.child("key")));
  else for (const m of isConfigMapKey(key)) errs.push(invalid(path.child("key"), key, m));
  return errs;
}

function validateEnv(env: unknown[], path: Path): FieldError[] {
  const errs: FieldError[] = [];
  env.forEach((e, i) => {
    const v = asRecord(e);
    if (!v) return;
    const p = path.index(i);
    const name = asString(v.name);
    if (!name) errs.push(required(p.child("name")));
    else if (!ENV_NAME.test(name)) errs.push(invalid(p.child("name"), name, ENV_NAME_MSG));
    const from = asRecord(v.valueFrom);
    if (!from) return;
    const fp = p.child("valueFrom");
    const sources = ["fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef"].filter((k) => asRecord(from[k]));
    if (sources.length === 0) errs.push(invalid(fp, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
    else if (sources.length > 1) errs.push(invalid(fp, "", "may not have more than one field specified at a time"));
    if (asString(v.value)) errs.push(invalid(fp, "", "may not be specified when `value` is not empty"));
    const fieldRef = asRecord(from.fieldRef);
    if (fieldRef) {
      const fieldPath = asString(fieldRef.fieldPath);
      if (!asString(fieldRef.apiVersion)) errs.push(required(fp.child("fieldRef", "apiVersion")));
      if (!fieldPath) errs.push(required(fp.child("fieldRef", "fieldPath")));
      else errs.push(...validateFieldPath(fp.child("fieldRef", "fieldPath"), fieldPath, ENV_FIELD_PATHS));
    }
    for (const k of ["configMapKeyRef", "secretKeyRef"]) {
      const ref = asRecord(from[k]);
      if (ref) errs.push(...validateKeyRef(fp.child(k), ref));
    }
  });
  return errs;
}

const PORT_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

function validatePortNumber(path: Path, v: unknown): FieldError[] {
  if (typeof v !== "number") return [];
  return v >= 1 && v <= 65535 ? [] : [invalid(path, v, "must be between 1 and 65535, inclusive")];
}

/** IsValidPortName: an IANA_SVC_NAME. */
export function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push("must be no more than 15 characters");
  if (!PORT_NAME.test(name)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (name.includes("--")) errs.push("must not contain consecutive hyphens");
  if (!/[a-z]/.test(name)) errs.push("must contain at least one letter (a-z)");
  return errs;
}

function validatePorts(ports: unknown[], path: Path, hostNetwork: boolean, names: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  ports.forEach((x, i) => {
    const port = asRecord(x);
    if (!port) return;
    const p = path.index(i);
    const name = asString(port.name);
    if (name) {
      for (const m of portNameErrors(name)) errs.push(invalid(p.child("name"), name, m));
      if (names.has(name)) errs.push(duplicate(p.child("name"), name));
      names.add(name);
    }
    if (!port.containerPort) errs.push(required(p.child("containerPort")));
    else errs.push(...validatePortNumber(p.child("containerPort"), port.containerPort));
    if (port.hostPort) errs.push(...validatePortNumber(p.child("hostPort"), port.hostPort));
    const protocol = asString(port.protocol);
    if (!["SCTP", "TCP", "UDP"].includes(protocol)) errs.push(notSupported(p.child("protocol"), protocol, ["SCTP", "TCP", "UDP"]));
    if (hostNetwork && port.hostPort !== undefined && port.hostPort !== port.containerPort) {
      errs.push(invalid(p.child("hostPort"), port.hostPort, "must match `containerPort` when `hostNetwork` is true"));
    }
  });
  return errs;
}

function validateMounts(mounts: unknown[], path: Path, volumes: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const paths = new Set<string>();
  mounts.forEach((x, i) => {
    const m = asRecord(x);
    if (!m) return;
    const p = path.index(i);
    const name = asString(m.name);
    if (!name) errs.push(required(p.child("name")));
    else if (!volumes.has(name)) errs.push(notFound(p.child("name"), name));
    const mountPath = asString(m.mountPath);
    if (!mountPath) errs.push(required(p.child("mountPath")));
    else if (paths.has(mountPath)) errs.push(invalid(p.child("mountPath"), mountPath, "must be unique"));
    paths.add(mountPath);
    const subPath = asString(m.subPath);
    if (subPath && (subPath.startsWith("/") || subPath.split("/").includes(".."))) {
      errs.push(invalid(p.child("subPath"), subPath, subPath.startsWith("/") ? "must be a relative path" : "must not contain '..'"));
    }
  });
  return errs;
}

function validateResources(res: Record<string, unknown>, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const limits = asRecord(res.limits) ?? {};
  const requests = asRecord(res.requests) ?? {};
  for (const [kind, map] of [["limits", limits], ["requests", requests]] as const) {
    for (const [name, q] of Object.entries(map)) {
      const value = parseQuantity(q);
      if (value === undefined) errs.push(invalid(path.child(kind).key(name), q, `quantities must match the regular expression '${QUANTITY_REGEXP}'`));
      else if (value < 0) errs.push(invalid(path.child(kind).key(name), q, "must be greater than or equal to 0"));
    }
  }
  for (const [name, q] of Object.entries(requests)) {
    const req = parseQuantity(q);
    const lim = parseQuantity(limits[name]);
    if (req !== undefined && lim !== undefined && req > lim) {
      errs.push(invalid(path.child("requests").key(name), q, `must be less than or equal to ${name} limit of ${String(limits[name])}`));
    }
  }
  return errs;
}

function validateSecurityContext(sc: Record<string, unknown>, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of ["runAsUser", "runAsGroup"]) {
    const v = sc[k];
    if (typeof v === "number" && (v < 0 || v > 2147483647)) errs.push(invalid(path.child(k), v, "must be between 0 and 2147483647, inclusive"));
  }
  if (sc.privileged === true && sc.allowPrivilegeEscalation === false) {
    errs.push(invalid(path, "", "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"));
  }
  return errs;
}

export interface ContainerContext {
  volumes: Set<string>;
  hostNetwork: boolean;
  /** Names of every container seen so far (init and regular share one name space). */
  names: Set<string>;
  portNames: Set<string>;
  init: boolean;
}

export function validateContainers(containers: unknown[], path: Path, c: ContainerContext): FieldError[] {
  const errs: FieldError[] = [];
  containers.forEach((x, i) => {
    const ctr = asRecord(x) as Container | undefined;
    if (!ctr) return;
    const p = path.index(i);
    const name = asString(ctr.name);
    if (!name) errs.push(required(p.child("name")));
    else {
      for (const m of isDNS1123Label(name)) errs.push(invalid(p.child("name"), name, m));
      if (c.names.has(name)) errs.push(duplicate(p.child("name"), name));
      c.names.add(name);
    }
    const image = asString(ctr.image);
    if (!image) errs.push(required(p.child("image")));
    else if (image.trim() !== image) errs.push(invalid(p.child("image"), image, "must not have leading or trailing whitespace"));
    const pull = asString(ctr.imagePullPolicy);
    if (!["Always", "IfNotPresent", "Never"].includes(pull)) errs.push(notSupported(p.child("imagePullPolicy"), pull, ["Always", "IfNotPresent", "Never"]));
    const tmp = asString(ctr.terminationMessagePolicy);
    if (!["File", "FallbackToLogsOnError"].includes(tmp)) {
      errs.push(notSupported(p.child("terminationMessagePolicy"), tmp, ["File", "FallbackToLogsOnError"]));
    }
    if (ctr.restartPolicy !== undefined) {
      if (!c.init) errs.push(forbidden(p.child("restartPolicy"), "may not be set for non-init containers"));
      else if (ctr.restartPolicy !== "Always") errs.push(notSupported(p.child("restartPolicy"), ctr.restartPolicy, ["Always"]));
    }
    errs.push(...validatePorts(asArray(ctr.ports), p.child("ports"), c.hostNetwork, c.portNames));
    errs.push(...validateEnv(asArray(ctr.env), p.child("env")));
    errs.push(...validateMounts(asArray(ctr.volumeMounts), p.child("volumeMounts"), c.volumes));
    const res = asRecord(ctr.resources);
    if (res) errs.push(...validateResources(res, p.child("resources")));
    const sc = asRecord(ctr.securityContext);
    if (sc) errs.push(...validateSecurityContext(sc, p.child("securityContext")));
  });
  return errs;
}
