// The messages that carry a client connection's bytes between the thread that accepted it (the
// primary) and the worker thread that serves it (docs/adr/0013-api-server-workers.md). One
// MessagePort per worker carries every connection of that worker, each message an array whose
// first element says what it is.

/**
 * Primary -> worker: a new connection, after its TLS handshake, with the addresses and the verified
 * client certificate's subject (undefined when there is none or it did not verify against the
 * client CAs) that the worker reports as the socket's own.
 */
export type OpenMessage = ["open", id: number, peer: SocketAddress, local: SocketAddress, client: VerifiedClient | undefined];

export interface VerifiedClient {
  subject: Record<string, string | string[]>;
  /** Its extended key usage OIDs, when it names any (the authenticator checks them for clientAuth). */
  extKeyUsage?: string[];
}
/** Either way: bytes of the connection (the ArrayBuffer is transferred). */
export type DataMessage = ["data", id: number, bytes: Uint8Array];
/** Either way: the sender will send no more bytes (a half close). */
export type EndMessage = ["end", id: number];
/** Either way: the connection is gone (reset, error, or destroyed by the other side). */
export type DestroyMessage = ["destroy", id: number];
/** Either way: stop sending bytes of this connection until "resume" (the receiver's buffer is full). */
export type PauseMessage = ["pause", id: number];
export type ResumeMessage = ["resume", id: number];

export type RelayMessage = OpenMessage | DataMessage | EndMessage | DestroyMessage | PauseMessage | ResumeMessage;

export interface SocketAddress {
  address?: string;
  port?: number;
  family?: string;
}

/**
 * The bytes of a chunk as a Uint8Array that owns its whole ArrayBuffer, so that the buffer can be
 * transferred instead of cloned (a Buffer from Node's pool is a view into a larger buffer, and
 * cloning a view clones all of it).
 */
export function ownBytes(chunk: Uint8Array): Uint8Array {
  if (chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength && chunk.buffer instanceof ArrayBuffer) return chunk;
  return new Uint8Array(chunk);
}
