// Messages to another thread, batched per event-loop turn: everything sent during one turn goes
// as one postMessage (an array), so the receiving thread is woken and the message machinery runs
// once per turn instead of once per message. Transferred buffers go with their batch.
import type { MessagePort } from "node:worker_threads";

export class BatchedPort<T> {
  private queue: T[] = [];
  private transfer: ArrayBuffer[] = [];
  private scheduled = false;
  private closed = false;

  constructor(private readonly port: MessagePort) {}

  send(message: T, transfer?: ArrayBuffer): void {
    if (this.closed) return;
    this.queue.push(message);
    if (transfer) this.transfer.push(transfer);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Sends what is queued now. */
  flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0 || this.closed) return;
    const batch = this.queue;
    const transfer = this.transfer;
    this.queue = [];
    this.transfer = [];
    try {
      this.port.postMessage(batch, transfer);
    } catch {
      // A buffer that may not be transferred (Node's pooled ones): copy the batch instead.
      this.port.postMessage(batch);
    }
  }

  /** Sends what is queued, then drops everything later. */
  close(): void {
    this.flush();
    this.closed = true;
  }
}

/** Calls `handle` with each message of every batch arriving on `port`. */
export function onBatches<T>(port: MessagePort, handle: (message: T) => void): (batch: T[]) => void {
  const listener = (batch: T[]) => {
    for (const m of batch) handle(m);
  };
  port.on("message", listener);
  return listener;
}
