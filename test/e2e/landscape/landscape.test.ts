// `gardener-local` end to end (root): `up` on a fresh state directory reaches ready with two Nodes that
// publish host keys; the kubeconfigs work with kubectl (the project member sees the project's shoots but
// not seeds); a member's garden terminal through the dashboard's API reaches the garden and leaves
// nothing behind; the garden's audit log answers who had access (audit.ts); `gardenctl ssh` opens an
// interactive shell and keeps a bastion until SIGINT (../gardenctl-shell/shell.ts); `status` lists components and machines; a killed component is restarted; `up` after a
// SIGKILL of the supervisor works; `down` leaves no namespace, link, mount, process or nft table behind.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ANNOTATION_SSH_HOST_KEYS } from "../../../src/api/gardencore/osc.ts";
import { isForbidden, isNotFound } from "../../../src/apimachinery/errors.ts";
import { Secrets, ServiceAccounts } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { Projects } from "../../../src/client/garden.ts";
import { Nodes } from "../../../src/nodeagent/node.ts";
import { eventually } from "../../support/http.ts";
import { hostSnapshot, skipUnlessRoot } from "../support/landscape.ts";
import { ShellChecks, shellSkip } from "../gardenctl-shell/shell.ts";
import { auditSkip, checkAuditTrail } from "./audit.ts";
import { kubectl, latestKubectl, skipUnlessKubectl } from "../../support/kubectl.ts";
import { Layout, MEMBER_USER, SHOOT_TECHNICAL_ID } from "../../../src/landscape/layout.ts";
import { ensureWebDist } from "../../../src/landscape/webdist.ts";
import { LandscapeBrowser, chromiumSkip } from "./browser.ts";
import { browserTerminalJourney, memberLogin, operatorLogin } from "./terminal-browser.ts";
import { Attached, DashboardApi, assertTerminalGone, openTerminal, traceOf } from "./terminal.ts";

const skip = skipUnlessRoot;
const PREFIX = "gle-";
const CLI = join(import.meta.dirname, "../../../bin/gardener-local.js");

/** The user's environment: a home of the test's own (up writes gardenctl's default config there). */
let home = "";
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete env.GCTL_HOME;
  delete env.GCTL_CONFIG_NAME;
  return env;
}

function run(args: string[], timeoutMs = 180_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"], env: userEnv() });
    let stdout = "", stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("close", (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
}

const snapshot = (dir: string) => hostSnapshot(dir, PREFIX);

// The timeout guards against a hang, it is no speed bound: at load average 15 (a fresh clone's `npm test` beside
// two busy loops and other work) the file took 460 s, and a suite past its timeout runs its `after` (down) beside
// the test still running.
describe("gardener-local e2e", { skip, timeout: 1_200_000 }, () => {
  let dir: string;
  let before0: Record<string, string[]>;
  const args = () => ["--state-dir", dir, "--prefix", PREFIX];
  const up = () => run(["up", ...args(), "--ports", "17443,17444,17445"]);

  const nodesWithHostKeys = async (): Promise<number> => {
    const shoot = Client.fromKubeconfigFile(join(dir, "shoot-local.kubeconfig"), { fieldManager: "e2e" });
    try {
      const nodes = await shoot.list(Nodes);
      return nodes.items.filter((n) => /ssh-ed25519 /.test(n.metadata.annotations?.[ANNOTATION_SSH_HOST_KEYS] ?? "")).length;
    } finally {
      shoot.close();
    }
  };

  before(() => {
    // The dashboard's frontend, built before the CPU load (up builds it when missing or stale).
    ensureWebDist((line) => process.stderr.write(`${line}\n`));
    dir = mkdtempSync(join(tmpdir(), "gardener-local-e2e-"));
    home = join(dir, "home");
    before0 = snapshot(dir);
  });
  after(async () => {
    if (existsSync(join(dir, "run"))) await run(["down", ...args()]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Keeps both cores busy, as another process of a loaded machine would; returns a stop function. */
  const burnCPU = (): (() => void) => {
    const burners = [0, 1].map(() => spawn("sh", ["-c", "while :; do :; done"], { stdio: "ignore" }));
    return () => burners.forEach((b) => b.kill("SIGKILL"));
  };
  let stopBurning: (() => void) | undefined;
  after(() => stopBurning?.());

  test("up reaches ready under CPU load: two Nodes with host keys, kubeconfigs written", async () => {
    // `up` returns when the README's next line works; that line runs right after it, still under load.
    stopBurning = burnCPU();
    const r = await up();
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /2 nodes registered/);
    assert.match(r.stdout, /node key pair applied by every node/);
    assert.match(r.stdout, /landscape ready/);
    assert.match(r.stdout, /dashboard: https:\/\/127\.0\.0\.1:17448\/ .*log in with the token in .*garden-member\.token/);
    assert.match(r.stdout, /as the operator local-operator .*with the token in .*garden-operator\.token/);
    for (const f of ["garden.kubeconfig", "garden-member.kubeconfig", "shoot-local.kubeconfig"]) assert.ok(existsSync(join(dir, f)), f);
    assert.match(r.stdout, /gardenctl: configured garden local in .*\/home\/\.garden\/gardenctl-v2\.yaml/);
    assert.equal(await nodesWithHostKeys(), 2);
  });

  /** `gardenctl ssh NODE -- command...` as the README shows it. */
  const gardenctlSsh = (node: string, ...command: string[]) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const gardenctl = join(import.meta.dirname, "../../../bin/gardenctl.js");
      const sshArgs = ["ssh", "--kubeconfig", join(dir, "garden.kubeconfig"), "--project", "local", "--shoot", "local", node, "--", ...command];
      const child = spawn(process.execPath, [gardenctl, ...sshArgs], { env: userEnv(), stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (out += d.toString()));
      child.once("close", (code) => resolve({ code, out }));
    });

  test("README path, right after up and still under load: gardenctl ssh with the garden kubeconfig runs a command on a node through a bastion, no --cidr", async () => {
    const r = await gardenctlSsh("shoot--local--local-worker-w1", "hostname");
    stopBurning?.();
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /^worker-w1$/m);
    assert.match(r.out, /cidr="198\.18\.\d+\.\d+\/32"/, "the host's public-network address is the user's address");
  });

  test("root on a node, by sudo as the README's user, sees none of the landscape's state", async () => {
    const probe = `sudo -n id -u; for f in ${dir} ${join(dir, "garden.kubeconfig")} /var/lib/gardener-local; do sudo -n ls "$f" >/dev/null 2>&1 && echo "LEAK:$f"; done; echo done`;
    const r = await gardenctlSsh("shoot--local--local-worker-w2", "sh", "-c", `'${probe}'`);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /^0$/m, "sudo works on the node");
    assert.doesNotMatch(r.out, /LEAK:\//, "no path of the landscape exists on the node");
    assert.match(r.out, /^done$/m);
  });

  test("no worker holds admin credentials: each node agent's kubeconfig is system:node:<name> and may not list kube-system's Secrets", async () => {
    const machines = join(dir, "provider", "host", "machines");
    const found = readdirSync(machines).filter((m) => existsSync(join(machines, m, "upper", "var/lib/gardener-node-agent/kubeconfig")));
    assert.equal(found.length, 3, `machines with a node agent kubeconfig (two shoot workers, the seed's): ${found.join(", ")}`);
    const names: string[] = [];
    for (const m of found) {
      const upper = join(machines, m, "upper");
      assert.equal(existsSync(join(upper, "etc/gardener-node-agent/kubeconfig")), false, "no admin kubeconfig on the machine");
      const bootstrap = readFileSync(join(upper, "var/lib/gardener-node-agent/bootstrap-kubeconfig"), "utf8");
      assert.match(bootstrap, /token: [a-z0-9]{6}\.[a-z0-9]{16}/, "the user-data's credential is a bootstrap token");
      assert.doesNotMatch(bootstrap, /client-key-data/);
      // Read from the host: the machine's own file, used as it is.
      const node = Client.fromKubeconfigFile(join(upper, "var/lib/gardener-node-agent/kubeconfig"), { fieldManager: "e2e" });
      try {
        const review = await node.transport.request<{ status: { userInfo: { username: string; groups: string[] } } }>({
          method: "POST", path: "/apis/authentication.k8s.io/v1/selfsubjectreviews", body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
        });
        assert.ok(review.status.userInfo.groups.includes("system:nodes"), JSON.stringify(review.status.userInfo));
        assert.ok(!review.status.userInfo.groups.includes("system:masters"));
        names.push(review.status.userInfo.username);
        await assert.rejects(node.list(Secrets, { namespace: "kube-system" }), (err: unknown) => isForbidden(err));
        await assert.rejects(node.get(Secrets, { namespace: "kube-system", name: "gardener-node-agent-any" }), (err: unknown) => isForbidden(err));
      } finally {
        node.close();
      }
    }
    assert.deepEqual(names.sort(), ["system:node:seed-local-worker-w1", "system:node:shoot--local--local-worker-w1", "system:node:shoot--local--local-worker-w2"]);
  });

  test("kubectl: the member lists the project's shoots but may not list seeds; the admin may", { skip: skipUnlessKubectl(latestKubectl) }, async () => {
    const member = { kubeconfig: join(dir, "garden-member.kubeconfig") };
    const shoots = await kubectl(latestKubectl, ["get", "shoots", "-n", "garden-local"], member);
    assert.equal(shoots.code, 0, shoots.stderr);
    assert.match(shoots.stdout, /^local\s+local\s/m);
    const seeds = await kubectl(latestKubectl, ["get", "seeds"], member);
    assert.notEqual(seeds.code, 0);
    assert.match(seeds.stderr, /Forbidden/);
    const admin = await kubectl(latestKubectl, ["get", "seeds"], { kubeconfig: join(dir, "garden.kubeconfig") });
    assert.equal(admin.code, 0, admin.stderr);
    const nodes = await kubectl(latestKubectl, ["get", "nodes"], { kubeconfig: join(dir, "shoot-local.kubeconfig") });
    assert.equal(nodes.stdout.split("\n").filter((l) => l.includes("worker-w")).length, 2);
  });

  test("a member's garden terminal (the dashboard's API): on a shoot worker, kubectl reaches the garden as the access ServiceAccount and lists the project's shoots; after remove nothing is left and dashboard-webterminal left the project's members", async () => {
    const layout = new Layout(dir);
    const api = new DashboardApi(layout);
    const { session, ms } = await openTerminal(api, "garden");
    const trace = await traceOf(layout, session);
    assert.match(trace.pod.nodeName, /^shoot--local--local-worker-w\d$/, "the member's garden terminal runs on a shoot worker");
    assert.deepEqual(trace.namespaces, [`term-${trace.id}`, "garden-local"]);
    const garden = Client.fromKubeconfigFile(layout.gardenKubeconfig, { fieldManager: "e2e" });
    try {
      const members = async () => (await garden.get(Projects, { name: "local" })).spec?.members ?? [];
      assert.ok((await members()).some((m) => m.kind === "ServiceAccount" && m.name === "dashboard-webterminal"), "the dashboard made dashboard-webterminal a project member");
      const shell = await Attached.open(layout, session);
      try {
        const whoami = await shell.runUntil("kubectl auth whoami", /Username\s+system:serviceaccount:garden-local:term-access-\S+/);
        assert.ok(whoami.includes(`term-access-${trace.id}`), whoami);
        // the access ServiceAccount's project membership reaches the project's RoleBinding a moment after it joins
        await shell.runUntil("kubectl get shoots -n garden-local", /^local\s+local\s/m);
      } finally {
        shell.close();
      }
      await api.call("remove", { name: session.name, namespace: session.namespace });
      await assertTerminalGone(layout, PREFIX, trace);
      const left = async () => {
        const sa = await garden.get(ServiceAccounts, { namespace: "garden-local", name: "dashboard-webterminal" }).then(() => ["ServiceAccount dashboard-webterminal"], (err: unknown) => (isNotFound(err) ? [] : Promise.reject(err)));
        const names = (await members()).filter((m) => m.kind === "ServiceAccount").map((m) => `member ${m.name}`);
        return [...sa, ...names];
      };
      await eventually("dashboard-webterminal and the access ServiceAccount out of the project, the ServiceAccount deleted", async () => ((await left()).length === 0 ? true : undefined), 60_000, 250).catch(async (err: Error) => {
        throw new Error(`${err.message}: ${(await left()).join("; ")}`);
      });
    } finally {
      garden.close();
    }
    process.stderr.write(`member garden terminal: create -> ready in ${Math.round(ms)} ms\n`);
  });

  let browser: LandscapeBrowser | undefined;
  after(() => browser?.close());
  test("a member's web terminal in chromium: log in, see the project and shoot, open a pane on the shoot, prompt, kubectl get nodes shows the workers, resize read by stty size, close; nothing left on any cluster or the worker, the recording holds the output", { skip: chromiumSkip }, async () => {
    const layout = new Layout(dir);
    const login = memberLogin(layout);
    browser = await LandscapeBrowser.launch(login.url, login.caPem);
    const r = await browserTerminalJourney(layout, PREFIX, browser, "member-shoot-terminal", {
      token: login.token, user: MEMBER_USER, button: "open-shoot-terminal", shoot: "local",
      command: "kubectl get nodes", expect: /shoot--local--local-worker-w1[\s\S]*shoot--local--local-worker-w2/, recorded: "shoot--local--local-worker-w1",
      ...(process.env.DASHBOARD_SCREENSHOT ? { screenshot: process.env.DASHBOARD_SCREENSHOT } : {}),
    });
    assert.match(r.trace.pod.nodeName, /^shoot--local--local-worker-w\d$/, "the member's terminal runs on a shoot worker");
    process.stderr.write(`member shoot terminal: click -> prompt in ${Math.round(r.clickToPrompt)} ms\n`);
  });

  test("an operator's control-plane terminal in chromium: on the seed's worker in the shoot's namespace, kubectl reaches the seed as the access ServiceAccount; nothing left after close, the recording holds the output", { skip: chromiumSkip }, async () => {
    const layout = new Layout(dir);
    const op = operatorLogin(layout);
    const login = memberLogin(layout);
    browser ??= await LandscapeBrowser.launch(login.url, login.caPem);
    const r = await browserTerminalJourney(layout, PREFIX, browser, "operator-cp-terminal", {
      ...op, button: "open-cp-terminal", shoot: "local",
      command: "kubectl get serviceaccounts -o name", expect: /^serviceaccount\/term-access-[0-9a-f]/m, recorded: "serviceaccount/term-access-",
    });
    assert.match(r.trace.pod.nodeName, /^seed-local-worker-w\d$/, "the cp terminal runs on the seed's worker");
    assert.deepEqual(r.trace.namespaces, [SHOOT_TECHNICAL_ID, SHOOT_TECHNICAL_ID]);
    process.stderr.write(`operator cp terminal: click -> prompt in ${Math.round(r.clickToPrompt)} ms\n`);
  });

  test("an operator's garden terminal in chromium: on the seed's worker, kubectl reaches the garden and lists every project's shoots; nothing left after close, the recording holds the output", { skip: chromiumSkip }, async () => {
    const layout = new Layout(dir);
    const op = operatorLogin(layout);
    const login = memberLogin(layout);
    browser ??= await LandscapeBrowser.launch(login.url, login.caPem);
    const r = await browserTerminalJourney(layout, PREFIX, browser, "operator-garden-terminal", {
      ...op, button: "open-garden-terminal",
      command: "kubectl get shoots -A", expect: /^garden-local\s+local\s/m, recorded: "garden-local",
    });
    assert.match(r.trace.pod.nodeName, /^seed-local-worker-w\d$/, "the garden terminal runs on the seed's worker");
    assert.deepEqual(r.trace.namespaces, [`term-${r.trace.id}`, "garden"]);
    process.stderr.write(`operator garden terminal: click -> prompt in ${Math.round(r.clickToPrompt)} ms\n`);
  });

  test("the audit log answers who opened a bastion to which shoot, from which CIDR, and when it ended", { skip: auditSkip }, () => checkAuditTrail(dir, userEnv));

  let shell: ShellChecks | undefined;
  const shellChecks = (): ShellChecks => (shell ??= new ShellChecks(dir, userEnv, mkdtempSync(join(dir, "tmp-"))));
  after(() => shell?.close());
  test("gardenctl ssh without a command: an interactive shell on the node through a pty; `exit 7` ends gardenctl with 7", { skip: shellSkip }, () => shellChecks().interactiveShell());
  test("gardenctl ssh without a node: lists the nodes, keeps the bastion until SIGINT, then cleans up", { skip: shellSkip }, () => shellChecks().untilInterrupted());

  test("status lists components and machines; a killed component is restarted", async () => {
    const s = await run(["status", "--state-dir", dir]);
    assert.match(s.stdout, /^landscape: Ready/);
    for (const c of ["garden-apiserver", "seed-apiserver", "shoot-apiserver", "garden-scheduler", "seed-scheduler", "shoot-scheduler", "gardener-controller-manager", "gardenlet", "provider-local"]) assert.match(s.stdout, new RegExp(`^${c}\\s+running`, "m"));
    assert.match(s.stdout, /worker-w1\s+Ready\s+10\.250\./);
    assert.match(s.stdout, /worker-w2\s+Ready\s+10\.250\./);
    const during = snapshot(dir);
    for (const k of ["netns", "links", "mounts", "processes"] as const) assert.ok(during[k]!.length > 0, `the snapshot sees the landscape's ${k}`);

    const pid = Number(readFileSync(join(dir, "run", "gardenlet.pid"), "utf8"));
    process.kill(pid, "SIGKILL");
    await eventually("gardenlet restarted", async () => {
      const text = (await run(["status", "--state-dir", dir])).stdout;
      const m = /^gardenlet\s+running\s+(\d+)\s+1$/m.exec(text);
      return m && Number(m[1]) !== pid ? true : undefined;
    }, 15_000, 200);
  });

  test("up after a SIGKILL of the supervisor works", async () => {
    process.kill(Number(readFileSync(join(dir, "run", "supervisor.pid"), "utf8")), "SIGKILL");
    assert.match((await run(["status", "--state-dir", dir])).stdout, /not running/);
    const r = await up();
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.equal(await nodesWithHostKeys(), 2);
  });

  test("down, given only the state directory (it records the prefix), leaves no namespace, link, mount, process or nft table behind", async () => {
    const r = await run(["down", "--state-dir", dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /gardenctl: removed .*gardenctl-v2\.yaml/);
    // (~/.garden itself stays: gardenctl keeps its node known_hosts cache there.)
    assert.equal(existsSync(join(home, ".garden", "gardenctl-v2.yaml")), false, "gardenctl's default config written by up is gone");
    assert.deepEqual(snapshot(dir), before0);
    assert.match((await run(["status", "--state-dir", dir])).stdout, /not running/);
  });
});
