import { test } from "node:test";
import assert from "node:assert/strict";
import { HostSpecError, Names } from "./names.ts";
import { natTable } from "./nat.ts";
import { renderApplyTable, renderDeleteTable, renderReplaceSets, renderRule, renderTable, type NftRule, type NftTable } from "./nft-render.ts";

const ND: readonly string[] = ["nd-neighbor-solicit", "nd-neighbor-advert", "nd-router-solicit", "nd-router-advert"];
const nd: NftRule = { icmpv6Types: ND, verdict: "accept" };

// The bastion machine's table of the local provider (docs/bastion.md#provider-local).
const bastion: NftTable = {
  family: "inet",
  name: "bastion",
  sets: [
    { name: "ingress4", type: "ipv4_addr", elements: ["10.1.2.3/8", "192.168.7.1", "10.9.0.0/16"] },
    { name: "ingress6", type: "ipv6_addr", elements: ["2001:DB8::/32"] },
    { name: "except4", type: "ipv4_addr", elements: [] },
    { name: "workers4", type: "ipv4_addr", elements: ["10.250.0.0/16"] },
  ],
  chains: [
    {
      name: "input",
      base: { type: "filter", hook: "input", priority: "filter", policy: "drop" },
      rules: [
        { iif: "lo", verdict: "accept" },
        nd,
        { protocol: "tcp", dport: 22, saddr: { set: "except4" }, verdict: "drop" },
        { iif: "eth0", protocol: "tcp", dport: 22, saddr: { set: "ingress4" }, verdict: "accept" },
        { iif: "eth0", protocol: "tcp", dport: 22, saddr: { set: "ingress6" }, verdict: "accept" },
        { protocol: "tcp", dport: 22, verdict: "drop" },
        { ct: ["established", "related"], verdict: "accept" },
      ],
    },
    {
      name: "output",
      base: { type: "filter", hook: "output", priority: 0, policy: "drop" },
      rules: [
        { oif: "lo", verdict: "accept" },
        nd,
        { ct: ["established", "related"], verdict: "accept" },
        { ct: ["new"], protocol: "tcp", dport: 22, daddr: { set: "workers4" }, verdict: "accept", comment: "ssh to workers" },
      ],
    },
    { name: "forward", base: { type: "filter", hook: "forward", priority: "filter", policy: "drop" }, rules: [] },
  ],
};

test("a table renders as nft text: interval sets normalised, chains with policy, typed rules", () => {
  assert.equal(
    renderTable(bastion),
    `table inet bastion {
\tset ingress4 {
\t\ttype ipv4_addr
\t\tflags interval
\t\telements = { 10.0.0.0/8, 192.168.7.1 }
\t}

\tset ingress6 {
\t\ttype ipv6_addr
\t\tflags interval
\t\telements = { 2001:db8::/32 }
\t}

\tset except4 {
\t\ttype ipv4_addr
\t\tflags interval
\t}

\tset workers4 {
\t\ttype ipv4_addr
\t\tflags interval
\t\telements = { 10.250.0.0/16 }
\t}

\tchain input {
\t\ttype filter hook input priority filter; policy drop;
\t\tiifname "lo" accept
\t\ticmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, nd-router-advert } accept
\t\tip saddr @except4 tcp dport 22 drop
\t\tiifname "eth0" ip saddr @ingress4 tcp dport 22 accept
\t\tiifname "eth0" ip6 saddr @ingress6 tcp dport 22 accept
\t\ttcp dport 22 drop
\t\tct state established,related accept
\t}

\tchain output {
\t\ttype filter hook output priority 0; policy drop;
\t\toifname "lo" accept
\t\ticmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, nd-router-advert } accept
\t\tct state established,related accept
\t\tip daddr @workers4 tcp dport 22 ct state new accept comment "ssh to workers"
\t}

\tchain forward {
\t\ttype filter hook forward priority filter; policy drop;
\t}
}
`,
  );
});

test("applying is one transaction that creates or replaces the table", () => {
  const t: NftTable = { family: "inet", name: "bastion_access", chains: [{ name: "input", rules: [{ protocol: "tcp", dport: [22, 2222], saddr: ["10.0.0.1", "10.0.0.2"], verdict: "accept" }] }] };
  assert.equal(
    renderApplyTable(t),
    `table inet bastion_access
delete table inet bastion_access
table inet bastion_access {
\tchain input {
\t\tip saddr { 10.0.0.1, 10.0.0.2 } tcp dport { 22, 2222 } accept
\t}
}
`,
  );
  assert.equal(renderDeleteTable("ip", "ga_nat_x"), "table ip ga_nat_x\ndelete table ip ga_nat_x\n");
});

test("replacing set contents flushes and adds in one transaction; an empty set is only flushed", () => {
  assert.equal(
    renderReplaceSets("inet", "bastion", [
      { name: "ingress4", type: "ipv4_addr", elements: ["10.0.0.9/8", "10.2.0.0/16"] },
      { name: "ingress6", elements: [] },
    ]),
    "flush set inet bastion ingress4\nadd element inet bastion ingress4 { 10.0.0.0/8 }\nflush set inet bastion ingress6\n",
  );
  assert.throws(() => renderReplaceSets("inet", "bastion", [{ name: "ingress4", type: "ipv4_addr", elements: ["fd00::/8"] }]), HostSpecError);
});

test("the NAT table masquerades one way and drops new connections inwards", () => {
  assert.equal(
    renderTable(natTable(new Names("ga-"), { name: "shoot1", netns: "ga-router", sourceCidr: "10.250.0.1/16", outInterface: "ga-up" })),
    `table ip ga_nat_shoot1 {
\tchain postrouting {
\t\ttype nat hook postrouting priority srcnat; policy accept;
\t\toifname "ga-up" ip saddr 10.250.0.0/16 masquerade
\t}

\tchain forward {
\t\ttype filter hook forward priority filter; policy accept;
\t\tct state established,related accept
\t\tiifname "ga-up" ip daddr 10.250.0.0/16 drop
\t}
}
`,
  );
});

test("an inbound exception lets new TCP connections from one address to one port through, before the drop", () => {
  const text = renderTable(natTable(new Names("ga-"), { name: "s", netns: "ga-router", sourceCidr: "10.250.0.0/16", outInterface: "ga-up", inbound: [{ saddr: "198.18.0.2", dport: 10250 }] }));
  assert.match(text, /ct state established,related accept\n\t\tiifname "ga-up" ip saddr 198\.18\.0\.2 ip daddr 10\.250\.0\.0\/16 tcp dport 10250 ct state new accept\n\t\tiifname "ga-up" ip daddr 10\.250\.0\.0\/16 drop\n/);
  assert.throws(() => renderTable(natTable(new Names("ga-"), { name: "s", netns: "r", sourceCidr: "10.250.0.0/16", outInterface: "ga-up", inbound: [{ saddr: "fd00::2", dport: 10250 }] })), HostSpecError, "another family");
});

test("ranges routed to the source network's hosts (pod ranges) are closed to the outside as the source network is, and not masqueraded", () => {
  const text = renderTable(natTable(new Names("ga-"), { name: "s", netns: "ga-router", sourceCidr: "10.250.0.0/16", outInterface: "ga-up", routed: ["100.96.1.7/24", "100.96.0.0/24"] }));
  assert.match(text, /oifname "ga-up" ip saddr 10\.250\.0\.0\/16 masquerade\n/);
  assert.match(text, /iifname "ga-up" ip daddr \{ 10\.250\.0\.0\/16, 100\.96\.0\.0\/24, 100\.96\.1\.0\/24 \} drop\n/);
  assert.throws(() => natTable(new Names("ga-"), { name: "s", netns: "r", sourceCidr: "10.250.0.0/16", outInterface: "ga-up", routed: ["fd00::/64"] }), HostSpecError, "another family");
  assert.throws(() => natTable(new Names("ga-"), { name: "s", netns: "r", sourceCidr: "10.250.0.0/16", outInterface: "ga-up", routed: ["100.96.0.0/24; flush ruleset"] }), "not a CIDR");
});

test("an interface name ending in * matches every interface with that stem", () => {
  const t: NftTable = { family: "inet", name: "t", chains: [{ name: "c", rules: [{ iif: "tun*", oif: "eth0", verdict: "accept" }] }] };
  assert.match(renderTable(t), /\t\tiifname "tun\*" oifname "eth0" accept\n/);
});

test("descriptions nft would reject, or that could inject text, are refused before nft runs", () => {
  const base = (rules: NftRule[], extra: Partial<NftTable> = {}): NftTable => ({ family: "inet", name: "t", chains: [{ name: "c", rules }], ...extra });
  const bad: [string, NftTable][] = [
    ["unknown set", base([{ saddr: { set: "nope" }, verdict: "accept" }])],
    ["dport without protocol", base([{ dport: 22, verdict: "accept" }])],
    ["port out of range", base([{ protocol: "tcp", dport: 70000, verdict: "accept" }])],
    ["mixed families", base([{ saddr: ["10.0.0.1", "fd00::1"], verdict: "accept" }])],
    ["ipv6 in an ip table", { ...base([{ saddr: "fd00::1", verdict: "accept" }]), family: "ip" }],
    ["bad table name", { ...base([]), name: "t; flush ruleset" }],
    ["bad interface", base([{ iif: 'lo" accept; #', verdict: "accept" }])],
    ["bad interface stem", base([{ oif: 'tun" accept; #*', verdict: "accept" }])],
    ["wildcard inside a name", base([{ oif: "t*n", verdict: "accept" }])],
    ["bad comment", base([{ verdict: "accept", comment: 'x" drop' }])],
    ["wrong set family", base([], { sets: [{ name: "s", type: "ipv4_addr", elements: ["fd00::/8"] }] })],
    ["duplicate names", base([], { sets: [{ name: "c", type: "ipv4_addr" }] })],
  ];
  for (const [what, t] of bad) assert.throws(() => renderTable(t), HostSpecError, what);
});

test("MSS clamping renders nft's statement on SYNs, with or without a verdict; a rule with neither is refused", () => {
  const table: NftTable = { family: "inet", name: "vpn_shoot", chains: [{ name: "forward", base: { type: "filter", hook: "forward", priority: "filter", policy: "drop" }, rules: [] }] };
  assert.equal(renderRule(table, { clampMssToRouteMtu: true }), "tcp flags syn tcp option maxseg size set rt mtu");
  assert.equal(renderRule(table, { oif: "tun*", clampMssToRouteMtu: true, verdict: "accept" }), 'oifname "tun*" tcp flags syn tcp option maxseg size set rt mtu accept');
  assert.throws(() => renderRule(table, { iif: "eth0" }), (e: unknown) => e instanceof HostSpecError && /needs a verdict or a statement/.test(e.message));
});

test("DNAT renders a destination address and port in ip tables; other families, addresses and ports are refused", () => {
  const table: NftTable = { family: "ip", name: "svc", chains: [{ name: "prerouting", base: { type: "nat", hook: "prerouting", priority: "dstnat", policy: "accept" }, rules: [] }] };
  assert.equal(renderRule(table, { iif: "br-nodes", daddr: "198.18.0.2", protocol: "tcp", dport: 443, dnatTo: { address: "198.18.0.2", port: 7445 } }), 'iifname "br-nodes" ip daddr 198.18.0.2 tcp dport 443 dnat to 198.18.0.2:7445');
  for (const dnatTo of [{ address: "198.18.0.2;drop", port: 1 }, { address: "300.1.1.1", port: 1 }, { address: "fd00::1", port: 1 }, { address: "10.0.0.1", port: 0 }, { address: "10.0.0.1", port: 70000 }]) {
    assert.throws(() => renderRule(table, { dnatTo }), HostSpecError, JSON.stringify(dnatTo));
  }
  assert.throws(() => renderRule({ ...table, family: "inet" }, { dnatTo: { address: "10.0.0.1", port: 1 } }), HostSpecError);
});
