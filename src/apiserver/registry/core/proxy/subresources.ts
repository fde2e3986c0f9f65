// pods/proxy, nodes/proxy and services/proxy (kube-apiserver's ProxyREST of pkg/registry/core/*/rest):
// `GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS <resource>/<name>[:port]/proxy/<path>` is forwarded to the
// location the stored object gives (location.ts) through the egress selector's `cluster` dialer when the
// server has one (the reversed VPN's egress proxy), else directly (docs/reversed-vpn.md#shoot-api-server-egress).
import { newMethodNotSupported } from "../../../../apimachinery/errors.ts";
import type { InternalClient } from "../../client.ts";
import type { ResourceDefinition, SubresourceHandler, SubresourceRequest } from "../../types.ts";
import type { KubeletClientConfig } from "../pod/kubelet-client.ts";
import { forward } from "./forward.ts";
import { type ProxyLocation, nodeLocation, podLocation, serviceLocation } from "./location.ts";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** Discovery's verbs of a proxy subresource, as kube-apiserver lists them. */
const VERBS = ["create", "delete", "get", "patch", "update"];

type Locate = (req: SubresourceRequest) => Promise<ProxyLocation>;

function proxyHandler(resource: string, kind: string, locate: Locate, kubelet: KubeletClientConfig): SubresourceHandler {
  return {
    verbs: VERBS,
    responseKind: { group: "", version: "v1", kind },
    async proxy(req) {
      const { http } = req;
      const method = (http.req.method ?? "GET").toUpperCase();
      if (!METHODS.has(method)) throw newMethodNotSupported({ group: "", resource: `${resource}/proxy` }, method.toLowerCase().slice(0, 16));
      let path = http.path;
      const option = req.query.get("path");
      if (path === "" && option) path = option.startsWith("/") ? option : `/${option}`;
      // As kube's proxy handler: an empty path is redirected to the same URL with a trailing slash.
      if (path === "") {
        const [urlPath] = (http.req.url ?? "/").split("?", 1);
        http.res.writeHead(301, { Location: `${urlPath}/${http.rawQuery ? `?${http.rawQuery}` : ""}`, "Content-Length": "0" });
        return void http.res.end();
      }
      const loc = await locate(req);
      await forward(loc, { ...http, path }, { ...(kubelet.dial ? { dial: kubelet.dial } : {}), kubeletTls: kubelet });
    },
  };
}

/** pods, nodes and services with their proxy subresources; other definitions unchanged. */
export function withProxySubresource(def: ResourceDefinition, client: InternalClient, kubelet: KubeletClientConfig): ResourceDefinition {
  const ns = (req: SubresourceRequest) => req.namespace ?? "";
  let handler: SubresourceHandler;
  if (def.plural === "pods") handler = proxyHandler("pods", "PodProxyOptions", (req) => podLocation(client, ns(req), req.name), kubelet);
  else if (def.plural === "nodes") handler = proxyHandler("nodes", "NodeProxyOptions", (req) => nodeLocation(client, req.name), kubelet);
  else if (def.plural === "services") handler = proxyHandler("services", "ServiceProxyOptions", (req) => serviceLocation(client, ns(req), req.name), kubelet);
  else return def;
  return { ...def, subresources: { ...def.subresources, proxy: handler } };
}
