// discovery.k8s.io/v1 EndpointSlice: kept by the server's endpoints controller for selector
// Services (and by the server for `kubernetes`). kubectl get endpointslices: NAME ADDRESSTYPE PORTS
// ENDPOINTS AGE (printEndpointSlice).
import type { EndpointSlice } from "../../../../apis/core/v1/service.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { type FieldError, Path, invalid, required } from "../../../../apimachinery/field/errors.ts";
import { arr, bool, int32, obj, str, stringArray, stringMap } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import type { ResourceDefinition, Strategy, TableConvertor } from "../../types.ts";
import { ageCell, ageColumn, column } from "../../core/printers.ts";

const objectReference = obj({ kind: str(), namespace: str(), name: str(), uid: str(), apiVersion: str(), resourceVersion: str(), fieldPath: str() });

export const endpointSliceSchema = kindSchema({
  description: "EndpointSlice represents a set of service endpoints.",
  required: ["addressType", "endpoints"],
  properties: {
    addressType: { ...str("addressType specifies the type of address carried by this EndpointSlice."), enum: ["IPv4", "IPv6", "FQDN"] },
    endpoints: arr(
      obj(
        {
          addresses: stringArray(undefined, { "x-kubernetes-list-type": "set" }),
          conditions: obj({ ready: bool(), serving: bool(), terminating: bool() }),
          hostname: str(),
          targetRef: objectReference,
          deprecatedTopology: stringMap(),
          nodeName: str(),
          zone: str(),
          hints: obj({ forZones: arr(obj({ name: str() }, undefined, ["name"])), forNodes: arr(obj({ name: str() }, undefined, ["name"])) }),
        },
        undefined,
        ["addresses"],
      ),
      "endpoints is a list of unique endpoints in this slice.",
      { "x-kubernetes-list-type": "atomic" },
    ),
    ports: arr(obj({ name: str(), protocol: str(), port: int32(), appProtocol: str() }), undefined, { "x-kubernetes-list-type": "atomic" }),
  },
});

function validateSlice(s: EndpointSlice): FieldError[] {
  const errs: FieldError[] = [];
  if ((s.endpoints?.length ?? 0) > 1000) errs.push({ type: "FieldValueTooMany", field: "endpoints", value: s.endpoints!.length, detail: "must have at most 1000 items" });
  (s.endpoints ?? []).forEach((e, i) => {
    if (!e.addresses?.length) errs.push(required(Path.root("endpoints").index(i).child("addresses"), "must contain at least 1 address"));
  });
  (s.ports ?? []).forEach((p, i) => {
    if (p.port !== undefined && !(p.port >= 1 && p.port <= 65535)) errs.push(invalid(Path.root("ports").index(i).child("port"), p.port, "must be between 1 and 65535, inclusive"));
  });
  return errs;
}

function formatPorts(s: EndpointSlice): string {
  if (!s.ports) return "<unset>";
  if (s.ports.length === 0) return "<none>";
  const all = s.ports.map((p) => String(p.port ?? ""));
  return all.length > 3 ? `${all.slice(0, 3).join(",")} + ${all.length - 3} more...` : all.join(",");
}

function formatAddresses(s: EndpointSlice): string {
  const all = (s.endpoints ?? []).flatMap((e) => e.addresses ?? []);
  if (all.length === 0) return "<unset>";
  return all.length > 3 ? `${all.slice(0, 3).join(",")} + ${all.length - 3} more...` : all.join(",");
}

const table: TableConvertor = {
  columns: [
    column("AddressType", "string", "The IP protocol for this slice"),
    column("Ports", "string", "Enumerated ports on the slice"),
    column("Endpoints", "string", "Enumerated endpoints on the slice"),
    ageColumn(),
  ],
  cells: (o: KubeObject, now: Date) => {
    const s = o as EndpointSlice;
    return [s.addressType, formatPorts(s), formatAddresses(s), ageCell(o, now)];
  },
};

export const endpointSliceDefinition: ResourceDefinition = {
  group: "discovery.k8s.io",
  version: "v1",
  kind: "EndpointSlice",
  listKind: "EndpointSliceList",
  plural: "endpointslices",
  singular: "endpointslice",
  namespaced: true,
  schema: endpointSliceSchema,
  hasStatus: false,
  strategy: { validate: (_c, o) => validateSlice(o as EndpointSlice), validateUpdate: (_c, o) => validateSlice(o as EndpointSlice) } as Strategy,
  table,
  strategicMergePatch: true,
  tracksGeneration: true,
};
