// Run-wide state for `gardenctl ssh` (docs/gardenctl-ssh.md#keepalive-signals-and-cleanup): cancellation by signals, the ssh child that owns
// terminal Ctrl-C, the end-of-session trigger (bastion lost, keepalive rejected), and cleanup
// that runs exactly once (the private directory also synchronously at process exit).
import type { Client } from "../../../client/index.ts";
import { deleteBastion } from "./bastion.ts";
import { CLIError, SignalError } from "./errors.ts";
import { removePrivateDir } from "./keys.ts";
import type { Logger } from "./log.ts";
import type { RunningSSH } from "./sshcmd.ts";

const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

export class Session {
  readonly cancel = new AbortController();
  /** Rejects with the CLIError that ends the session. */
  readonly ended: Promise<never>;
  dir?: string;
  bastion?: { client: Client; namespace: string; name: string };
  keepBastion = false;
  ssh?: RunningSSH;
  caught?: NodeJS.Signals;
  nodeKeyFiles: string[] = [];
  publicKeyFile?: string;
  privateKeyFile?: string;
  private readonly stops: (() => void)[] = [];
  private endSession!: (err: CLIError) => void;
  private cleaned = false;
  private readonly onSignal = (sig: NodeJS.Signals): void => this.signal(sig);
  private readonly onExit = (): void => this.removeDirSync();

  constructor(private readonly log: Logger) {
    this.ended = new Promise<never>((_, reject) => (this.endSession = reject));
    this.ended.catch(() => undefined);
    for (const s of SIGNALS) process.on(s, this.onSignal);
    process.on("exit", this.onExit);
  }

  /** Registers work to stop before cleanup (keepalive, watches). */
  onStop(fn: () => void): void {
    this.stops.push(fn);
  }

  end(message: string): void {
    this.endSession(new CLIError(message));
  }

  /** Rejects once the run is cancelled (use with Promise.race around steps without a signal). */
  cancelled(): Promise<never> {
    return new Promise<never>((_, reject) => {
      const fire = (): void => reject(this.cancel.signal.reason);
      if (this.cancel.signal.aborted) fire();
      else this.cancel.signal.addEventListener("abort", fire, { once: true });
    });
  }

  async step<T>(p: Promise<T>): Promise<T> {
    const c = this.cancelled();
    c.catch(() => undefined);
    return Promise.race([p, c]);
  }

  private signal(sig: NodeJS.Signals): void {
    if (this.ssh) {
      // Terminal Ctrl-C belongs to the child; SIGTERM/SIGHUP are passed on, cleanup follows its exit.
      if (sig !== "SIGINT") {
        this.caught ??= sig;
        this.ssh.child.kill(sig);
      }
      return;
    }
    if (this.caught) return;
    this.caught = sig;
    this.log.info("Caught signal, cancelling...");
    this.cancel.abort(new SignalError(sig));
  }

  async cleanup(): Promise<void> {
    if (this.cleaned) return;
    this.cleaned = true;
    for (const s of this.stops.splice(0)) s();
    if (this.keepBastion && this.bastion) {
      const b = this.bastion;
      this.log.info("Keeping bastion", { bastion: `${b.namespace}/${b.name}` });
      this.log.info("The SSH keypair for the bastion remain on disk", { publicKeyPath: this.publicKeyFile, privateKeyPath: this.privateKeyFile });
      this.log.info("The private SSH keys for shoot nodes remain on disk", { paths: this.nodeKeyFiles });
    } else {
      if (this.bastion || this.dir) this.log.info("Cleaning up");
      if (this.bastion) await deleteBastion(this.bastion.client, this.bastion.namespace, this.bastion.name, this.log);
      this.removeDirSync();
    }
    this.detach();
  }

  detach(): void {
    for (const s of SIGNALS) process.off(s, this.onSignal);
    process.off("exit", this.onExit);
  }

  private removeDirSync(): void {
    if (!this.dir || (this.keepBastion && this.bastion)) return;
    const err = removePrivateDir(this.dir);
    if (err) this.log.info("Failed to delete SSH private key file", { path: this.dir, err });
    this.dir = undefined;
  }
}
