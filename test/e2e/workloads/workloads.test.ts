// Workloads on the real local landscape (root, real kubectl 1.33): `kubectl run` on the shoot reaches
// Succeeded on a worker, `get pods -o wide` shows node and pod IP, the pod reaches its API server through
// the node's masquerade; deleting a pod gracefully leaves nothing of it on the machine; a stopped node
// agent makes its Node NotReady and new pods go to the other node; the shoot API server reaches the kubelets
// only through the reversed VPN (no host route; without the tunnel exec fails with the egress proxy's error
// and works again within seconds of its return; SIGKILLs of the VPN's processes and the seed proxy converge), and no pod reaches a kubelet; the seed has a schedulable
// worker of its own; a Bastion beyond the landscape's /29 public network fails with its reason (./address-space.ts);
// `down` leaves nothing on the host.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { join } from "node:path";
import { contains, parseCidr } from "../../../src/host/cidr.ts";
import { SEED_NODE_NETWORK, SHOOT_TECHNICAL_ID } from "../../../src/landscape/layout.ts";
import { VPN_SERVER_ADDRESS } from "../../../src/landscape/vpn.ts";
import { workerMachineName } from "../../../src/provider-local/machines/workers.ts";
import { pollUntil } from "../../../src/utils/poll.ts";
import { eventually } from "../../support/http.ts";
import { kubectlAvailable, kubectlFor, kubectlPath, latestKubectl, type Kubectl } from "../../support/kubectl.ts";
import { parseTable } from "../../support/table.ts";
import { type Landscape, hostSnapshot, skipUnlessRoot, startLandscape } from "../support/landscape.ts";
import { PUBLIC_CIDR, checkBeyondAddressSpace } from "./address-space.ts";
import { vpnChaos } from "./chaos.ts";
import { checkInPodKubectl } from "./in-pod-kubectl.ts";
import { checkPodAndServiceProxy } from "./podproxy.ts";
import { firstExecAndLogs, followLogs, killingEvent, startStreamPods, terminals } from "./streams.ts";
import { hostOf, inMachine, kubectlInPty, podInPhase, podTraces, recordedPid, shootMachine, shootNode, signalNodeAgent, stopShootClient, tunnelCondition, type PodJson, type TunnelCondition } from "./support.ts";

const PREFIX = "glk-";
const PORTS = { garden: 31443, seed: 31444, shoot: 31445 };
const progress = (line: string): void => void process.stderr.write(`${new Date().toISOString()} ${line}\n`);
const skip = skipUnlessRoot || (!kubectlAvailable(latestKubectl) && `kubectl ${latestKubectl} is not installed`);

describe("workloads on the local landscape", { skip, timeout: 900_000 }, () => {
  let l: Landscape;
  let k: Kubectl;
  let stopped: string | undefined;

  before(async () => {
    // A short grace period, so a silent node is NotReady within seconds; the chaos test kills the seed proxy on
    // purpose, so its restart backoff stays short; a /29 public network, room for two bastions only.
    l = await startLandscape({ prefix: PREFIX, ports: PORTS, nodeMonitorGracePeriod: "8s", maxRestartBackoff: "1s", publicCidr: PUBLIC_CIDR, out: progress });
    k = kubectlFor(l.layout.shootKubeconfig);
  });
  after(async () => {
    if (stopped) await signalNodeAgent(l, stopped, "CONT").catch(() => undefined);
    if (!l) return;
    const vpnNamespaces = hostSnapshot(l.dir, PREFIX).netns.filter((n) => /vpn/.test(n));
    await l.stop(progress);
    assert.ok(vpnNamespaces.length >= 2, `the VPN namespaces existed before down: ${vpnNamespaces.join(", ")}`);
    // down leaves nothing of the landscape: namespaces (the VPN's with their nft tables), links, tables, mounts, processes.
    assert.deepEqual(hostSnapshot(l.dir, PREFIX), { netns: [], links: [], mounts: [], tables: [], processes: [] });
  });

  test("right after up, exec and logs work at once; logs -f sees a line written after it started and ends with the container", async () => {
    await startStreamPods(k);
    await firstExecAndLogs(k);
    await followLogs(k);
  });

  test("exec -it and run -it exit with the shell's code (kubectl 1.30, 1.33), attach -it to a tty container, Killing on delete", async () => {
    await terminals(k);
    await killingEvent(k);
    await k.ok(["delete", "pod", "follow", "attach-1-30", "attach-1-33", "--ignore-not-found"]);
  });

  test("kubectl run reaches Succeeded on a worker; get pods -o wide shows its node and pod IP; the pod reached its API server", async () => {
    const script = `echo hi; wget -q -T 5 -O- --no-check-certificate https://kubernetes.default.svc:${PORTS.shoot}/healthz && echo; echo done`;
    assert.match(await k.ok(["run", "t", "--image=busybox", "--restart=Never", "--", "sh", "-c", script]), /pod\/t created/);
    const pod = await podInPhase(k, "t", ["Succeeded", "Failed"]);
    assert.equal(pod.status.phase, "Succeeded", JSON.stringify(pod.status));
    assert.match(pod.spec.nodeName ?? "", /^shoot--local--local-worker-w[12]$/);
    assert.match(pod.status.podIP ?? "", /^100\.96\.[01]\.\d+$/);
    const table = parseTable(await k.ok(["get", "pods", "-o", "wide"]));
    const row = table.records.find((r) => r.NAME === "t")!;
    assert.deepEqual([row.STATUS, row.IP, row.NODE], ["Completed", pod.status.podIP, pod.spec.nodeName]);
    // The logs come through the API server from the node's kubelet endpoint (10250).
    assert.deepEqual((await k.ok(["logs", "t"])).split("\n").filter(Boolean), ["hi", "ok", "done"]);
    await k.ok(["delete", "pod", "t"]);
  });

  test("kubectl exec and logs --tail reach the container through the node's kubelet endpoint; the exit code comes back", async () => {
    await k.ok(["run", "x", "--image=busybox", "--", "sh", "-c", "echo one; echo two; while :; do sleep 1; done"]);
    await podInPhase(k, "x", ["Running"]);
    const r = await k.run(["exec", "x", "--", "sh", "-c", "echo from-exec; hostname; exit 3"]);
    assert.equal(r.code, 3, r.stderr);
    assert.deepEqual(r.stdout.split("\n").filter(Boolean), ["from-exec", "x"]);
    assert.equal((await k.ok(["exec", "-i", "x", "--", "cat"], { input: "through stdin\n" })).trim(), "through stdin");
    await eventually("both lines logged", async () => ((await k.ok(["logs", "x"])).includes("two") ? true : undefined), 10_000, 250);
    assert.equal((await k.ok(["logs", "x", "--tail=1"])).trim(), "two");
    await k.ok(["delete", "pod", "x", "--grace-period=1"]);
  });

  test("run -it --rm through a pty, exec -it with kubectl 1.30, logs --previous, describe events, Pod Security, host PID and a container's private view", async () => {
    const agent = "grep -l 'gardener-node-agen[t].js' /proc/[0-9]*/cmdline 2>/dev/null | wc -l";
    const manifest = (name: string, script: string, extra: object, restartPolicy = "Never", securityContext = {}): object => ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { restartPolicy, ...extra, containers: [{ name: "c", image: "busybox", command: ["sh", "-c", script], securityContext }] } });
    const items = [
      manifest("hostpid", `echo agents=$(${agent})`, { hostPID: true }, "Never", { privileged: true }),
      manifest("plain", `echo agents=$(${agent}); echo creds=$(ls -A /etc/gardener-node-agent /var/lib/gardener-node-agent /etc/ssh 2>/dev/null | grep -v ':$' | grep -c .); echo volumes=$(cut -d' ' -f2 /proc/mounts | grep -c kubelet/pods); sleep 3600`, {}),
      manifest("crash", "echo run-$(date +%s%N); exit 1", {}, "Always"),
    ];
    await k.ok(["apply", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items }) });
    await k.ok(["create", "namespace", "baseline"]);
    await k.ok(["label", "namespace", "baseline", "pod-security.kubernetes.io/enforce=baseline"]);
    const refused = await k.run(["run", "priv", "-n", "baseline", "--image=busybox", "--privileged", "--", "true"]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged \(container "priv" must not set securityContext\.privileged=true\)/);

    const shell = await kubectlInPty(kubectlPath(latestKubectl), k.kubeconfig, "run -it --rm t2 --image=busybox --restart=Never -- sh", [
      { until: /pressing enter/, send: "\r" }, { until: /# /, send: "echo $((6*7))x\r" }, { until: /42x/, send: "exit\r" },
    ]);
    assert.equal(shell.code, 0, shell.out);
    assert.match(shell.out, /pod "t2" deleted/);
    assert.match((await k.run(["get", "pod", "t2"])).stderr, /NotFound/);

    assert.equal((await podInPhase(k, "hostpid", ["Succeeded", "Failed"])).status.phase, "Succeeded");
    assert.ok(Number(/agents=(\d+)/.exec(await k.ok(["logs", "hostpid"]))?.[1]) > 0, "a privileged hostPID pod sees the node agent");
    await podInPhase(k, "plain", ["Running"]);
    await eventually("plain logged", async () => ((await k.ok(["logs", "plain"])).includes("volumes=") ? true : undefined), 10_000, 250);
    assert.deepEqual((await k.ok(["logs", "plain"])).trim().split("\n"), ["agents=0", "creds=0", "volumes=0"], "an unprivileged pod sees neither the machine's processes, its credentials nor other pods' mounts");
    const tty = await kubectlInPty(kubectlPath("1.30"), k.kubeconfig, "exec -it plain -- sh", [{ until: /# /, send: "echo $((7*6))y; exit\r" }]);
    assert.match(tty.out, /42y/);

    const restarted = await eventually("crash restarted", async () => {
      const pod = await k.json<{ status: { containerStatuses?: { restartCount: number }[] } }>(["get", "pod", "crash"]);
      return (pod.status.containerStatuses?.[0]?.restartCount ?? 0) >= 1 ? pod : undefined;
    }, 60_000, 500);
    assert.ok(restarted);
    const previous = (await k.ok(["logs", "crash", "--previous"])).trim();
    assert.match(previous, /^run-\d+$/);
    await eventually("the current attempt logged", async () => { const cur = (await k.ok(["logs", "crash"])).trim(); return /^run-\d+$/.test(cur) && cur !== previous ? true : undefined; }, 30_000, 500);
    const events = parseTable((await k.ok(["describe", "pod", "crash"])).split(/^Events:\n/m)[1]!.split("\n").map((l) => l.replace(/^ {2}/, "")).join("\n"));
    assert.deepEqual(events.header, ["Type", "Reason", "Age", "From", "Message"]);
    const reasons = events.records.map((r) => r.Reason);
    for (const r of ["Scheduled", "Created", "Started"]) assert.ok(reasons.includes(r), `${r} in ${reasons.join(",")}`);
    assert.match(events.records.find((r) => r.Reason === "Scheduled")!.Message!, /^Successfully assigned default\/crash to shoot--local--local-worker-w[12]$/);
    await k.ok(["delete", "pod", "hostpid", "plain", "crash", "--grace-period=1", "--wait=true"], { timeoutMs: 60_000 });
    await k.ok(["delete", "namespace", "baseline", "--wait=false"]);
  });

  test("kubectl inside a pod, as its ServiceAccount with its bound projected token, is allowed what RBAC grants and refused the rest", async () => {
    await checkInPodKubectl(k);
  });

  test("kubectl delete pod is graceful (the container's TERM trap runs) and leaves no process, mount, namespace or record on the machine", async () => {
    await k.ok(["run", "g", "--image=busybox", "--restart=Never", "--", "sh", "-c", "trap 'echo bye; exit 0' TERM; echo up; while :; do sleep 0.2; done"]);
    const pod = await podInPhase(k, "g", ["Running"]);
    const machine = shootMachine(pod.spec.nodeName!.slice(-2));
    assert.ok((await podTraces(l, machine, pod.metadata.uid)).length > 0, "the running pod is seen on its machine");
    const started = Date.now();
    await k.ok(["delete", "pod", "g", "--wait=true"], { timeoutMs: 60_000 });
    assert.ok(Date.now() - started < 20_000, "the pod ended on TERM, well within its 30 s grace period");
    await eventually("nothing of the pod on its machine", async () => ((await podTraces(l, machine, pod.metadata.uid)).length === 0 ? true : undefined), 20_000, 500);
  });

  test("the shoot's nodes are reached only through the reversed VPN: no host route, no way in through the router, the egress proxy carried exec and logs; a pod reaches its API server but no kubelet", async () => {
    const host = hostOf(l);
    const nodeIP = (w: string): Promise<string> => k.ok(["get", "node", shootNode(w), "-o", "jsonpath={.status.addresses[?(@.type==\"InternalIP\")].address}"]);
    const ip1 = await nodeIP("w1");
    // Only the default route could carry a packet to the node from the host: none is sent (it would leave the machine).
    const routes = spawnSync("ip", ["-4", "-o", "route", "show"], { encoding: "utf8" }).stdout.split("\n").map((r) => r.split(" ")[0]!).filter((d) => d && d !== "default");
    assert.deepEqual(routes.filter((d) => contains(parseCidr(d.includes("/") ? d : `${d}/32`), parseCidr(`${ip1}/32`))), [], "no host route covers a shoot node");
    const router = (await host.execInNetns(host.names.netns("nodes", SHOOT_TECHNICAL_ID), "nft", ["list", "ruleset"])).stdout;
    assert.doesNotMatch(router, /dport 10250/, "the shoot's router lets nothing of the host in to the kubelets");
    const metrics = await (await fetch(`http://${VPN_SERVER_ADDRESS}:15000/metrics`)).text();
    assert.match(metrics, /^vpn_egress_requests_total\{result="established"\} [1-9]\d*$/m, "exec and logs of the earlier tests went through the egress proxy");
    const probe = `nc -z -w 2 ${ip1} 10250 && echo kubelet-open || echo kubelet-closed; nc -z -w 2 ${l.hostAddress} ${PORTS.shoot} && echo api-open || echo api-closed; nc -z -w 2 ${VPN_SERVER_ADDRESS} 9443 && echo egress-open || echo egress-closed`;
    await k.ok(["run", "probe", "--image=busybox", "--restart=Never", "--overrides", JSON.stringify({ spec: { nodeName: shootNode("w2") } }), "--", "sh", "-c", probe]);
    const pod = await podInPhase(k, "probe", ["Succeeded", "Failed"]);
    const log = await inMachine(l, shootMachine("w2"), `cat /var/lib/gardener-node-agent/kubelet/pods/${pod.metadata.uid}/logs/probe/0.log`);
    assert.match(log, /kubelet-closed/, "a pod (on the other node) cannot reach the kubelet port");
    assert.match(log, /api-open/, "but reaches its API server");
    assert.match(log, /egress-closed/, "and not the control plane's VPN namespace on the seed network");
    await k.ok(["delete", "pod", "probe"]);
  });

  test("pods/proxy and services/proxy reach HTTP servers in pods on both workers through the tunnel (the router routes each worker's pod range)", async () => {
    await checkPodAndServiceProxy(k);
  });

  test("HA: killing one tunnel's OpenVPN server during a running exec stream, the next exec works within 2 s through the other", async () => {
    await k.ok(["run", "v", "--image=busybox", "--", "sleep", "3600"]);
    await podInPhase(k, "v", ["Running"]);
    const stream = k.stream(["exec", "v", "--", "sh", "-c", "while :; do echo tick; sleep 0.2; done"]);
    try {
      await stream.waitFor(/tick/, 20_000);
      const metrics = await (await fetch(`http://${VPN_SERVER_ADDRESS}:15000/metrics`)).text();
      assert.match(metrics, /^vpn_egress_streams\{server="vpn-seed-server-0"\} [1-9]/m, "the stream goes through tunnel 0");
      process.kill(await recordedPid(l, `vpn-seed-server.${SHOOT_TECHNICAL_ID}.openvpn-0`), "SIGKILL");
      const killed = Date.now();
      await eventually("exec through tunnel 1", async () => ((await k.run(["exec", "v", "--", "true"], { timeoutMs: 5_000 })).code === 0 ? true : undefined), 10_000, 100);
      const ms = Date.now() - killed;
      progress(`exec worked again ${ms} ms after vpn-seed-server-0's openvpn was killed`);
      assert.ok(ms < 2_000, `the next exec worked only after ${ms} ms (goal: 2 s)`);
      assert.notEqual(await stream.exit(60_000), 0, "the stream through the killed tunnel ended with an error");
    } finally {
      await stream.stop();
    }
  });

  test("chaos: SIGKILL of vpn-seed-server, vpn-shoot-client and the seed CONNECT proxy at random points of an exec stream; each time exec works again within seconds", () =>
    vpnChaos(l, k, "v", progress));

  test("without the vpn-shoot-client's tunnels exec fails with the egress proxy's error and the Shoot's tunnel condition turns False; both recover within seconds of their return", async () => {
    assert.equal((await k.ok(["exec", "v", "--", "echo", "through"])).trim(), "through");
    // The vpn-shoot Pod the gardenlet's tunnel check targets: Running and Ready on the client's node-network address.
    // The chaos test before killed its processes: under load its status may still say so for a while, so wait for Ready.
    type VpnShootPod = { spec: { nodeName?: string }; status: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] } };
    const isReady = (p: VpnShootPod) => p.status.conditions?.find((c) => c.type === "Ready")?.status === "True";
    const pod = await pollUntil("the vpn-shoot Pod Ready after the chaos test", async () => {
      const p = await k.json<VpnShootPod>(["get", "pod", "-n", "kube-system", "vpn-shoot"]);
      return isReady(p) ? p : undefined;
    }, { timeoutMs: 60_000, intervalMs: 500 });
    assert.deepEqual([pod.spec.nodeName, pod.status.phase], ["vpn-shoot-client", "Running"]);
    assert.match(pod.status.podIP ?? "", /^10\.250\.\d+\.\d+$/);
    await tunnelCondition(l, (c) => c.status === "True", "True after up");
    const { pids, clientNs } = await stopShootClient(l);
    let failed: { code: number | null; stderr: string };
    let broken: TunnelCondition;
    try {
      failed = await eventually("exec refused without a tunnel", async () => {
        const r = await k.run(["exec", "v", "--", "true"], { timeoutMs: 60_000 });
        return r.code !== 0 ? r : undefined;
      }, 30_000, 250);
      const stopped = Date.now();
      // Within the landscape gardenlet's check period (10 s) and the probe's 5 s timeout.
      broken = await tunnelCondition(l, (c) => c.status === "False", "False after the client stopped");
      progress(`the Shoot's tunnel condition was False ${Date.now() - stopped} ms after exec failed`);
    } finally {
      for (const pid of pids) process.kill(pid, "SIGCONT");
    }
    assert.match(failed.stderr, /proxy error from 10\.1\.255\.2:9443 while dialing [\d.]+:10250, code 503/);
    assert.equal(broken.reason, "TunnelConnectionBroken");
    assert.match(broken.message, /^Tunnel connection has not been established \(could not forward to vpn-shoot pod \(timeout after 5 seconds\): error trying to reach service: proxy error from 10\.1\.255\.2:9443 while dialing 10\.250\.\d+\.\d+:8080, code 503/);
    const back = Date.now();
    await eventually("exec through the new tunnel", async () => ((await k.run(["exec", "v", "--", "true"])).code === 0 ? true : undefined), 30_000, 250);
    const ms = Date.now() - back;
    progress(`exec works again ${ms} ms after the vpn-shoot-client's openvpn continued (${clientNs})`);
    assert.ok(ms < 15_000, `exec took ${ms} ms to work again`);
    await tunnelCondition(l, (c) => c.status === "True", "True again after the client continued");
    progress(`the Shoot's tunnel condition was True again ${Date.now() - back} ms after the client continued`);
    await k.ok(["delete", "pod", "v", "--grace-period=1"]);
  });

  test("a stopped node agent makes its Node NotReady; new pods go to the other node; it comes back Ready", async () => {
    stopped = shootMachine("w2");
    assert.ok((await signalNodeAgent(l, stopped, "STOP")).length > 0, "the node agent was found");
    await eventually("w2 not Ready", async () => {
      const ready = await k.ok(["get", "node", shootNode("w2"), "-o", "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}"]);
      return ready !== "True" ? ready : undefined;
    }, 60_000, 500);
    const table = parseTable(await k.ok(["get", "nodes"]));
    assert.equal(table.records.find((r) => r.NAME === shootNode("w2"))?.STATUS, "NotReady");
    for (const i of [1, 2, 3]) await k.ok(["run", `after-${i}`, "--image=busybox", "--restart=Never", "--", "true"]);
    for (const i of [1, 2, 3]) {
      const pod = await podInPhase(k, `after-${i}`, ["Succeeded", "Failed"]);
      assert.equal(pod.spec.nodeName, shootNode("w1"), `after-${i}`);
    }
    await signalNodeAgent(l, stopped, "CONT");
    stopped = undefined;
    await eventually("w2 Ready again", async () => ((await k.ok(["get", "node", shootNode("w2"), "-o", "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}"])) === "True" ? true : undefined), 60_000, 500);
    for (const i of [1, 2, 3]) await k.ok(["delete", "pod", `after-${i}`]);
  });

  test("the seed has a worker of its own, a Ready, schedulable Node that runs pods", async () => {
    const seed = kubectlFor(join(l.layout.apiServerDir("seed"), "admin.kubeconfig"));
    const node = `${SEED_NODE_NETWORK}-worker-w1`;
    const n = await seed.json<{ spec: { unschedulable?: boolean; podCIDR?: string } }>(["get", "node", node]);
    assert.notEqual(n.spec.unschedulable, true);
    assert.equal(n.spec.podCIDR, "10.1.0.0/24");
    await seed.ok(["run", "s", "--image=busybox", "--restart=Never", "--", "sh", "-c", "echo seed"]);
    const pod: PodJson = await podInPhase(seed, "s", ["Succeeded", "Failed"]);
    assert.equal(pod.status.phase, "Succeeded");
    assert.equal(pod.spec.nodeName, node);
    assert.match(await inMachine(l, workerMachineName(SEED_NODE_NETWORK, "w1"), `cat /var/lib/gardener-node-agent/kubelet/pods/${pod.metadata.uid}/logs/s/0.log`), /stdout F seed$/m);
  });

  test("the third bastion of a /29 reports why on its status; gardenctl ssh prints it at once", () => checkBeyondAddressSpace(l, progress));
});
