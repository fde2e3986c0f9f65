// admission.k8s.io/v1 AdmissionReview: what an API server sends a webhook and what it answers.
import type { KubeObject, Status } from "../../meta/v1/types.ts";

export const API_VERSION = "admission.k8s.io/v1";

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: string;
  userInfo: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  object?: KubeObject | null;
  oldObject?: KubeObject | null;
  dryRun: boolean;
  options?: KubeObject | null;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: Partial<Status>;
  patch?: string;
  patchType?: string;
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: string;
  kind: "AdmissionReview";
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}
