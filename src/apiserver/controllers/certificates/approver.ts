// The CSR approver (kube-controller-manager's csrapproving, sarapprove.go, and for serving
// certificates Gardener resource-manager's kubelet CSR approver):
// - kubernetes.io/kube-apiserver-client-kubelet requests for CN system:node:<n>, O system:nodes,
//   no SANs and the kubelet client usages are approved when the requester may `create`
//   certificatesigningrequests/selfnodeclient (a node renewing its own identity: CN equals the
//   requester) or /nodeclient (a bootstrapper), asked of the server's authorizer as a
//   SubjectAccessReview for the requester recorded in spec (set by the server at create);
// - kubernetes.io/kubelet-serving requests from system:node:<n> (group system:nodes) for CN
//   system:node:<n>, O system:nodes, whose DNS and IP SANs are exactly the Node's Hostname/DNS and
//   IP addresses, are approved; a mismatch is denied; a Node not registered yet is checked again later.
// Anything else is left alone (pending) for an administrator (`kubectl certificate approve`).
import {
  CSRParseError,
  NODES_GROUP,
  NODE_USER_PREFIX,
  type ParsedCSR,
  kubeletClientProblem,
  kubeletServingProblem,
  parseCSRObject,
} from "../../../api/certificates/csr.ts";
import { type CertificateSigningRequest, SIGNER_KUBELET_CLIENT, SIGNER_KUBELET_SERVING } from "../../../apis/certificates/v1/types.ts";
import type { Node } from "../../../apis/core/v1/types.ts";
import type { Authorizer } from "../../authorization/types.ts";
import type { SyncResult } from "../queue.ts";
import { CSRController, CSRS, type CSRControllerOptions, condition, withCondition } from "./common.ts";
import { NODES } from "../../registry/core/resources.ts";

/** How long a serving request waits for its Node before it is checked again. */
export const NODE_RECHECK_MS = 5000;

export const SELF_NODE_CLIENT_MESSAGE = "Auto approving self kubelet client certificate after SubjectAccessReview.";
export const NODE_CLIENT_MESSAGE = "Auto approving kubelet client certificate after SubjectAccessReview.";
export const SERVING_APPROVED_MESSAGE = "Approving kubelet server certificate CSR (all checks passed)";

export interface ApproverOptions extends CSRControllerOptions {
  authorizer: () => Authorizer;
  /** Each decision (approved, denied, or why a recognised request was not approved), for logs and tests. */
  onDecision?: (name: string, decision: string) => void;
}

export class CSRApprover extends CSRController<ApproverOptions> {
  async sync(name: string): Promise<SyncResult> {
    const csr = await this.csr(name);
    if (!csr || csr.status?.certificate) return;
    if ((csr.status?.conditions ?? []).some((c) => c.type === "Approved" || c.type === "Denied")) return;
    const signer = csr.spec?.signerName;
    if (signer !== SIGNER_KUBELET_CLIENT && signer !== SIGNER_KUBELET_SERVING) return;
    let req: ParsedCSR;
    try {
      req = parseCSRObject(csr);
    } catch (err) {
      if (err instanceof CSRParseError) return this.decided(name, `unparseable: ${err.message}`);
      throw err;
    }
    if (signer === SIGNER_KUBELET_CLIENT) return this.client(csr, req);
    return this.serving(csr, req);
  }

  private async client(csr: CertificateSigningRequest, req: ParsedCSR): Promise<SyncResult> {
    const name = csr.metadata.name!;
    const problem = kubeletClientProblem(req, csr.spec.usages ?? []);
    if (problem) return this.decided(name, `not a kubelet client request: ${problem}`);
    const self = csr.spec.username === req.commonName;
    const tried: [string, string][] = self ? [["selfnodeclient", SELF_NODE_CLIENT_MESSAGE], ["nodeclient", NODE_CLIENT_MESSAGE]] : [["nodeclient", NODE_CLIENT_MESSAGE]];
    for (const [subresource, message] of tried) {
      if (await this.requesterMay(csr, subresource)) return this.approve(csr, "AutoApproved", message);
    }
    return this.decided(name, `recognized csr "${name}" as [${tried.map(([s]) => s).join(" ")}] but subject access review was not approved`);
  }

  private async requesterMay(csr: CertificateSigningRequest, subresource: string): Promise<boolean> {
    const spec = csr.spec;
    const user = { username: spec.username ?? "", groups: spec.groups ?? [], ...(spec.uid ? { uid: spec.uid } : {}), ...(spec.extra ? { extra: spec.extra } : {}) };
    if (!user.username) return false;
    const r = await this.opts.authorizer().authorize({
      user,
      verb: "create",
      resourceRequest: true,
      apiGroup: CSRS.group,
      apiVersion: "*",
      resource: CSRS.resource,
      subresource,
    });
    return r.decision === "allow";
  }

  private async serving(csr: CertificateSigningRequest, req: ParsedCSR): Promise<SyncResult> {
    const name = csr.metadata.name!;
    const username = csr.spec.username ?? "";
    if (!username.startsWith(NODE_USER_PREFIX) || !(csr.spec.groups ?? []).includes(NODES_GROUP)) {
      return this.decided(name, "not requested by a node");
    }
    const problem = kubeletServingProblem(req, csr.spec.usages ?? []) ?? (req.commonName !== username ? "common name does not match the requesting node" : undefined);
    if (problem) return this.deny(csr, problem);
    const nodeName = username.slice(NODE_USER_PREFIX.length);
    const node = (await this.opts.client.get(NODES, undefined, nodeName)) as Node | undefined;
    if (!node) {
      this.decided(name, `node ${nodeName} not found; checking again`);
      return NODE_RECHECK_MS;
    }
    const addresses = (node.status?.addresses ?? []) as { type: string; address: string }[];
    const dns = new Set(addresses.filter((a) => ["Hostname", "InternalDNS", "ExternalDNS"].includes(a.type)).map((a) => a.address));
    const ips = new Set(addresses.filter((a) => a.type === "InternalIP" || a.type === "ExternalIP").map((a) => a.address));
    if (!sameSet(req.dnsNames, dns)) return this.deny(csr, `DNS names in CSR (${req.dnsNames.join(", ")}) do not match the Node's host names (${[...dns].join(", ")})`);
    if (!sameSet(req.ipAddresses, ips)) return this.deny(csr, `IP addresses in CSR (${req.ipAddresses.join(", ")}) do not match the Node's addresses (${[...ips].join(", ")})`);
    return this.approve(csr, "RequestApproved", SERVING_APPROVED_MESSAGE);
  }

  private async approve(csr: CertificateSigningRequest, reason: string, message: string): Promise<void> {
    await this.opts.client.update(CSRS, withCondition(csr, condition(this.opts.clock, "Approved", reason, message)), "approval");
    this.decided(csr.metadata.name!, `approved: ${message}`);
  }

  private async deny(csr: CertificateSigningRequest, why: string): Promise<void> {
    await this.opts.client.update(CSRS, withCondition(csr, condition(this.opts.clock, "Denied", "RequestDenied", `Denying kubelet server certificate CSR: ${why}`)), "approval");
    this.decided(csr.metadata.name!, `denied: ${why}`);
  }

  private decided(name: string, decision: string): void {
    this.opts.onDecision?.(name, decision);
  }
}

function sameSet(a: readonly string[], b: ReadonlySet<string>): boolean {
  const s = new Set(a);
  return s.size === b.size && [...s].every((x) => b.has(x));
}
