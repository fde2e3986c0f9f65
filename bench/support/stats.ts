// Small statistics helpers for benchmarks: percentiles, rates, aligned result tables.

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summarize(samples: number[]): { n: number; p50: number; p99: number; max: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN };
}

/** Runs `worker` in `concurrency` parallel loops until `durationMs` passed; returns operations per second. */
export async function rate(concurrency: number, durationMs: number, worker: (i: number) => Promise<void>): Promise<number> {
  const end = performance.now() + durationMs;
  let ops = 0;
  let seq = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await worker(seq++);
        ops++;
      }
    }),
  );
  return ops / ((performance.now() - start) / 1000);
}

export function table(rows: (string | number)[][]): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === "number" ? fmt(c) : c)));
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")).join("\n");
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return "n/a";
  return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}
