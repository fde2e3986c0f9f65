// Who may use the kubelet server: a client certificate from the client CA (else 401) whose CN is an
// allowed user or whose O names an allowed group (else 403). Decided from the verified certificate
// only, before the path is looked at.
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { newForbiddenMessage, newUnauthorized, type StatusError } from "../../../apimachinery/errors.ts";

export interface ClientIdentity {
  user: string;
  groups: string[];
}

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The verified client certificate's identity (CN, O), or undefined when there is none. */
export function clientIdentity(req: IncomingMessage): ClientIdentity | undefined {
  const socket = req.socket as TLSSocket;
  if (!socket.authorized) return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert?.subject) return undefined;
  const user = list(cert.subject.CN)[0];
  if (!user) return undefined;
  return { user, groups: list(cert.subject.O) };
}

/** undefined when allowed, else the error to answer with. */
export function checkClient(req: IncomingMessage, users: readonly string[], groups: readonly string[]): StatusError | undefined {
  const id = clientIdentity(req);
  if (!id) return newUnauthorized();
  if (users.includes(id.user) || id.groups.some((g) => groups.includes(g))) return undefined;
  return newForbiddenMessage(`Forbidden (user=${id.user}, verb=${(req.method ?? "GET").toLowerCase()}, resource=nodes, subresource=proxy)`);
}
