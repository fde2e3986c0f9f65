// The API's Pod as the runtime runs it: the fields of runtime/types.ts, envFrom's keys as env entries whose
// values the kubelet resolves (inputs.ts), and nothing the runtime does not read.
import type { Container as ApiContainer, Pod as ApiPod } from "../../apis/core/v1/pod.ts";
import type { Container, EnvVar, Pod, Volume } from "./runtime/types.ts";

function container(c: ApiContainer, resolved: Record<string, string> | undefined): Container {
  const explicit = new Set((c.env ?? []).map((e) => e.name));
  const fromEnvFrom: EnvVar[] = Object.keys(resolved ?? {})
    .filter((k) => !explicit.has(k))
    .map((name) => ({ name, valueFrom: {} }));
  const env: EnvVar[] = [...fromEnvFrom, ...(c.env ?? []).map((e) => (e.valueFrom ? { name: e.name, valueFrom: {} } : { name: e.name, value: e.value ?? "" }))];
  const out: Container = { name: c.name, image: c.image ?? "" };
  if (c.command) out.command = c.command;
  if (c.args) out.args = c.args;
  if (c.workingDir) out.workingDir = c.workingDir;
  if (env.length) out.env = env;
  if (c.volumeMounts) out.volumeMounts = c.volumeMounts;
  if (c.tty) out.tty = true;
  if (c.stdin) out.stdin = true;
  if (c.stdinOnce) out.stdinOnce = true;
  if (c.securityContext?.privileged) out.securityContext = { privileged: true };
  return out;
}

/** env: container name -> resolved values (envFrom keys become entries). */
export function toRuntimePod(pod: ApiPod, env: Record<string, Record<string, string>> = {}): Pod {
  const spec = pod.spec!;
  const out: Pod = {
    metadata: { name: pod.metadata.name!, namespace: pod.metadata.namespace!, uid: pod.metadata.uid! },
    spec: { containers: spec.containers.map((c) => container(c, env[c.name])) },
  };
  if (spec.initContainers?.length) out.spec.initContainers = spec.initContainers.map((c) => container(c, env[c.name]));
  if (spec.volumes?.length) out.spec.volumes = spec.volumes as Volume[];
  if (spec.restartPolicy) out.spec.restartPolicy = spec.restartPolicy;
  if (spec.hostPID) out.spec.hostPID = true;
  if (spec.hostNetwork) out.spec.hostNetwork = true;
  if (spec.shareProcessNamespace === true) out.spec.shareProcessNamespace = true;
  if (typeof spec.hostname === "string" && spec.hostname) out.spec.hostname = spec.hostname;
  if (spec.terminationGracePeriodSeconds !== undefined) out.spec.terminationGracePeriodSeconds = spec.terminationGracePeriodSeconds;
  return out;
}
