// The kubelet endpoint as the node agent runs it (docs/exec-attach-logs.md): the serving certificate
// and key from the files the node keeps renewed (docs/node-bootstrap.md), and as client CA either
// --client-ca-file or the CA of the node's own kubeconfig (the cluster CA, which also signs the API
// server's kubelet-client certificate).
import { readFile } from "node:fs/promises";
import { KubeConfig } from "@kubernetes/client-node";
import { startKubeletServer, type KubeletPods, type KubeletServer } from "./server.ts";

export interface KubeletServerFiles {
  kubelet: KubeletPods;
  certFile: string;
  keyFile: string;
  /** PEM bundle of client CAs; default: the certificate authority of `kubeconfig`'s cluster. */
  clientCAFile?: string;
  kubeconfig: string;
  address?: string;
  port?: number;
}

export interface FileKubeletServer extends KubeletServer {
  /** Re-reads the serving certificate and key (after a renewal). */
  reload(): Promise<void>;
}

/** The CA (PEM) of a kubeconfig's current cluster. */
export async function clusterCAOf(kubeconfigPath: string): Promise<string> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const cluster = kc.getCurrentCluster();
  if (cluster?.caData) return Buffer.from(cluster.caData, "base64").toString("utf8");
  if (cluster?.caFile) return readFile(cluster.caFile, "utf8");
  throw new Error(`${kubeconfigPath}: its cluster has no certificate authority; give --client-ca-file`);
}

export async function serveKubeletFromFiles(o: KubeletServerFiles): Promise<FileKubeletServer> {
  const clientCAPem = o.clientCAFile ? await readFile(o.clientCAFile, "utf8") : await clusterCAOf(o.kubeconfig);
  const read = async () => ({ certPem: await readFile(o.certFile, "utf8"), keyPem: await readFile(o.keyFile, "utf8") });
  const server = await startKubeletServer({ kubelet: o.kubelet, ...(await read()), clientCAPem, ...(o.address ? { address: o.address } : {}), ...(o.port !== undefined ? { port: o.port } : {}) });
  return {
    ...server,
    port: server.port,
    async reload() {
      const { certPem, keyPem } = await read();
      server.setCertificate(certPem, keyPem);
    },
  };
}
