import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isMirrorPod, podReferences } from "./podrefs.ts";

describe("podReferences", () => {
  it("finds every secret, configmap, claim and the service account a pod names, in all container lists", () => {
    const refs = podReferences({
      metadata: { name: "p", namespace: "ns" },
      spec: {
        serviceAccountName: "sa",
        imagePullSecrets: [{ name: "pull" }, {}],
        initContainers: [{ name: "i", envFrom: [{ secretRef: { name: "init-env" } }] }],
        containers: [
          {
            name: "c",
            env: [{ name: "A", valueFrom: { secretKeyRef: { name: "env-secret", key: "k" } } }, { name: "B", valueFrom: { configMapKeyRef: { name: "env-cm", key: "k" } } }],
            envFrom: [{ configMapRef: { name: "envfrom-cm" } }],
          },
        ],
        ephemeralContainers: [{ name: "e", env: [{ name: "C", valueFrom: { secretKeyRef: { name: "debug-secret", key: "k" } } }] }],
        volumes: [
          { name: "s", secret: { secretName: "vol-secret" } },
          { name: "m", configMap: { name: "vol-cm" } },
          { name: "p", projected: { sources: [{ secret: { name: "proj-secret" } }, { configMap: { name: "proj-cm" } }, { serviceAccountToken: { path: "t" } }] } },
          { name: "csi", csi: { driver: "d", nodePublishSecretRef: { name: "csi-secret" } } },
          { name: "rbd", rbd: { secretRef: { name: "rbd-secret" } } },
          { name: "claim", persistentVolumeClaim: { claimName: "data" } },
          { name: "scratch", ephemeral: { volumeClaimTemplate: {} } },
        ],
      },
    });
    assert.deepEqual([...refs.secrets].sort(), ["csi-secret", "debug-secret", "env-secret", "init-env", "proj-secret", "pull", "rbd-secret", "vol-secret"]);
    assert.deepEqual([...refs.configMaps].sort(), ["env-cm", "envfrom-cm", "proj-cm", "vol-cm"]);
    assert.deepEqual([...refs.persistentVolumeClaims].sort(), ["data", "p-scratch"]);
    assert.equal(refs.serviceAccount, "sa");
  });

  it("skips fields of the wrong shape instead of throwing", () => {
    const refs = podReferences({ metadata: { name: "p" }, spec: { containers: "nope", volumes: [null, 3, { secret: "x" }, { configMap: { name: 7 } }], imagePullSecrets: {} } });
    assert.deepEqual([refs.secrets.size, refs.configMaps.size, refs.persistentVolumeClaims.size, refs.serviceAccount], [0, 0, 0, ""]);
  });

  it("recognises mirror pods by their annotation", () => {
    assert.equal(isMirrorPod({ metadata: { annotations: { "kubernetes.io/config.mirror": "x" } } }), true);
    assert.equal(isMirrorPod({ metadata: {} }), false);
  });
});
