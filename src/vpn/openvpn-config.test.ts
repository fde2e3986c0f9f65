import assert from "node:assert/strict";
import { test } from "node:test";
import {
  OpenVpnConfigError,
  generateTlsAuthKey,
  maxRoutes,
  renderCcd,
  renderClientConfig,
  renderHooks,
  renderServerConfig,
  serverSubnet,
  shootRanges,
} from "./openvpn-config.ts";

const SHOOT = ["100.96.0.0/11", "10.250.0.0/16", "100.64.0.0/13", "10.250.1.0/16"];
const serverFiles = { ca: "/s/bundle.crt", cert: "/s/tls.crt", key: "/s/tls.key", tlsAuth: "/s/vpn.tlsauth", ccdDir: "/s/ccd", management: "/s/m.sock", upHook: "/s/up.sh", downHook: "/s/down.sh" };

test("shoot ranges are normalised, de-duplicated and sorted; iroutes carry dotted masks", () => {
  assert.deepEqual(shootRanges(SHOOT).map((r) => `${r.network}/${r.prefix}`), ["10.250.0.0/16", "100.64.0.0/13", "100.96.0.0/11"]);
  assert.equal(renderCcd(SHOOT), "iroute 10.250.0.0 255.255.0.0\niroute 100.64.0.0 255.248.0.0\niroute 100.96.0.0 255.224.0.0\n");
  assert.throws(() => shootRanges(["10.0.0.0/33"]), OpenVpnConfigError);
  assert.throws(() => shootRanges(["fd00::/8"]), OpenVpnConfigError);
});

test("transfer subnets: plain is the /24 with .1, HA server i the i-th /26", () => {
  assert.deepEqual(serverSubnet("192.168.123.0/24", undefined), { network: "192.168.123.0", mask: "255.255.255.0", address: "192.168.123.1" });
  assert.deepEqual(serverSubnet("192.168.123.0/24", 1), { network: "192.168.123.64", mask: "255.255.255.192", address: "192.168.123.65" });
  assert.throws(() => serverSubnet("192.168.0.0/16", undefined), /prefix length 24/);
});

test("max-routes-per-client is the shoot's address count, clamped to [256, 1048576]", () => {
  assert.equal(maxRoutes(shootRanges(["10.0.0.0/28"])), 256);
  assert.equal(maxRoutes(shootRanges(["10.250.0.0/16"])), 65536);
  assert.equal(maxRoutes(shootRanges(SHOOT)), 1_048_576);
});

test("the server config is GEP-14's: TCP, AEAD only, tls-auth direction 0, ccd-exclusive, hooks, management socket", () => {
  const text = renderServerConfig({ local: "10.1.0.5", transferNetwork: "192.168.123.0/24", shootCidrs: ["10.250.0.0/16"], files: serverFiles });
  for (const line of ["proto tcp4-server", "local 10.1.0.5", "dev tun0", "server 192.168.123.0 255.255.255.0", "keepalive 10 30", "data-ciphers AES-256-GCM", "dh none", "tls-auth /s/vpn.tlsauth 0", "remote-cert-tls client", "ccd-exclusive", "max-routes-per-client 65536", "up /s/up.sh", "management /s/m.sock unix"]) {
    assert.ok(text.split("\n").includes(line), line);
  }
  assert.doesNotMatch(text, /^(cipher|client-to-client|duplicate-cn|push|route) /m);
  assert.throws(() => renderServerConfig({ local: "10.1.0.5", transferNetwork: "192.168.123.0/24", shootCidrs: [], files: { ...serverFiles, key: "/s/my key" } }), OpenVpnConfigError);
  assert.throws(() => renderServerConfig({ local: "x\nscript-security 3", transferNetwork: "192.168.123.0/24", shootCidrs: [], files: serverFiles }), OpenVpnConfigError);
});

test("the up hook routes the shoot's ranges in the server's own table, for the tunnel address only", () => {
  const { up, down } = renderHooks({ transferNetwork: "192.168.123.0/24", index: 1, shootCidrs: ["10.250.0.0/16"] });
  assert.match(up, /^ip route replace 10\.250\.0\.0\/16 dev "\$dev" table 101$/m);
  assert.match(up, /^ip rule add from 192\.168\.123\.65 lookup 101 priority 1001$/m);
  assert.match(down, /^ip rule del from 192\.168\.123\.65 lookup 101 priority 1001/m);
});

test("the client config dials through the proxy with the Reversed-VPN header and accepts no routes", () => {
  const files = { ca: "/c/ca", cert: "/c/crt", key: "/c/key", tlsAuth: "/c/ta", management: "/c/m.sock" };
  const text = renderClientConfig({ endpoint: "api.local", proxyHost: "198.18.0.1", namespace: "shoot--p--s", index: 0, files });
  for (const line of ["proto tcp4-client", "dev tun0", "remote api.local 1194", "http-proxy 198.18.0.1 8132", "http-proxy-option CUSTOM-HEADER Reversed-VPN outbound|1194||vpn-seed-server-0.shoot--p--s.svc.cluster.local", "connect-retry 1 2", "tls-auth /c/ta 1", "verify-x509-name vpn-seed-server name", 'pull-filter ignore "route"']) {
    assert.ok(text.split("\n").includes(line), line);
  }
  assert.doesNotMatch(text, /connect-retry-max/);
  assert.throws(() => renderClientConfig({ endpoint: "a b", proxyHost: "x", namespace: "shoot--p--s", files }), OpenVpnConfigError);
  assert.throws(() => renderClientConfig({ endpoint: "a", proxyHost: "x", namespace: "Shoot|x", files }), OpenVpnConfigError);
});

test("the tls-auth key has openvpn --genkey's format: 16 lines of 32 hex digits", () => {
  const key = generateTlsAuthKey();
  const lines = key.trimEnd().split("\n");
  assert.equal(lines[0], "-----BEGIN OpenVPN Static key V1-----");
  assert.equal(lines[17], "-----END OpenVPN Static key V1-----");
  assert.equal(lines.slice(1, 17).filter((l) => /^[0-9a-f]{32}$/.test(l)).length, 16);
  assert.notEqual(generateTlsAuthKey(), key);
});
