// Starts at most a few requests per event-loop turn; the rest wait, in order, for the next turns
// (docs/high-availability.md#requests-paced-per-turn).
//
// One socket read can bring many requests: over one HTTP/2 session a client's whole burst arrives
// together. Started at once, they would all run before the event loop hears of anything else, so
// the sync that makes the first ones durable could not start, and their answers could not leave,
// until the last was done: the client then waits for the server, and the server for the client.
// Started a few per turn, the first ones commit at the end of their turn and their sync runs while
// the server works on the next ones; their answers leave in between, and the client sends its next
// requests meanwhile.

/** Requests started per event-loop turn. */
export const REQUESTS_PER_TURN = 4;

/** `handle`, starting at most `perTurn` calls per event-loop turn and queueing the others in order. */
export function pacedPerTurn<A, B>(handle: (a: A, b: B) => void, perTurn = REQUESTS_PER_TURN): (a: A, b: B) => void {
  if (!Number.isInteger(perTurn) || perTurn < 1) throw new RangeError(`pacedPerTurn: perTurn must be a positive integer, got ${perTurn}`);
  const waiting: { a: A; b: B }[] = [];
  let left = perTurn;
  let armed = false;
  // The allowance is per turn: renewed in the check phase after the poll phase that read the
  // requests (waiting ones start then, before the next reads), or by the first request of a turn
  // when nothing was armed.
  const nextTurn = () => {
    armed = false;
    left = perTurn;
    while (left > 0 && waiting.length > 0) {
      left--;
      const next = waiting.shift()!;
      handle(next.a, next.b);
    }
    if (waiting.length > 0) arm();
  };
  const arm = () => {
    if (armed) return;
    armed = true;
    setImmediate(nextTurn);
  };
  return (a, b) => {
    // Not armed: the first request since the last renewal's turn, so a new turn's allowance.
    if (!armed) {
      left = perTurn;
      arm();
    }
    if (left > 0 && waiting.length === 0) {
      left--;
      handle(a, b);
    } else waiting.push({ a, b });
  };
}
