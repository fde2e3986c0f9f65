// An in-process HTTPS admission webhook for the webhook tests: a fresh CA (the project's cert
// helpers), a serving certificate for 127.0.0.1 and `hook.<namespace>.svc`, and one handler per path.
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { AdmissionRequest, AdmissionResponse } from "../../../src/apis/admission/v1/types.ts";
import { createCertificateAuthority, issueServingCertificate } from "../../../src/apiserver/certs/issue.ts";

export type Handler = (req: AdmissionRequest) => Partial<AdmissionResponse> | "hang" | "error";

export interface WebhookServer {
  port: number;
  /** base64 PEM of the CA, for caBundle. */
  caBundle: string;
  url(path: string): string;
  handlers: Map<string, Handler>;
  /** Requests received, by path. */
  seen: Map<string, AdmissionRequest[]>;
  close(): Promise<void>;
}

export const jsonPatch = (ops: unknown[]): Partial<AdmissionResponse> => ({
  allowed: true,
  patchType: "JSONPatch",
  patch: Buffer.from(JSON.stringify(ops)).toString("base64"),
});

export async function startWebhookServer(serviceName: string): Promise<WebhookServer> {
  const ca = await createCertificateAuthority({ commonName: "webhook-test-ca" });
  const cert = await issueServingCertificate(ca, { hosts: ["127.0.0.1", serviceName] });
  const handlers = new Map<string, Handler>();
  const seen = new Map<string, AdmissionRequest[]>();
  const server: Server = createServer({ key: cert.keyPem, cert: cert.certPem }, (req, res) => {
    const path = new URL(req.url ?? "/", "https://x").pathname;
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      const review = JSON.parse(body) as { request: AdmissionRequest };
      seen.set(path, [...(seen.get(path) ?? []), review.request]);
      const answer = handlers.get(path)?.(review.request) ?? { allowed: true };
      if (answer === "hang") return; // the caller's timeout ends it
      if (answer === "error") {
        res.writeHead(500).end("boom");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, ...answer } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    caBundle: Buffer.from(ca.certPem).toString("base64"),
    url: (path) => `https://127.0.0.1:${port}${path}`,
    handlers,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
