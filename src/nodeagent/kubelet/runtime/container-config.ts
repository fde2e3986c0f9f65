// What a pod's container starts with, computed from the pod spec: its mounts and its environment.
import { join } from "node:path";
import type { ContainerMount } from "../../../host/containers.ts";
import { STANDARD_PATH, type ToolboxProfile } from "./profiles.ts";
import type { Container, Pod } from "./types.ts";

/** The pod's /etc/hosts and /etc/hostname (files in `podDir/etc`), then the container's volumeMounts: a hostPath, or the pod's volume directory. */
export function containerMounts(pod: Pod, c: Container, podDir: string): ContainerMount[] {
  const volumes = new Map((pod.spec.volumes ?? []).map((v) => [v.name, v]));
  const mounts: ContainerMount[] = [
    { source: join(podDir, "etc", "hosts"), target: "/etc/hosts" },
    { source: join(podDir, "etc", "hostname"), target: "/etc/hostname" },
  ];
  for (const m of c.volumeMounts ?? []) {
    const v = volumes.get(m.name);
    if (!v) throw new Error(`container ${c.name} mounts volume ${m.name}, which the pod does not have`);
    const source = v.hostPath ? v.hostPath.path : join(podDir, "volumes", v.name);
    mounts.push({ source: m.subPath ? join(source, m.subPath) : source, target: m.mountPath, readOnly: m.readOnly ?? false, recursive: v.hostPath !== undefined });
  }
  return mounts;
}

export interface EnvSources {
  profile: ToolboxProfile;
  hostname: string;
  /** The cluster's API server as pods reach it (KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT). */
  apiServer?: { host: string; port: number };
  /** The values the kubelet resolved for the container's `valueFrom` entries, by name. */
  resolved?: Record<string, string>;
}

/** PATH (the profile's first) and HOSTNAME, KUBERNETES_SERVICE_*, TERM for a tty, the profile's variables, then the container's own, later ones winning. */
export function containerEnv(c: Container, o: EnvSources): Map<string, string> {
  const env = new Map<string, string>([["PATH", [...(o.profile.path ?? []), STANDARD_PATH].join(":")], ["HOSTNAME", o.hostname]]);
  if (o.apiServer) {
    env.set("KUBERNETES_SERVICE_HOST", o.apiServer.host);
    env.set("KUBERNETES_SERVICE_PORT", String(o.apiServer.port));
  }
  if (c.tty) env.set("TERM", "xterm");
  for (const [k, v] of Object.entries(o.profile.env ?? {})) env.set(k, v);
  for (const e of c.env ?? []) env.set(e.name, e.value ?? o.resolved?.[e.name] ?? "");
  return env;
}
