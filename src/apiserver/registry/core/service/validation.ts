// Service validation (pkg/apis/core/validation ValidateService, ValidateServiceUpdate): ports,
// selector, type-specific rules and the cluster IP that may not change once set.
import { isIP } from "node:net";
import type { Service } from "../../../../apis/core/v1/service.ts";
import { type FieldError, Path, duplicate, forbidden, invalid, required } from "../../../../apimachinery/field/errors.ts";
import { isDNS1123Label, isDNS1123Subdomain } from "../../../../apimachinery/names/validation.ts";
import { validateLabels } from "../../../../apimachinery/validation/objectmeta.ts";
import { asArray, asRecord, asString } from "../keys.ts";
import { portNameErrors } from "../pod/validation-container.ts";

const SPEC = Path.root("spec");

function validatePorts(svc: Service): FieldError[] {
  const spec = svc.spec ?? {};
  const ports = asArray(spec.ports);
  const errs: FieldError[] = [];
  const headless = spec.clusterIP === "None";
  if (ports.length === 0 && !headless && spec.type !== "ExternalName") errs.push(required(SPEC.child("ports")));
  const names = new Set<string>();
  ports.forEach((x, i) => {
    const p = asRecord(x);
    if (!p) return;
    const path = SPEC.child("ports").index(i);
    const name = asString(p.name);
    if (ports.length > 1 && !name) errs.push(required(path.child("name")));
    if (name) {
      for (const m of isDNS1123Label(name)) errs.push(invalid(path.child("name"), name, m));
      if (names.has(name)) errs.push(duplicate(path.child("name"), name));
      names.add(name);
    }
    const port = p.port;
    if (typeof port === "number" && (port < 1 || port > 65535)) errs.push(invalid(path.child("port"), port, "must be between 1 and 65535, inclusive"));
    const protocol = asString(p.protocol);
    if (!["TCP", "UDP", "SCTP"].includes(protocol)) errs.push({ type: "FieldValueNotSupported", field: `${path}.protocol`, value: protocol, detail: 'supported values: "SCTP", "TCP", "UDP"' });
    const target = p.targetPort;
    if (typeof target === "number" && (target < 1 || target > 65535)) errs.push(invalid(path.child("targetPort"), target, "must be between 1 and 65535, inclusive"));
    if (typeof target === "string") for (const m of portNameErrors(target)) errs.push(invalid(path.child("targetPort"), target, m));
    if (p.nodePort !== undefined && (spec.type === "ClusterIP" || spec.type === "ExternalName")) {
      errs.push(forbidden(path.child("nodePort"), `may not be used when \`type\` is '${spec.type}'`));
    }
  });
  return errs;
}

export function validateService(svc: Service): FieldError[] {
  const spec = svc.spec ?? {};
  const errs = validatePorts(svc);
  if (spec.selector) errs.push(...validateLabels(spec.selector, SPEC.child("selector")));
  if (spec.type === "ExternalName") {
    const name = asString(spec.externalName);
    if (!name) errs.push(required(SPEC.child("externalName")));
    else for (const m of isDNS1123Subdomain(name.replace(/\.$/, ""))) errs.push(invalid(SPEC.child("externalName"), name, m));
  }
  asArray(spec.clusterIPs).forEach((ip, i) => {
    if (ip !== "None" && isIP(asString(ip)) === 0) errs.push(invalid(SPEC.child("clusterIPs").index(i), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
  });
  asArray(spec.externalIPs).forEach((ip, i) => {
    if (isIP(asString(ip)) === 0) errs.push(invalid(SPEC.child("externalIPs").index(i), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
  });
  return errs;
}

export function validateServiceUpdate(svc: Service, old: Service): FieldError[] {
  const errs = validateService(svc);
  const oldIP = old.spec?.clusterIP;
  if (oldIP && old.spec?.type !== "ExternalName" && svc.spec?.type !== "ExternalName" && svc.spec?.clusterIP !== oldIP) {
    errs.push(invalid(SPEC.child("clusterIPs").index(0), svc.spec?.clusterIPs ?? [], "may not change once set"));
  }
  return errs;
}
