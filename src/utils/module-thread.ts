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
 */
export function startModuleThread(entry: string, options: Omit<WorkerOptions, "eval" | "workerData"> & { workerData?: object } = {}): Worker {
  const tsx = tsxModule();
  return new Worker(BOOT, {
    ...options,
    eval: true,
    workerData: { ...options.workerData, entry, ...(tsx ? { tsx } : {}) },
    execArgv: withoutTsx(options.execArgv ?? process.execArgv),
  });
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
