// core/v1 Endpoints: kept by the server's endpoints controller for selector Services (and by the
// server for `kubernetes`). kubectl get endpoints: NAME ENDPOINTS AGE (printEndpoints).
import type { EndpointSubset, Endpoints } from "../../../../apis/core/v1/service.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { type FieldError, Path, invalid, required } from "../../../../apimachinery/field/errors.ts";
import { isIP } from "node:net";
import { arr, int32, obj, str } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import type { ResourceDefinition, Strategy, TableConvertor } from "../../types.ts";
import { ageCell, ageColumn, column } from "../printers.ts";

const objectReference = obj({ kind: str(), namespace: str(), name: str(), uid: str(), apiVersion: str(), resourceVersion: str(), fieldPath: str() });
const address = obj({ ip: str(), hostname: str(), nodeName: str(), targetRef: objectReference }, undefined, ["ip"]);
const port = obj({ name: str(), port: int32(), protocol: str(undefined, { default: "TCP" }), appProtocol: str() }, undefined, ["port"]);

export const endpointsSchema = kindSchema({
  description: "Endpoints is a collection of endpoints that implement the actual service.",
  properties: {
    subsets: arr(obj({ addresses: arr(address), notReadyAddresses: arr(address), ports: arr(port) }), "The set of all endpoints is the union of all subsets.", {
      "x-kubernetes-list-type": "atomic",
    }),
  },
});

function validateEndpoints(e: Endpoints): FieldError[] {
  const errs: FieldError[] = [];
  (e.subsets ?? []).forEach((s, i) => {
    const p = Path.root("subsets").index(i);
    for (const kind of ["addresses", "notReadyAddresses"] as const) {
      (s[kind] ?? []).forEach((a, j) => {
        if (!a.ip) errs.push(required(p.child(kind).index(j).child("ip")));
        else if (isIP(a.ip) === 0) errs.push(invalid(p.child(kind).index(j).child("ip"), a.ip, "must be a valid IP address"));
      });
    }
    (s.ports ?? []).forEach((pt, j) => {
      if (!(pt.port >= 1 && pt.port <= 65535)) errs.push(invalid(p.child("ports").index(j).child("port"), pt.port, "must be between 1 and 65535, inclusive"));
    });
  });
  return errs;
}

/** "10.0.0.1:80,10.0.0.2:80 + 3 more..." as kubectl prints endpoints (at most 3 shown). */
export function formatEndpoints(subsets: EndpointSubset[] | undefined): string {
  const all: string[] = [];
  for (const s of subsets ?? []) {
    const ports = s.ports?.length ? s.ports : [undefined];
    for (const a of s.addresses ?? []) for (const p of ports) all.push(p ? `${a.ip}:${p.port}` : a.ip);
  }
  if (all.length === 0) return "<none>";
  return all.length > 3 ? `${all.slice(0, 3).join(",")} + ${all.length - 3} more...` : all.join(",");
}

const table: TableConvertor = {
  columns: [column("Endpoints", "string", "Endpoints of the service"), ageColumn()],
  cells: (o: KubeObject, now: Date) => [formatEndpoints((o as Endpoints).subsets), ageCell(o, now)],
};

export const endpointsDefinition: ResourceDefinition = {
  group: "",
  version: "v1",
  kind: "Endpoints",
  listKind: "EndpointsList",
  plural: "endpoints",
  singular: "endpoints",
  namespaced: true,
  shortNames: ["ep"],
  schema: endpointsSchema,
  hasStatus: false,
  strategy: { validate: (_c, o) => validateEndpoints(o as Endpoints), validateUpdate: (_c, o) => validateEndpoints(o as Endpoints) } as Strategy,
  table,
  strategicMergePatch: true,
  tracksGeneration: false,
};
