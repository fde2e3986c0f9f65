// Reading a V8 CPU profile (node --cpu-prof) of the API server: the samples inside a time window,
// as CPU per operation by function and by file (docs/high-availability.md#a-profile-per-create).
// V8 stamps samples with the monotonic clock in µs, the clock of process.hrtime, so a window
// measured in another process on the same machine selects them.

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileFigures {
  /** Sampled time inside the window, µs. */
  sampledUs: number;
  /** Of that, not idle. */
  busyUs: number;
  /** Self time by function ("name file[:line]") and by file, µs, largest first; V8's own entries as "(garbage collector)", "(program)". */
  byFunction: [string, number][];
  byFile: [string, number][];
}

const IDLE = "(idle)";

/** Where a call frame's code lives, relative to the repository when it is ours; V8's entries by name. */
function fileOf(url: string, functionName: string, root: string): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  return url.replace(`file://${root}/`, "").replace(`${root}/`, "");
}

/** Self time per function and file of the samples stamped within [fromUs, toUs]. */
export function profileWindow(p: CpuProfile, fromUs: number, toUs: number, root: string): ProfileFigures {
  const nodes = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  const fn = new Map<string, number>();
  const file = new Map<string, number>();
  let at = p.startTime;
  let sampledUs = 0;
  let busyUs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const delta = p.timeDeltas[i] ?? 0;
    at += delta;
    if (at < fromUs || at > toUs) continue;
    const frame = nodes.get(p.samples[i]!);
    if (!frame) continue;
    sampledUs += delta;
    if (frame.functionName === IDLE) continue;
    busyUs += delta;
    const where = fileOf(frame.url, frame.functionName, root);
    // tsx emits each TypeScript module as one line, so our functions are named by file alone.
    const line = frame.lineNumber > 0 ? `:${frame.lineNumber + 1}` : "";
    const name = frame.url ? `${frame.functionName || "(anonymous)"} ${where}${line}` : frame.functionName || where;
    fn.set(name, (fn.get(name) ?? 0) + delta);
    file.set(where, (file.get(where) ?? 0) + delta);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { sampledUs, busyUs, byFunction: sorted(fn), byFile: sorted(file) };
}

/** The monotonic clock in µs, as V8 stamps its samples. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}
