// Who the bearer token belongs to, as the API server says: a SelfSubjectReview made with the token
// itself. The dashboard counts sessions per user by this name; the browser's claims are not used.
import { request } from "node:https";
import { request as httpRequest } from "node:http";
import type { KubeObject } from "../apis/meta/v1/types.ts";
import { resourceType } from "../client/resource.ts";
import { clientFor } from "./terminals/hosts.ts";

export type Identity = { kind: "user"; username: string } | { kind: "error"; code: number; reason: string; message: string };

const MAX_BODY = 64 * 1024;

export function whoAmI(api: { url: string; caPem?: string }, token: string): Promise<Identity> {
  const url = new URL("/apis/authentication.k8s.io/v1/selfsubjectreviews", api.url);
  const body = JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" });
  const send = url.protocol === "https:" ? request : httpRequest;
  return new Promise((resolve) => {
    const req = send(url, {
      method: "POST",
      ca: api.caPem,
      timeout: 10_000,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json" },
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) req.destroy(new Error("answer too large"));
        else chunks.push(c);
      });
      res.on("end", () => {
        let parsed: { status?: { userInfo?: { username?: string } }; message?: string; reason?: string } = {};
        try {
          parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as typeof parsed;
        } catch {
          /* handled below */
        }
        const code = res.statusCode ?? 502;
        const username = parsed.status?.userInfo?.username;
        if (code === 201 || code === 200) {
          if (username) return resolve({ kind: "user", username });
          return resolve({ kind: "error", code: 502, reason: "BadGateway", message: "the API server did not name the user" });
        }
        if (code === 401) return resolve({ kind: "error", code: 401, reason: "Unauthorized", message: "the API server did not accept the token" });
        resolve({ kind: "error", code: code >= 400 && code < 600 ? code : 502, reason: parsed.reason ?? "BadGateway", message: parsed.message ?? `the API server answered ${code}` });
      });
    });
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", (err) => resolve({ kind: "error", code: 503, reason: "ServiceUnavailable", message: `cannot reach the API server: ${err.message}` }));
    req.end(body);
  });
}

const SelfSubjectAccessReviews = resourceType<KubeObject & { spec: unknown; status?: { allowed?: boolean } }>({ group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectAccessReview", plural: "selfsubjectaccessreviews", namespaced: false });

/** An operator, as the dashboard counts them: the garden allows the token `get` on secrets everywhere. */
export async function isAdmin(api: { url: string; caPem?: string }, token: string): Promise<boolean> {
  const c = clientFor(api, { token });
  try {
    const r = await c.create(SelfSubjectAccessReviews, { metadata: {}, spec: { resourceAttributes: { verb: "get", group: "", resource: "secrets" } } });
    return r.status?.allowed === true;
  } finally {
    c.close();
  }
}
