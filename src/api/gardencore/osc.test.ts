import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AUTHORIZED_KEYS_FILE, checksumOf, fileContent, oscSecretName, parseOSC, renderOSC } from "./osc.ts";

const CURRENT = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCurrent";
const OLD = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQOld";

describe("osc.yaml", () => {
  it("renders the gardener-user part with current then old keys, no trailing newline", () => {
    const text = renderOSC({ authorizedKeys: [CURRENT, OLD] });
    const data = Buffer.from(`${CURRENT}\n${OLD}`).toString("base64");
    assert.equal(
      text,
      [
        "apiVersion: extensions.gardener.cloud/v1alpha1",
        "kind: OperatingSystemConfig",
        "spec:",
        "  files:",
        "    - path: /var/lib/gardener-user-authorized-keys",
        "      permissions: 420",
        "      content:",
        "        inline:",
        "          encoding: b64",
        `          data: ${data}`,
        "  units: []",
        "",
      ].join("\n"),
    );
    assert.equal(fileContent(parseOSC(text), AUTHORIZED_KEYS_FILE), `${CURRENT}\n${OLD}`);
  });

  it("is deterministic and changes with the keys", () => {
    const a = renderOSC({ authorizedKeys: [CURRENT] });
    assert.equal(renderOSC({ authorizedKeys: [CURRENT] }), a);
    assert.equal(checksumOf(a), checksumOf(Buffer.from(a)));
    assert.match(checksumOf(a), /^[0-9a-f]{64}$/);
    assert.notEqual(checksumOf(renderOSC({ authorizedKeys: [CURRENT, OLD] })), checksumOf(a));
  });

  it("drops the gardener-user part when SSH access is disabled", () => {
    const osc = parseOSC(renderOSC({}));
    assert.deepEqual(osc.spec.files, []);
    assert.equal(fileContent(osc, AUTHORIZED_KEYS_FILE), undefined);
  });

  it("rejects what is not an OperatingSystemConfig", () => {
    assert.throws(() => parseOSC("kind: Secret\nspec: {}\n"), /not an OperatingSystemConfig/);
    assert.throws(() => parseOSC("kind: OperatingSystemConfig\nspec:\n  files:\n    - path: relative\n"), /malformed file/);
    assert.throws(() => parseOSC("{"), /not valid YAML/);
  });

  it("names the Secret by pool and machine generation, independent of key order", () => {
    const a = oscSecretName("worker", { machine: { type: "m", image: { name: "debian" } }, kubernetesVersion: "1.31" });
    assert.match(a, /^gardener-node-agent-worker-[0-9a-f]{8}$/);
    assert.equal(oscSecretName("worker", { kubernetesVersion: "1.31", machine: { image: { name: "debian" }, type: "m" } }), a);
    assert.notEqual(oscSecretName("worker", { machine: { type: "n" }, kubernetesVersion: "1.31" }), a);
  });
});
