// Starts requests a few per event-loop turn, in the turn's check phase; the rest wait, in order,
// for the next turns (docs/high-availability.md#requests-paced-per-turn,
// docs/high-availability.md#requests-start-after-the-turns-answers-leave).
//
// One socket read can bring many requests: over one HTTP/2 session a client's whole burst arrives
// together. Started at once, they would all run before the event loop hears of anything else, so
// the sync that makes the first ones durable could not start, and their answers could not leave,
// until the last was done: the client then waits for the server, and the server for the client.
// Started a few per turn, the first ones commit at the end of their turn and their sync runs while
// the server works on the next ones; their answers leave in between, and the client sends its next
// requests meanwhile.
//
// No request starts where it arrived (the poll phase): node sends what HTTP/2 sessions have to send
// at the start of the check phase, so the answers written in the poll phase (those of a sync that
// completed) leave before the turn's requests start, not after them.

/** Requests started per event-loop turn. */
export const REQUESTS_PER_TURN = 4;

/** `handle`, called for at most `perTurn` calls per event-loop turn, in its check phase, the others queued in order. */
export function pacedPerTurn<A, B>(handle: (a: A, b: B) => void, perTurn = REQUESTS_PER_TURN): (a: A, b: B) => void {
  if (!Number.isInteger(perTurn) || perTurn < 1) throw new RangeError(`pacedPerTurn: perTurn must be a positive integer, got ${perTurn}`);
  const waiting: { a: A; b: B }[] = [];
  let armed = false;
  // An immediate armed while the check phase runs its immediates runs in the next turn's.
  const turn = () => {
    armed = false;
    for (let n = 0; n < perTurn && waiting.length > 0; n++) {
      const next = waiting.shift()!;
      handle(next.a, next.b);
    }
    if (waiting.length > 0) arm();
  };
  const arm = () => {
    if (armed) return;
    armed = true;
    setImmediate(turn);
  };
  return (a, b) => {
    waiting.push({ a, b });
    arm();
  };
}
