// Worker threads that run one of our ES modules. Every entry point runs TypeScript through tsx,
// whose loader registered in this thread does not reach a new thread: the thread registers tsx
// itself before it imports its module, and is started without tsx's loader flags.
import { Worker, type WorkerOptions } from "node:worker_threads";

const BOOT = `
const { workerData } = require("node:worker_threads");
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await import(workerData.entry);
})().catch((err) => { setImmediate(() => { throw err; }); });
`;

/** tsx's API module when this process runs TypeScript through tsx (as every entry point does). */
function tsxModule(): string | undefined {
  try {
    return import.meta.resolve("tsx/esm/api");
  } catch {
    return undefined;
  }
}

/**
 * A thread running the module `entry` (a file URL). Its workerData is `workerData` with `entry`
 * and `tsx` (tsx's API module, when this process has it) added.
 *
 * The thread gets the process's node options without tsx's loader flags. When there are none to
 * take out, node passes them on itself, leaving out those a thread cannot have. A list we pass is
 * refused whole when it holds one (V8's, such as `--max-old-space-size`, or the process's own): the
 * thread then starts with none, as V8's flags hold for every thread of the process anyway.
 */
export function startModuleThread(entry: string, options: Omit<WorkerOptions, "eval" | "workerData"> & { workerData?: object } = {}): Worker {
  const tsx = tsxModule();
  const base: WorkerOptions = { ...options, eval: true, workerData: { ...options.workerData, entry, ...(tsx ? { tsx } : {}) } };
  const given = options.execArgv ?? process.execArgv;
  const execArgv = withoutTsx(given);
  if (options.execArgv === undefined && execArgv.length === given.length) return new Worker(BOOT, { ...base, execArgv: undefined });
  try {
    return new Worker(BOOT, { ...base, execArgv });
  } catch (err) {
    if ((err as { code?: unknown }).code !== "ERR_WORKER_INVALID_EXEC_ARGV") throw err;
    return new Worker(BOOT, { ...base, execArgv: [] });
  }
}

/** execArgv without `--import tsx` / `--loader tsx` (either spelling). */
function withoutTsx(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if ((a === "--import" || a === "--loader" || a === "--require" || a === "-r") && /(^|\/)tsx(\/|$)/.test(argv[i + 1] ?? "")) {
      i++;
      continue;
    }
    if (/^--(import|loader|require)=.*\btsx\b/.test(a)) continue;
    out.push(a);
  }
  return out;
}
