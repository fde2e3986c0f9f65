// What the kubelet server needs from the kubelet: the pods bound to this node by namespace and name,
// and the runtime that runs them. Kubelet (src/nodeagent/kubelet/) provides both.
import type { PodRuntime } from "../runtime/runtime.ts";
import type { Pod } from "../runtime/types.ts";

export interface KubeletPods {
  podByName(namespace: string, name: string): Pod | undefined;
  runtime: Pick<PodRuntime, "checkExec" | "exec" | "attach" | "logs" | "status">;
}

/** The API server's kubelet-client identity as Gardener's kube-apiserver presents it (secret kube-apiserver-kubelet). */
export const DEFAULT_KUBELET_CLIENT_USER = "system:kube-apiserver:kubelet";

export interface KubeletServerOptions {
  kubelet: KubeletPods;
  /** Serving certificate chain and key (PEM): --tls-cert-file, --tls-private-key-file. */
  certPem: string;
  keyPem: string;
  /** CA bundle (PEM) verifying client certificates: --client-ca-file. */
  clientCAPem: string;
  /** Default 0.0.0.0. */
  address?: string;
  /** Default 10250; 0 picks a free port. */
  port?: number;
  /** Client certificate CNs accepted (default: system:kube-apiserver:kubelet). */
  allowedUsers?: readonly string[];
  /** Client certificate O entries accepted (default: none). */
  allowedGroups?: readonly string[];
  /** Concurrent exec, attach and log streams at most (default 100); beyond: 429. */
  maxStreams?: number;
  /** Where unexpected errors go (default: stderr). */
  onError?(err: unknown, what: string): void;
}
