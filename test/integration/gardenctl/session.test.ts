// `gardenctl ssh NODE -- COMMAND` and the interactive mode against the real garden API server and
// controllers: the Bastion the CLI creates (name, key, CIDRs), waiting with progress, the ssh
// command line it runs (recorded by a fake ssh), known_hosts from the published host keys, the
// exit code passed through, and cleanup (Bastion and private directory) on every way out.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import type { Bastion } from "../../../src/apis/operations/v1alpha1/types.ts";
import { Bastions } from "../../../src/cli/commands/ssh/resources.ts";
import { isNotFound } from "../../../src/apimachinery/errors.ts";
import { eventually } from "../../support/http.ts";
import { ipFor } from "../bastion/actuator.ts";
import { technicalID } from "../bastion/landscape.ts";
import { BASTION_HOST_KEY, CLI_WAIT_MS, type CLIRun, type Env, NODE_HOST_KEY, PROJECT_NS, SHOOT, gardenctl, privateDirs, sshRecords, startEnv } from "./support.ts";

async function bastionGone(e: Env, name: string): Promise<void> {
  await eventually(`bastion ${name} deleted`, async () => {
    try {
      const b = await e.ls.gardenAdmin.get(Bastions, { namespace: PROJECT_NS, name });
      return b.metadata.deletionTimestamp ? true : undefined;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  }, CLI_WAIT_MS);
}

/** Records the Bastions created in the project namespace while a test runs. */
function recordBastions(e: Env): { seen: Bastion[]; stop(): void } {
  const seen: Bastion[] = [];
  const ctl = new AbortController();
  void e.ls.gardenAdmin.watch(Bastions, { namespace: PROJECT_NS }, (ev) => {
    if (ev.type === "ADDED") seen.push(ev.object as Bastion);
  }, ctl.signal).catch(() => undefined);
  return { seen, stop: () => ctl.abort() };
}

describe("gardenctl ssh: sessions", () => {
  let e: Env;
  before(async () => {
    e = await startEnv();
  });
  after(async () => {
    await e?.ls.stop();
  });

  test("command mode: bastion spec, the exact ssh command line, known_hosts, exit code, cleanup", async () => {
    const watch = recordBastions(e);
    const run = gardenctl(e, ["node-a", "--wait-timeout", "20s", "--skip-availability-check", "--", "hostname", "-f"], { env: { FAKE_SSH_EXIT: "7", FAKE_SSH_STDOUT: "node-a.internal\n" } });
    assert.equal(await run.exit, 7, run.stderr());
    watch.stop();
    assert.equal(run.stdout(), "node-a.internal\n", "stdout carries only the remote command's output");

    const [rec] = sshRecords(e).slice(-1);
    assert.ok(rec);
    const dirEntry = Object.entries(rec.files).find(([p, f]) => f.content === undefined && p.includes("gardenctl-ssh-"));
    assert.ok(dirEntry, "the private directory existed while ssh ran");
    const [d, dirInfo] = dirEntry;
    assert.equal(dirInfo.mode, 0o700);
    const pub = rec.files[`${d}/bastion_id_ed25519.pub`]!;
    assert.equal(pub.mode, 0o600);
    assert.equal(rec.files[`${d}/bastion_id_ed25519`]!.mode, 0o600);
    assert.match(rec.files[`${d}/bastion_id_ed25519`]!.content!, /^-----BEGIN OPENSSH PRIVATE KEY-----\n/);

    // The Bastion as created.
    const created = watch.seen.find((b) => /^cli-[0-9a-z]{8}$/.test(b.metadata.name!));
    assert.ok(created, `a cli- bastion was created: ${JSON.stringify(watch.seen.map((b) => b.metadata.name))}`);
    const name = created.metadata.name!;
    assert.equal(created.spec.shootRef.name, SHOOT);
    assert.equal(created.spec.sshPublicKey, pub.content!.trim().split(" ").slice(0, 2).join(" "));
    assert.deepEqual(created.spec.ingress, [{ ipBlock: { cidr: "203.0.113.7/32" } }]);
    assert.equal(created.spec.seedName, "a");

    // The exact command line (docs/gardenctl-ssh.md#the-ssh-command-line), bash quoting.
    const ip = ipFor(name);
    const hop = `ssh '-W[%h]:%p' -oStrictHostKeyChecking=yes -oIdentitiesOnly=yes '-i${d}/bastion_id_ed25519' '-oUserKnownHostsFile='"'"'${d}/bastion_known_hosts'"'"'' '-p22' 'gardener@${ip}'`;
    assert.deepEqual(rec.argv, [
      "-oIdentitiesOnly=yes",
      "-oStrictHostKeyChecking=yes",
      `-oUserKnownHostsFile='${d}/node_known_hosts'`,
      `-i${d}/node_id_rsa`,
      `-oProxyCommand=${hop}`,
      "gardener@10.250.0.5",
      "hostname",
      "-f",
    ]);
    // known_hosts pinned from status.sshHostKeys and the node annotation.
    assert.equal(rec.files[`${d}/bastion_known_hosts`]!.content, `${ip} ${BASTION_HOST_KEY}\n`);
    assert.equal(rec.files[`${d}/node_known_hosts`]!.content, `10.250.0.5,node-a.internal ${NODE_HOST_KEY}\n`);
    assert.match(rec.files[`${d}/node_id_rsa`]!.content!, /^-----BEGIN RSA PRIVATE KEY-----/);

    const err = run.stderr();
    assert.match(err, /^Preparing SSH access target="p\/s" garden="garden"$/m);
    assert.match(err, new RegExp(`^Bastion operation bastion="${PROJECT_NS}/${name}" result="created"$`, "m"));
    assert.match(err, /^Waiting for bastion to be ready… waitTimeout="20s"$/m);
    assert.match(err, new RegExp(`^Bastion host became available. address="${ip.replaceAll(".", "\\.")}"$`, "m"));
    assert.match(err, /> You can open additional SSH sessions by running the following command in a separate terminal:\n\nssh -oIdentitiesOnly=yes -oStrictHostKeyChecking=yes '-oUserKnownHostsFile='"'"'/, "the hint goes to stderr in command mode");
    assert.match(err, /^Cleaning up$/m);
    await bastionGone(e, name);
    assert.deepEqual(privateDirs(e), [], "the private directory is removed");
  });

  test("ssh failing (255): the exit code passes through; probe, --bastion-host/--bastion-port in the command line; cleanup", async () => {
    const banner = await sshBanner();
    try {
      const run = gardenctl(e, ["node-a", "--bastion-host", "127.0.0.1", "--bastion-port", String(banner.port), "--wait-timeout", "20s", "--", "true"], { env: { FAKE_SSH_EXIT: "255" } });
      assert.equal(await run.exit, 255, run.stderr());
      const name = /bastion="garden-p\/(cli-[0-9a-z]{8})" result="created"/.exec(run.stderr())![1]!;
      const rec = sshRecords(e).at(-1)!;
      const proxy = rec.argv.find((a) => a.startsWith("-oProxyCommand="))!;
      assert.ok(proxy.endsWith(` '-p${banner.port}' 'gardener@127.0.0.1'`), proxy);
      const kh = Object.entries(rec.files).find(([p]) => p.endsWith("/bastion_known_hosts"))![1].content;
      assert.equal(kh, `[${ipFor(name)}]:${banner.port},[127.0.0.1]:${banner.port} ${BASTION_HOST_KEY}\n`);
      assert.ok(banner.connections() >= 1, "the availability probe connected");
      assert.doesNotMatch(run.stderr(), /skipping availability check/);
      await bastionGone(e, name);
      assert.deepEqual(privateDirs(e), []);
    } finally {
      banner.server.close();
    }
  });

  test("not ready in time: progress lines with the condition, exit 2 with the last message, cleanup", async () => {
    const name = "cli-timeout1";
    e.ls.actuator.fail(`${technicalID(SHOOT)}/${name}`, "quota exceeded for bastions");
    try {
      const before = sshRecords(e).length;
      const run = gardenctl(e, ["node-a", "--bastion-name", name, "--wait-timeout", "4s", "--skip-availability-check", "--", "true"]);
      assert.equal(await run.exit, 2, run.stderr());
      const err = run.stderr();
      assert.match(err, /^Still waiting reason="[A-Za-z]+" err=".*quota exceeded for bastions.*"$/m);
      assert.match(err, /^Error: timed out waiting for the bastion to become ready: .*quota exceeded for bastions.*$/m);
      assert.equal(err.match(/^Still waiting /gm)?.length, 1, "one line per change");
      assert.equal(sshRecords(e).length, before, "ssh never ran");
      await bastionGone(e, name);
      assert.deepEqual(privateDirs(e), []);
    } finally {
      e.ls.actuator.clearFailure(`${technicalID(SHOOT)}/${name}`);
    }
  });

  test("a configuration problem on the Bastion (e.g. no free address): exit 1 at once with its message, cleanup", async () => {
    const name = "cli-config1";
    e.ls.actuator.fail(`${technicalID(SHOOT)}/${name}`, "no free address in 198.18.0.0/16 (the public network)", ["ERR_CONFIGURATION_PROBLEM"]);
    try {
      const start = performance.now();
      const run = gardenctl(e, ["node-a", "--bastion-name", name, "--wait-timeout", "60s", "--skip-availability-check", "--", "true"]);
      assert.equal(await run.exit, 1, run.stderr());
      assert.ok(performance.now() - start < 30_000, "long before --wait-timeout");
      assert.match(run.stderr(), /^Error: the bastion cannot become ready \(ERR_CONFIGURATION_PROBLEM\): .*no free address in 198\.18\.0\.0\/16 \(the public network\)$/m);
      await bastionGone(e, name);
      assert.deepEqual(privateDirs(e), []);
    } finally {
      e.ls.actuator.clearFailure(`${technicalID(SHOOT)}/${name}`);
    }
  });

  for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
    test(`${signal} while waiting: exit ${code} after deleting the Bastion and the private directory`, async () => {
      const name = `cli-sig${code}xx`;
      const release = e.ls.actuator.holdReconcile(`${technicalID(SHOOT)}/${name}`);
      try {
        const run = gardenctl(e, ["node-a", "--bastion-name", name, "--skip-availability-check", "--", "true"]);
        await run.waitFor(/Waiting for bastion to be ready/);
        assert.equal(privateDirs(e).length, 1);
        run.child.kill(signal);
        assert.equal(await run.exit, code, run.stderr());
        assert.match(run.stderr(), /^Caught signal, cancelling...$/m);
        assert.doesNotMatch(run.stderr(), /^Error:/m);
        await bastionGone(e, name);
        assert.deepEqual(privateDirs(e), []);
      } finally {
        release();
      }
    });
  }

  test("SIGTERM during the session is forwarded to ssh; its exit code is gardenctl's; cleanup follows", async (t) => {
    const before = sshRecords(e).length;
    const run = gardenctl(e, ["node-a", "--skip-availability-check"], { env: { FAKE_SSH_HANG: "1" } });
    t.after(() => run.kill());
    const name = (await run.waitFor(/bastion="garden-p\/(cli-[0-9a-z]{8})"/))[1]!;
    await sshHanging(e, run, before);
    assert.match(run.stdout(), /^> You can open additional SSH sessions by running the following command in a separate terminal:\n\nssh -oIdentitiesOnly=yes /, "interactive mode prints the hint on stdout");
    assert.deepEqual(sshRecords(e).at(-1)!.argv.at(-1), "gardener@10.250.0.5", "no remote command: a shell");
    run.child.kill("SIGINT");
    run.child.kill("SIGTERM");
    assert.equal(await run.exit, 143, run.stderr());
    assert.deepEqual(sshRecords(e).slice(before).map((r) => r.signal).filter(Boolean), ["SIGTERM"], "SIGINT stays with the terminal's child, SIGTERM is forwarded");
    await bastionGone(e, name);
    assert.deepEqual(privateDirs(e), []);
  });

  test("the Bastion deleted during the session: ssh is ended, exit 1 with the documented message", async (t) => {
    const before = sshRecords(e).length;
    const run = gardenctl(e, ["node-a", "--skip-availability-check", "--", "sleep", "1000"], { env: { FAKE_SSH_HANG: "1" } });
    t.after(() => run.kill());
    const name = (await run.waitFor(/bastion="garden-p\/(cli-[0-9a-z]{8})"/))[1]!;
    await sshHanging(e, run, before);
    await e.ls.gardenAdmin.delete(Bastions, { namespace: PROJECT_NS, name });
    assert.equal(await run.exit, 1, run.stderr());
    assert.match(run.stderr(), /^Can't keep bastion alive. Bastion is already gone.$/m);
    assert.match(run.stderr(), new RegExp(`^Error: bastion "${PROJECT_NS}/${name}" is gone \\(deleted or expired\\); ending the session$`, "m"));
    assert.deepEqual(sshRecords(e).slice(before).map((r) => r.signal).filter(Boolean), ["SIGTERM"]);
    assert.deepEqual(privateDirs(e), []);
  });
});

/** Waits until the fake ssh of `run` (a record after the first `before`) hangs in its session. */
async function sshHanging(e: Env, run: CLIRun, before: number): Promise<void> {
  await run.until("ssh running", () => (sshRecords(e).slice(before).some((r) => r.hanging) ? true : undefined));
}

/** A TCP server that greets like sshd (for the availability probe). */
async function sshBanner(): Promise<{ server: Server; port: number; connections(): number }> {
  let n = 0;
  const server = createServer((sock) => {
    n++;
    sock.end("SSH-2.0-OpenSSH_9.6 test\r\n");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, port: (server.address() as AddressInfo).port, connections: () => n };
}
