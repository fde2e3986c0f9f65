// pods/exec, pods/attach and pods/log (pkg/registry/core/pod/rest and strategy.go's ExecLocation,
// AttachLocation, LogLocation): the pod from storage, its container (named, or the only one), its
// node, and then the kubelet at https://<InternalIP>:<port>/<exec|attach|containerLogs>/<ns>/<pod>/<container>.
// exec and attach are upgrades only (WebSocket; a SPDY request is forwarded too and refused by the
// kubelet after its own checks, so a client falling back to SPDY still sees the real error).
import type { Pod } from "../../../../apis/core/v1/pod.ts";
import { newBadRequest, newInvalid, newMethodNotSupported, newNotFound } from "../../../../apimachinery/errors.ts";
import { Path, invalid, type FieldError } from "../../../../apimachinery/field/errors.ts";
import type { InternalClient } from "../../client.ts";
import type { ResourceDefinition, SubresourceHandler, SubresourceRequest } from "../../types.ts";
import { KubeletClient, upgradeOf, type KubeletClientConfig } from "./kubelet-client.ts";
import { PODS } from "../resources.ts";

const MAX_COMMAND_ARGS = 1024;

/** Go's strconv.ParseBool, as query parameters are decoded into PodExecOptions. */
function bool(query: URLSearchParams, name: string): boolean {
  const v = query.get(name);
  if (v === null || v === "") return false;
  if (["1", "t", "T", "true", "TRUE", "True"].includes(v)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(v)) return false;
  throw newBadRequest(`invalid value "${v}" for ${name}: must be a boolean`);
}

function int(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  if (!/^-?\d{1,15}$/.test(v)) throw newBadRequest(`invalid value "${v}" for ${name}: must be an integer`);
  return Number(v);
}

/** validateContainer: the named container must exist; without a name the pod must have exactly one. */
export function containerOf(pod: Pod, name: string | null): string {
  const main = (pod.spec?.containers ?? []).map((c) => c.name);
  const all = [...(pod.spec?.initContainers ?? []).map((c) => c.name), ...main];
  const podName = pod.metadata.name ?? "";
  if (!name) {
    if (main.length === 1) return main[0]!;
    if (main.length === 0) throw newBadRequest(`a container name must be specified for pod ${podName}`);
    throw newBadRequest(`a container name must be specified for pod ${podName}, choose one of: [${all.join(" ")}]`);
  }
  if (!all.includes(name)) throw newBadRequest(`container ${name} is not valid for pod ${podName}`);
  return name;
}

async function podOf(client: InternalClient, req: SubresourceRequest): Promise<Pod> {
  const pod = (await client.get(PODS, req.namespace, req.name)) as Pod | undefined;
  if (!pod) throw newNotFound(PODS, req.name);
  return pod;
}

const segment = (s: string) => encodeURIComponent(s);

function streamHandler(kind: "exec" | "attach", client: InternalClient, kubelet: KubeletClient): SubresourceHandler {
  return {
    verbs: ["create", "get"],
    responseKind: { group: "", version: "v1", kind: kind === "exec" ? "PodExecOptions" : "PodAttachOptions" },
    async connect(req) {
      const upgrade = upgradeOf(req.upgrade);
      const q = req.query;
      const pod = await podOf(client, req);
      const container = containerOf(pod, q.get("container"));
      const params = new URLSearchParams();
      for (const s of ["stdin", "stdout", "stderr", "tty"]) if (bool(q, s)) params.append(s, "1");
      if (kind === "exec") {
        const command = q.getAll("command");
        if (command.length > MAX_COMMAND_ARGS) throw newBadRequest("the command has too many arguments");
        for (const c of command) params.append("command", c);
      }
      const nodeName = pod.spec?.nodeName;
      if (!nodeName) throw newBadRequest(`pod ${req.name} does not have a host assigned`);
      const loc = await kubelet.location(nodeName);
      const path = `/${kind}/${segment(req.namespace ?? "")}/${segment(req.name)}/${segment(container)}?${params.toString()}`;
      await kubelet.proxyUpgrade(loc, path, upgrade);
    },
  };
}

/** ValidatePodLogOptions */
function logParams(q: URLSearchParams, name: string, now: number): URLSearchParams {
  const errs: FieldError[] = [];
  const params = new URLSearchParams();
  for (const b of ["follow", "previous", "timestamps"]) if (bool(q, b)) params.append(b, "true");
  const tail = int(q, "tailLines");
  if (tail !== undefined && tail < 0) errs.push(invalid(Path.root("tailLines"), tail, "must be greater than or equal to 0"));
  else if (tail !== undefined) params.append("tailLines", String(tail));
  const limit = int(q, "limitBytes");
  if (limit !== undefined && limit < 1) errs.push(invalid(Path.root("limitBytes"), limit, "must be greater than 0"));
  else if (limit !== undefined) params.append("limitBytes", String(limit));
  let since = int(q, "sinceSeconds");
  const sinceTime = q.get("sinceTime");
  if (since !== undefined && sinceTime !== null) errs.push({ type: "FieldValueForbidden", field: "", detail: "at most one of `sinceTime` or `sinceSeconds` may be specified" });
  if (since !== undefined && since < 1) errs.push(invalid(Path.root("sinceSeconds"), since, "must be greater than 0"));
  if (sinceTime !== null) {
    const t = Date.parse(sinceTime);
    if (Number.isNaN(t)) throw newBadRequest(`invalid value "${sinceTime}" for sinceTime: must be an RFC 3339 time`);
    since = Math.max(1, Math.ceil((now - t) / 1000));
  }
  if (errs.length) throw newInvalid({ group: "", kind: "PodLogOptions" }, name, errs);
  if (since !== undefined) params.append("sinceSeconds", String(since));
  return params;
}

function logHandler(client: InternalClient, kubelet: KubeletClient): SubresourceHandler {
  return {
    verbs: ["get"],
    responseKind: { group: "", version: "v1", kind: "Pod" },
    async stream(req) {
      if (req.verb !== "get") throw newMethodNotSupported({ group: "", resource: "pods/log" }, req.verb);
      const pod = await podOf(client, req);
      const container = containerOf(pod, req.query.get("container"));
      const params = logParams(req.query, req.name, req.ctx.clock.now().getTime());
      // A pod not bound to a node has no log yet: an empty answer, as kube-apiserver gives.
      const nodeName = pod.spec?.nodeName;
      if (!nodeName) return { contentType: "text/plain", body: undefined };
      const loc = await kubelet.location(nodeName);
      const res = await kubelet.get(loc, `/containerLogs/${segment(req.namespace ?? "")}/${segment(req.name)}/${segment(container)}?${params.toString()}`);
      return { contentType: "text/plain", body: res };
    },
  };
}

/** The pod definition with exec, attach and log, proxied to the pods' kubelets. */
export function withPodStreaming(podDef: ResourceDefinition, client: InternalClient, config: KubeletClientConfig): ResourceDefinition {
  const kubelet = new KubeletClient(client, config);
  return {
    ...podDef,
    subresources: { ...podDef.subresources, exec: streamHandler("exec", client, kubelet), attach: streamHandler("attach", client, kubelet), log: logHandler(client, kubelet) },
  };
}
