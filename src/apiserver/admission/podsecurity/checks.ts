// The Pod Security Standards checks (k8s.io/pod-security-admission/policy), latest version: each
// returns its forbidden reason and detail with upstream's wording, or nothing when the pod passes.
import type { Container, Pod, PodSecurityContext, SecurityContext } from "../../../apis/core/v1/pod.ts";

export type Level = "privileged" | "baseline" | "restricted";
export interface Violation {
  reason: string;
  detail: string;
}

const BASELINE_CAPABILITIES = new Set(["AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"]);
const RESTRICTED_VOLUMES = new Set(["configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"]);
const SAFE_SYSCTLS = new Set(["kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"]);

const quoted = (names: string[]) => names.map((n) => JSON.stringify(n)).join(", ");
const plural = (one: string, many: string, names: string[]) => `${names.length === 1 ? one : many} ${quoted(names)}`;

function containers(pod: Pod): Container[] {
  const s = pod.spec;
  const lists = [s?.initContainers, s?.containers, s?.ephemeralContainers];
  return lists.flatMap((l) => (Array.isArray(l) ? l : [])).filter((c) => typeof c === "object" && c !== null);
}

function sc(c: Container): SecurityContext {
  return (typeof c.securityContext === "object" && c.securityContext) || {};
}

function podSc(pod: Pod): PodSecurityContext {
  return (typeof pod.spec?.securityContext === "object" && pod.spec.securityContext) || {};
}

function containersWhere(pod: Pod, bad: (c: Container) => boolean): string[] {
  return containers(pod).filter(bad).map((c) => String(c.name));
}

type Check = (pod: Pod) => Violation | undefined;

const baseline: Check[] = [
  (pod) => {
    const set = (["hostNetwork", "hostPID", "hostIPC"] as const).filter((k) => pod.spec?.[k] === true);
    return set.length ? { reason: "host namespaces", detail: set.map((k) => `${k}=true`).join(", ") } : undefined;
  },
  (pod) => {
    const bad = containersWhere(pod, (c) => sc(c).privileged === true);
    return bad.length ? { reason: "privileged", detail: `${plural("container", "containers", bad)} must not set securityContext.privileged=true` } : undefined;
  },
  (pod) => {
    const details: string[] = [];
    for (const c of containers(pod)) {
      const extra = (sc(c).capabilities?.add ?? []).filter((cap) => !BASELINE_CAPABILITIES.has(cap));
      if (extra.length) details.push(`container ${JSON.stringify(c.name)} must not include ${quoted(extra)} in securityContext.capabilities.add`);
    }
    return details.length ? { reason: "non-default capabilities", detail: details.join("; ") } : undefined;
  },
  (pod) => {
    const vols = (pod.spec?.volumes ?? []).filter((v) => v && v.hostPath).map((v) => v.name);
    return vols.length ? { reason: "hostPath volumes", detail: plural("volume", "volumes", vols) } : undefined;
  },
  (pod) => {
    const details: string[] = [];
    for (const c of containers(pod)) {
      const ports = (c.ports ?? []).map((p) => p?.hostPort).filter((p): p is number => typeof p === "number" && p !== 0);
      if (ports.length) details.push(`container ${JSON.stringify(c.name)} uses ${ports.length === 1 ? "hostPort" : "hostPorts"} ${ports.join(", ")}`);
    }
    return details.length ? { reason: "hostPort", detail: details.join("; ") } : undefined;
  },
  (pod) => {
    const bad = containersWhere(pod, (c) => sc(c).procMount !== undefined && sc(c).procMount !== "Default");
    return bad.length ? { reason: "procMount", detail: `${plural("container", "containers", bad)} must not set securityContext.procMount to "Unmasked"` } : undefined;
  },
  (pod) => {
    const details: string[] = [];
    if (podSc(pod).seccompProfile?.type === "Unconfined") details.push('pod must not set securityContext.seccompProfile.type to "Unconfined"');
    const bad = containersWhere(pod, (c) => sc(c).seccompProfile?.type === "Unconfined");
    if (bad.length) details.push(`${plural("container", "containers", bad)} must not set securityContext.seccompProfile.type to "Unconfined"`);
    return details.length ? { reason: "seccompProfile", detail: details.join("; ") } : undefined;
  },
  (pod) => {
    const bad = (podSc(pod).sysctls ?? []).map((s) => s?.name).filter((n) => !SAFE_SYSCTLS.has(n));
    return bad.length ? { reason: "forbidden sysctls", detail: bad.join(", ") } : undefined;
  },
  (pod) => {
    const bad = containersWhere(pod, (c) => sc(c).windowsOptions?.hostProcess === true);
    return podSc(pod).windowsOptions?.hostProcess === true || bad.length ? { reason: "hostProcess", detail: "pod and containers must not set securityContext.windowsOptions.hostProcess=true" } : undefined;
  },
];

const restricted: Check[] = [
  (pod) => {
    const vols = (pod.spec?.volumes ?? []).filter((v) => v && typeof v === "object");
    const details = vols.flatMap((v) => Object.keys(v).filter((k) => k !== "name" && !RESTRICTED_VOLUMES.has(k)).map((k) => `volume ${JSON.stringify(v.name)} uses restricted volume type ${JSON.stringify(k)}`));
    return details.length ? { reason: "restricted volume types", detail: details.join("; ") } : undefined;
  },
  (pod) => {
    const bad = containersWhere(pod, (c) => sc(c).allowPrivilegeEscalation !== false);
    return bad.length ? { reason: "allowPrivilegeEscalation != false", detail: `${plural("container", "containers", bad)} must set securityContext.allowPrivilegeEscalation=false` } : undefined;
  },
  (pod) => {
    const details: string[] = [];
    const noDrop = containersWhere(pod, (c) => !(sc(c).capabilities?.drop ?? []).includes("ALL"));
    if (noDrop.length) details.push(`${plural("container", "containers", noDrop)} must set securityContext.capabilities.drop=["ALL"]`);
    for (const c of containers(pod)) {
      const extra = (sc(c).capabilities?.add ?? []).filter((cap) => cap !== "NET_BIND_SERVICE");
      if (extra.length) details.push(`container ${JSON.stringify(c.name)} must not include ${quoted(extra)} in securityContext.capabilities.add`);
    }
    return details.length ? { reason: "unrestricted capabilities", detail: details.join("; ") } : undefined;
  },
  (pod) => {
    const podNonRoot = podSc(pod).runAsNonRoot;
    const explicitFalse = containersWhere(pod, (c) => sc(c).runAsNonRoot === false);
    const unset = containersWhere(pod, (c) => sc(c).runAsNonRoot === undefined);
    if (podNonRoot === false) return { reason: "runAsNonRoot != true", detail: "pod must not set securityContext.runAsNonRoot=false" };
    if (explicitFalse.length) return { reason: "runAsNonRoot != true", detail: `${plural("container", "containers", explicitFalse)} must not set securityContext.runAsNonRoot=false` };
    if (podNonRoot !== true && unset.length) return { reason: "runAsNonRoot != true", detail: `pod or ${plural("container", "containers", unset)} must set securityContext.runAsNonRoot=true` };
    return undefined;
  },
  (pod) => {
    const details: string[] = [];
    if (podSc(pod).runAsUser === 0) details.push("pod must not set runAsUser=0");
    const bad = containersWhere(pod, (c) => sc(c).runAsUser === 0);
    if (bad.length) details.push(`${plural("container", "containers", bad)} must not set runAsUser=0`);
    return details.length ? { reason: "runAsUser=0", detail: details.join("; ") } : undefined;
  },
  (pod) => {
    const ok = (t: string | undefined) => t === "RuntimeDefault" || t === "Localhost";
    if (ok(podSc(pod).seccompProfile?.type)) return undefined;
    const bad = containersWhere(pod, (c) => !ok(sc(c).seccompProfile?.type) && sc(c).seccompProfile?.type !== "Unconfined");
    return bad.length ? { reason: "seccompProfile", detail: `pod or ${plural("container", "containers", bad)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` } : undefined;
  },
];

/** Every violation of `level` (none for privileged), in upstream's order. */
export function evaluate(level: Level, pod: Pod): Violation[] {
  if (level === "privileged") return [];
  const checks = level === "baseline" ? baseline : [...baseline, ...restricted];
  return checks.map((c) => c(pod)).filter((v): v is Violation => v !== undefined);
}

/** `privileged (container "c" must not set ...), hostPort (...)` */
export function describe(violations: Violation[]): string {
  return violations.map((v) => `${v.reason} (${v.detail})`).join(", ");
}
