import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { systemctlSshd } from "./sshd.ts";

function runner(missing: string[] = [], active = false) {
  const calls: string[] = [];
  return {
    calls,
    run: (cmd: string, args: string[]) => {
      calls.push(`${cmd} ${args.join(" ")}`);
      const unit = args[1] ?? "";
      if (missing.includes(unit) && args[0] !== "unmask") return Promise.resolve({ code: 5, stdout: "" });
      if (args[0] === "is-active") return Promise.resolve({ code: active ? 0 : 3, stdout: active ? "active\n" : "inactive\n" });
      return Promise.resolve({ code: 0, stdout: "" });
    },
  };
}

describe("sshd-ensurer via systemctl", () => {
  it("enabled: unmasks, enables and starts sshd.service when it is not active", async () => {
    const r = runner();
    await systemctlSshd({ runner: r.run, endConnections: () => assert.fail("only when disabling") }).ensure(true);
    assert.deepEqual(r.calls, ["systemctl unmask sshd.service", "systemctl enable sshd.service", "systemctl is-active sshd.service", "systemctl start sshd.service"]);
  });

  it("enabled: falls back to ssh.service and does not restart an active daemon", async () => {
    const r = runner(["sshd.service"], true);
    await systemctlSshd({ runner: r.run, endConnections: () => assert.fail("only when disabling") }).ensure(true);
    assert.deepEqual(r.calls.slice(-3), ["systemctl unmask ssh.service", "systemctl enable ssh.service", "systemctl is-active ssh.service"]);
  });

  it("disabled: disables, masks and stops both unit names", async () => {
    const r = runner();
    let ended = 0;
    await systemctlSshd({ runner: r.run, endConnections: () => Promise.resolve(void ended++) }).ensure(false);
    assert.equal(ended, 1, "connections left behind are ended after the stop");
    for (const unit of ["sshd.service", "ssh.service"]) {
      for (const verb of ["disable", "mask", "stop"]) assert.ok(r.calls.includes(`systemctl ${verb} ${unit}`), `${verb} ${unit}`);
    }
  });
});
