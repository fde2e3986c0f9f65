// Availability probe (docs/gardenctl-ssh.md#availability-probe), reduced: a TCP connection to the bastion's SSH port that must
// answer with an SSH identification line ("SSH-2.0-..."); 10 s per attempt, retried every 5 s
// within the remaining --wait-timeout. Authentication and host-key checks happen in the real ssh
// session that follows (with the pinned known_hosts file), not in the probe.
import { connect } from "node:net";
import { type Clock, realClock } from "../../../utils/clock.ts";
import { TimeoutError } from "./errors.ts";
import type { Logger } from "./log.ts";

export function probeOnce(host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host, port });
    let buf = "";
    const done = (err?: Error): void => {
      clearTimeout(t);
      sock.destroy();
      if (err) reject(err);
      else resolve();
    };
    const t = setTimeout(() => done(new Error(`dial tcp ${host}:${port}: i/o timeout`)), timeoutMs);
    sock.on("error", (err) => done(err));
    sock.on("data", (d: Buffer) => {
      buf += d.toString("latin1");
      if (buf.includes("\n")) {
        if (buf.startsWith("SSH-")) done();
        else done(new Error(`ssh: handshake failed: unexpected banner ${JSON.stringify(buf.trim().slice(0, 40))}`));
      }
    });
    sock.on("end", () => done(new Error("ssh: handshake failed: EOF")));
  });
}

export async function probeBastion(host: string, port: number, deadline: number, log: Logger, signal: AbortSignal, clock: Clock = realClock, attemptMs = 10_000, retryMs = 5_000): Promise<void> {
  for (;;) {
    let err: Error;
    try {
      return await probeOnce(host, port, Math.max(1, Math.min(attemptMs, deadline - clock.nowMs())));
    } catch (e) {
      err = e as Error;
    }
    if (signal.aborted) throw signal.reason;
    if (clock.nowMs() + retryMs >= deadline) throw new TimeoutError(`timed out waiting for the bastion to become ready: ${err.message}`);
    log.info("Still waiting for bastion to accept SSH connection", { err: err.message });
    await clock.sleep(retryMs, signal);
  }
}
