// Helpers for the @kubernetes/client-node suites.
import assert from "node:assert/strict";
import { ApiException, KubeConfig, type ApiextensionsV1Api, type V1CustomResourceDefinition } from "@kubernetes/client-node";
import type { Status } from "../../../src/apis/meta/v1/types.ts";
import { gadgetCrd } from "../../support/crds.ts";
import { eventually } from "../../support/http.ts";

export function kubeConfigFrom(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/** Awaits `p`, which must fail with an ApiException of `code`; returns the Status body it carried. */
export async function expectApiError(p: Promise<unknown>, code: number): Promise<Status> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof ApiException)) throw e;
    const err = e as ApiException<unknown>;
    assert.equal(err.code, code, `expected HTTP ${code}, got ${err.code}: ${String(err.body)}`);
    const body = typeof err.body === "string" ? (JSON.parse(err.body) as Status) : (err.body as Status);
    assert.equal(body.kind, "Status", `error body is not a Status: ${String(err.body)}`);
    assert.equal(body.code, code);
    return body;
  }
  assert.fail(`expected the call to fail with HTTP ${code}, but it succeeded`);
}

/** The shared gadgets.example.com CRD, typed for client-node. */
export const widgetCrdObject = gadgetCrd as unknown as V1CustomResourceDefinition;

/** Creates the CRD and waits for its Established condition. */
export async function createEstablishedCrd(api: ApiextensionsV1Api, crd: V1CustomResourceDefinition): Promise<void> {
  await api.createCustomResourceDefinition({ body: crd });
  await eventually(`CRD ${crd.metadata?.name} established`, async () => {
    const got = await api.readCustomResourceDefinition({ name: crd.metadata!.name! });
    return got.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ? true : undefined;
  });
}
