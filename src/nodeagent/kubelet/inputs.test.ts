import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "../../apis/core/v1/pod.ts";
import { ContainerConfigError, type InputSources, MountError, fieldValue, resolveEnv, resolveVolumes } from "./inputs.ts";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const sources = (tokens: string[] = []): InputSources => ({
  secret: (ns, name) => Promise.resolve(ns === "ns" && name === "s" ? { metadata: { name }, data: { user: b64("alice"), pass: b64("pw") } } : undefined),
  configMap: (ns, name) => Promise.resolve(ns === "ns" && name === "c" ? { metadata: { name }, data: { "a.conf": "A" }, binaryData: { bin: b64("B") } } : undefined),
  token: (pod, sa, p) => {
    tokens.push(`${pod.metadata.uid}/${sa}/${p.audience ?? ""}/${p.expirationSeconds ?? ""}`);
    return Promise.resolve("jwt");
  },
});
const pod = (spec: Partial<NonNullable<Pod["spec"]>>): Pod => ({
  metadata: { name: "p", namespace: "ns", uid: "u1", labels: { app: "web", tier: "a\"b" }, annotations: { x: "1" } },
  spec: { nodeName: "n1", serviceAccountName: "sa", containers: [{ name: "c", image: "busybox" }], ...spec },
});
const ctx = { hostIP: "10.0.0.1", podIP: "10.96.1.2" };

describe("env resolution", () => {
  it("fieldRef, secretKeyRef, configMapKeyRef, optional and envFrom with prefix; explicit env wins over envFrom", async () => {
    const c = {
      name: "c",
      envFrom: [{ prefix: "S_", secretRef: { name: "s" } }, { configMapRef: { name: "missing", optional: true } as { name: string } }],
      env: [
        { name: "S_user", value: "explicit" },
        { name: "NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
        { name: "APP", valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
        { name: "PASS", valueFrom: { secretKeyRef: { name: "s", key: "pass" } } },
        { name: "CONF", valueFrom: { configMapKeyRef: { name: "c", key: "a.conf" } } },
        { name: "OPT", valueFrom: { secretKeyRef: { name: "gone", key: "k", optional: true } } },
        { name: "OPTKEY", valueFrom: { configMapKeyRef: { name: "c", key: "nokey", optional: true } } },
      ],
    };
    assert.deepEqual(await resolveEnv(pod({}), c, sources(), ctx), { S_pass: "pw", NAME: "p", IP: "10.96.1.2", APP: "web", PASS: "pw", CONF: "A" });
  });

  it("missing objects and keys are CreateContainerConfigError with the kubelet's messages", async () => {
    const cases: [object, string][] = [
      [{ secretKeyRef: { name: "gone", key: "k" } }, 'secret "gone" not found'],
      [{ configMapKeyRef: { name: "gone", key: "k" } }, 'configmap "gone" not found'],
      [{ secretKeyRef: { name: "s", key: "nokey" } }, "couldn't find key nokey in Secret ns/s"],
      [{ configMapKeyRef: { name: "c", key: "nokey" } }, "couldn't find key nokey in ConfigMap ns/c"],
    ];
    for (const [valueFrom, message] of cases) {
      await assert.rejects(resolveEnv(pod({}), { name: "c", env: [{ name: "X", valueFrom }] }, sources(), ctx), (err: unknown) => err instanceof ContainerConfigError && err.message === message);
    }
  });

  it("downward API values: all labels quoted and sorted, node and service account", () => {
    assert.equal(fieldValue(pod({}), "metadata.labels", ctx), 'app="web"\ntier="a\\"b"');
    assert.equal(fieldValue(pod({}), "spec.nodeName", ctx), "n1");
    assert.equal(fieldValue(pod({}), "spec.serviceAccountName", ctx), "sa");
    assert.equal(fieldValue(pod({}), "status.hostIP", ctx), "10.0.0.1");
    assert.throws(() => fieldValue(pod({}), "spec.nope", ctx), /unsupported fieldPath: spec.nope/);
  });
});

describe("volume resolution", () => {
  it("secret, configMap with items and modes, downwardAPI and projected with a pod-bound token", async () => {
    const tokens: string[] = [];
    const p = pod({
      volumes: [
        { name: "sec", secret: { secretName: "s", defaultMode: 0o400 } },
        { name: "cm", configMap: { name: "c", items: [{ key: "a.conf", path: "etc/a.conf", mode: 0o600 }] } },
        { name: "dw", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
        { name: "api", projected: { defaultMode: 0o644, sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 3607 } }, { configMap: { name: "c", items: [{ key: "a.conf", path: "ca.crt" }] } }, { downwardAPI: { items: [{ path: "namespace", fieldRef: { fieldPath: "metadata.namespace" } }] } }] } },
        { name: "scratch", emptyDir: {} },
      ],
    });
    const v = await resolveVolumes(p, sources(tokens), ctx);
    assert.deepEqual(v, {
      sec: { user: { data: "alice", mode: 0o400 }, pass: { data: "pw", mode: 0o400 } },
      cm: { "etc/a.conf": { data: "A", mode: 0o600 } },
      dw: { labels: { data: 'app="web"\ntier="a\\"b"', mode: 0o644 } },
      api: { token: { data: "jwt", mode: 0o644 }, "ca.crt": { data: "A", mode: 0o644 }, namespace: { data: "ns", mode: 0o644 } },
    });
    assert.deepEqual(tokens, ["u1/sa//3607"]);
  });

  it("a missing source or item key fails the mount with the kubelet's message; optional ones are empty", async () => {
    await assert.rejects(resolveVolumes(pod({ volumes: [{ name: "v", secret: { secretName: "gone" } }] }), sources(), ctx), (err: unknown) => err instanceof MountError && err.message === 'MountVolume.SetUp failed for volume "v" : secret "gone" not found');
    await assert.rejects(resolveVolumes(pod({ volumes: [{ name: "v", configMap: { name: "c", items: [{ key: "k", path: "k" }] } }] }), sources(), ctx), /configmap references non-existent config key: k/);
    assert.deepEqual(await resolveVolumes(pod({ volumes: [{ name: "v", configMap: { name: "gone", optional: true } }] }), sources(), ctx), { v: {} });
  });
});

describe("volume reads", () => {
  it("the volumes' Secrets are read at once, not one after the other; the first volume's failure is the one thrown", { timeout: 5000 }, async () => {
    const asked: string[] = [];
    let release!: () => void;
    const both = new Promise<void>((r) => (release = r));
    const src: InputSources = {
      ...sources(),
      secret: async (_ns, name) => {
        asked.push(name);
        if (asked.length === 2) release();
        await both; // answers only once both are asked for
        return name === "gone" ? undefined : { metadata: { name }, data: { k: b64(name) } };
      },
    };
    const two = pod({ volumes: [{ name: "a", secret: { secretName: "one" } }, { name: "b", secret: { secretName: "two" } }] });
    assert.deepEqual(await resolveVolumes(two, src, ctx), { a: { k: { data: "one", mode: 0o644 } }, b: { k: { data: "two", mode: 0o644 } } });
    asked.length = 0;
    const missing = pod({ volumes: [{ name: "a", secret: { secretName: "gone" } }, { name: "b", secret: { secretName: "two" } }] });
    await assert.rejects(resolveVolumes(missing, src, ctx), (err: unknown) => err instanceof MountError && /volume "a"/.test(err.message));
  });
});
