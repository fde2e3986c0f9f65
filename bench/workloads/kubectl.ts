// kubectl as the workloads bench runs it: to completion (a non-zero exit fails), and `kubectl run -it`
// under a pseudo-terminal (script(1)) timed to its shell's prompt.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { kubectl, kubectlPath } from "../../test/support/kubectl.ts";

export async function kubectlRun(kubeconfig: string, args: string[]): Promise<void> {
  const r = await kubectl("1.33", args, { kubeconfig });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")}: exit ${r.code}: ${r.stderr}`);
}

const PROMPT = "bench-prompt>";

/**
 * ms from starting `kubectl run -it --rm <name> --image=busybox -- sh` to its shell's prompt. As a user
 * does, Enter is pressed when kubectl says "If you don't see a command prompt"; then `exit` ends it.
 */
export function ptyPrompt(kubeconfig: string, name: string, timeoutMs = 30_000): Promise<number> {
  const home = join(dirname(kubeconfig), "kubectl-home-1.33");
  const cmd = `stty cols 100 rows 40; exec ${kubectlPath("1.33")} --kubeconfig ${kubeconfig} run -it --rm ${name} --image=busybox --restart=Never '--env=PS1=${PROMPT} ' -- sh`;
  const child = spawn("script", ["-qec", cmd, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, KUBECACHEDIR: join(home, "cache"), TERM: "xterm" } });
  const t0 = performance.now();
  let out = "";
  let ms: number | undefined;
  let entered = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.on("data", (d: Buffer) => {
      out += String(d);
      if (!entered && out.includes("If you don't see a command prompt")) {
        entered = true;
        child.stdin.write("\r");
      }
      if (ms === undefined && out.includes(PROMPT)) {
        ms = performance.now() - t0;
        child.stdin.write("exit\r");
      }
    });
    child.stderr.on("data", (d: Buffer) => (out += String(d)));
    child.once("close", () => {
      clearTimeout(timer);
      if (ms === undefined) reject(new Error(`kubectl run -it: no prompt: ${out.slice(-2000)}`));
      else resolve(ms);
    });
  });
}
