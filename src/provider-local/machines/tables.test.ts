import { test } from "node:test";
import assert from "node:assert/strict";
import { renderTable } from "../../host/index.ts";
import { bastionAccessTable, bastionTable, byFamily, kubeletAccessTable, podMasqueradeTable } from "./tables.ts";

const chain = (text: string, name: string) => {
  const start = text.indexOf(`chain ${name} {\n`);
  const body = text.slice(start, text.indexOf("\n\t}", start)).split("\n").slice(1).join("\n");
  return body.split("\n").map((l) => l.trim()).filter(Boolean);
};

test("inet bastion: except before ingress, port 22 per packet before established, only TCP 22 out to workers", () => {
  const text = renderTable(bastionTable({ ingress: ["203.0.113.7/32", "2001:db8::/64", "10.1.2.3/8"], except: ["10.9.0.0/16"], workers: ["10.250.0.0/24"] }));
  assert.match(text, /set ingress4 \{[^}]*elements = \{ 10\.0\.0\.0\/8, 203\.0\.113\.7 \}/, "normalised to network addresses");
  assert.match(text, /set ingress6 \{[^}]*elements = \{ 2001:db8::\/64 \}/);
  assert.deepEqual(chain(text, "input"), [
    "type filter hook input priority filter; policy drop;",
    'iifname "lo" accept',
    "icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, nd-router-advert } accept",
    "ip saddr @except4 tcp dport 22 drop",
    "ip6 saddr @except6 tcp dport 22 drop",
    'iifname "eth0" ip saddr @ingress4 tcp dport 22 accept',
    'iifname "eth0" ip6 saddr @ingress6 tcp dport 22 accept',
    "tcp dport 22 drop",
    "ct state established,related accept",
  ]);
  assert.deepEqual(chain(text, "output"), [
    "type filter hook output priority filter; policy drop;",
    'oifname "lo" accept',
    "icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, nd-router-advert } accept",
    "ct state established,related accept",
    "ip daddr @workers4 tcp dport 22 ct state new accept",
    "ip6 daddr @workers6 tcp dport 22 ct state new accept",
  ]);
  assert.deepEqual(chain(text, "forward"), ["type filter hook forward priority filter; policy drop;"]);
});

test("inet bastion_access: SSH only from the shoot's bastions, other traffic accepted", () => {
  const text = renderTable(bastionAccessTable(["10.250.0.3", "10.250.0.4"]));
  assert.match(text, /set bastions4 \{[^}]*elements = \{ 10\.250\.0\.3, 10\.250\.0\.4 \}/);
  assert.deepEqual(chain(text, "input"), [
    "type filter hook input priority filter; policy accept;",
    "ip saddr @bastions4 tcp dport 22 accept",
    "ip6 saddr @bastions6 tcp dport 22 accept",
    "tcp dport 22 drop",
  ]);
});

test("byFamily splits and rejects what does not parse", () => {
  assert.deepEqual(byFamily(["10.0.0.0/8", "fd00::/8"]), { v4: ["10.0.0.0/8"], v6: ["fd00::/8"] });
  assert.throws(() => byFamily(["nope"]));
});

test("inet kubelet_access: the kubelet port only from the control plane; ip pod_nat: pods masqueraded out of the node interface only", () => {
  const text = renderTable(kubeletAccessTable(["198.18.0.2"], 10250));
  assert.deepEqual(chain(text, "input"), [
    "type filter hook input priority filter; policy accept;",
    "ip saddr @controlplane4 tcp dport 10250 accept",
    "ip6 saddr @controlplane6 tcp dport 10250 accept",
    "tcp dport 10250 drop",
  ]);
  assert.match(text, /set controlplane4 \{[^}]*elements = \{ 198\.18\.0\.2 \}/);
  assert.deepEqual(chain(renderTable(podMasqueradeTable("100.96.1.0/24", "eth0")), "postrouting"), [
    "type nat hook postrouting priority srcnat; policy accept;",
    'oifname "eth0" ip saddr 100.96.1.0/24 masquerade',
  ]);
});
