// Keeps one recorded host process running: started through the Host, polled, and started again a fixed
// delay after it exited (the VPN supervisors restart an exited `openvpn` after 1 s; docs/reversed-vpn.md).
import type { Host, ProcessSpec } from "../host/index.ts";
import { type Clock, type Timer, realClock } from "../utils/clock.ts";

export const RESTART_DELAY_MS = 1000;
export const POLL_MS = 200;

export interface SupervisorOptions {
  restartDelayMs?: number;
  pollMs?: number;
  clock?: Clock;
  /** Called after each restart (not the first start). */
  onRestart?: () => void;
  /** Called when a start failed (it is tried again after the restart delay). */
  onError?: (err: unknown) => void;
}

export class ProcessSupervisor {
  private timer: Timer | undefined;
  private stopped = true;
  private busy: Promise<void> = Promise.resolve();
  private started = false;
  private abort = new AbortController();
  restarts = 0;
  pid: number | undefined;

  constructor(
    private readonly host: Host,
    readonly spec: ProcessSpec,
    private readonly opts: SupervisorOptions = {},
  ) {}

  private get clock(): Clock {
    return this.opts.clock ?? realClock;
  }

  /** Starts the process (or finds the recorded one running) and keeps it running until stop(). */
  async start(): Promise<void> {
    this.stopped = false;
    this.abort = new AbortController();
    this.busy = this.ensure();
    await this.busy;
  }

  private schedule(ms: number, then: () => Promise<void> = () => this.check()): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimer(ms, () => {
      this.busy = then();
    });
  }

  private async ensure(): Promise<void> {
    try {
      const st = await this.host.startProcess(this.spec);
      if (this.started && st.process?.pid !== this.pid) {
        this.restarts++;
        this.opts.onRestart?.();
      }
      this.started = true;
      this.pid = st.process?.pid;
      this.schedule(this.opts.pollMs ?? POLL_MS);
    } catch (err) {
      this.opts.onError?.(err);
      this.schedule(this.opts.restartDelayMs ?? RESTART_DELAY_MS, () => this.ensure());
    }
  }

  private async check(): Promise<void> {
    if (this.stopped) return;
    const st = await this.host.processStatus(this.spec.name).catch(() => undefined);
    if (st?.running) return this.schedule(this.opts.pollMs ?? POLL_MS);
    this.pid = undefined;
    const slept = await this.clock.sleep(this.opts.restartDelayMs ?? RESTART_DELAY_MS, this.abort.signal).then(() => true, () => false);
    if (slept && !this.stopped) await this.ensure();
  }

  /** True while the supervised process runs. */
  async running(): Promise<boolean> {
    return (await this.host.processStatus(this.spec.name))?.running ?? false;
  }

  /**
   * Stops the process and starts it again at once (it reads new files, e.g. renewed credentials); supervision
   * continues. Counts as a restart. Nothing happens after stop().
   */
  async restart(): Promise<void> {
    if (this.stopped) return;
    this.timer?.cancel();
    this.abort.abort();
    await this.busy;
    if (this.stopped) return;
    this.abort = new AbortController();
    await this.host.stopProcess(this.spec.name);
    this.busy = this.ensure();
    await this.busy;
  }

  /** Stops supervising, then stops the process and forgets its record. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.abort.abort();
    await this.busy;
    await this.host.stopProcess(this.spec.name);
  }
}
