// Whole-file work split by record ranges across worker_threads, results handed back in file
// order, a bounded number of tasks in flight (memory stays flat for export), cancellable.
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { availableParallelism, freemem } from 'node:os';
import { join } from 'node:path';
import { CancelledError, type LogIndex } from './index';
import { FILE_CHANGED, FileChangedError, recycleExportBuffer, runTask, type Job, type RangeTask, type TaskResult } from './jobs';
import type { WorkerData, WorkerReply, WorkerRequest } from './worker';

/** Target bytes per task: big enough to amortise a message, small enough to balance. */
export const TASK_BYTES = 4 * 1024 * 1024;
/** The smallest task a many-core split goes down to (a message per MB is still cheap). */
export const MIN_TASK_BYTES = 1024 * 1024;

/**
 * Bytes per task for `bytes` of records on `workers` threads: TASK_BYTES, smaller when that would
 * give fewer than about 8 tasks a thread (with 32 threads, 400 MB in 4 MB tasks leaves a thread
 * waiting on a neighbour's last task), never under MIN_TASK_BYTES.
 */
export function taskBytesFor(bytes: number, workers: number): number {
  const want = Math.floor(bytes / (Math.max(1, workers) * 8));
  return Math.max(MIN_TASK_BYTES, Math.min(TASK_BYTES, want));
}

/**
 * Splits records [from, to) of a log into tasks of about `target` bytes, never across files; the
 * default target is sized for the threads the pool will use (taskBytesFor).
 */
export function planTasks(index: LogIndex, from = 0, to = index.count, target?: number): RangeTask[] {
  if (target === undefined) {
    const a = from < to ? index.locate(from) : undefined,
      b = from < to ? index.locate(to - 1) : undefined;
    target = a && b && a.fileNo === b.fileNo ? taskBytesFor(b.end - a.offset, defaultWorkers()) : TASK_BYTES;
  }
  const tasks: RangeTask[] = [];
  let cur: RangeTask | undefined;
  let curFile = -1;
  const lastTail = index.tailPartial ? index.count - 1 : -1;
  for (let i = from; i < to; i++) {
    const loc = index.locate(i);
    if (!loc) break;
    if (!cur || loc.fileNo !== curFile || loc.end - cur.offsets[0]! > target) {
      cur = {
        path: loc.file.path,
        offsets: [loc.offset],
        first: i,
        partialLast: false,
        ino: loc.file.ino,
        ...(loc.file.within ? { within: loc.file.within } : {}),
      };
      curFile = loc.fileNo;
      tasks.push(cur);
    }
    cur.offsets.push(loc.end);
    if (i === lastTail) cur.partialLast = true;
  }
  return tasks;
}

/** Where the worker script is: beside the bundle (dist/logworker.js), or the source under tsx. */
function workerSpec(): { file: string; eval?: boolean } | undefined {
  if (process.env.AGENTJET_LOG_WORKER && existsSync(process.env.AGENTJET_LOG_WORKER)) return { file: process.env.AGENTJET_LOG_WORKER };
  const bundled = join(__dirname, 'logworker.js');
  if (existsSync(bundled)) return { file: bundled };
  const src = join(__dirname, 'worker.ts');
  // Under tsx (tests, benches): the worker loads the TypeScript source through tsx's require hook.
  if (__filename.endsWith('.ts') && existsSync(src)) return { file: `require('tsx/cjs'); require(${JSON.stringify(src)});`, eval: true };
  return undefined;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Worker threads; 0 runs on the calling thread. Default: defaultWorkers(). */
  workers?: number;
  /** Below this many bytes in all, the work runs on the calling thread (default: two tasks' worth). */
  minBytesForWorkers?: number;
  /**
   * Export: `onResult` is done with a result's lines when it returns (or its promise settles), so
   * their buffer goes back to the workers to write the next results into (memory stays at the
   * results in flight instead of growing with garbage until a collection).
   */
  reuseExportBuffers?: boolean;
  /** Tasks done (or in order) per result; bytes of records processed / total. */
  progress?: (doneBytes: number, totalBytes: number) => void;
}

/** Memory a worker may need at its peak: its read buffer, a record inflated to the bound, scratch. */
export const WORKER_BUDGET_BYTES = 256 * 1024 * 1024;

/**
 * The most worker threads that help on this machine: one per core (no fixed cap: a GPU server's
 * dozens of cores all take tasks), as many as free memory holds at WORKER_BUDGET_BYTES each, at least one.
 */
export function maxWorkers(cores = availableParallelism(), free = freemem()): number {
  return Math.max(1, Math.min(cores, Math.floor(free / WORKER_BUDGET_BYTES)));
}

/** AGENTJET_LOG_WORKERS as a whole number >= 0, if it is one. */
export function envWorkers(env = process.env.AGENTJET_LOG_WORKERS): number | undefined {
  const n = env === undefined || env === '' ? NaN : Number(env);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** Worker threads the last run started (0: it ran on the calling thread); for tests and benches. */
export const poolStats = { lastThreads: 0 };

/** The cap this process's owner set (the extension host's `agentjet.logs.hostThreads`); none in the CLI. */
let threadCap: number | undefined;

/**
 * Caps the worker threads of every run in this process (the extension host: a training run on the
 * same machine keeps its cores), and keeps whole-file work off the calling thread whenever a worker
 * can take it (the host's event loop never scans). `undefined` lifts the cap.
 */
export function setThreadCap(n: number | undefined): void {
  threadCap = n === undefined ? undefined : Math.max(1, Math.floor(n));
}

/** The extension host's threads when its setting says "automatic": a quarter of the cores, 1 to 2. */
export function hostThreadsDefault(cores = availableParallelism()): number {
  return Math.max(1, Math.min(2, Math.floor(cores / 4)));
}

/**
 * Worker threads by default: AGENTJET_LOG_WORKERS when set, never more than maxWorkers (1024 threads
 * on 2 cores only cost memory: issue 39 R11), else maxWorkers. The CLI says when it capped.
 */
export function defaultWorkers(cores = availableParallelism(), free = freemem(), env = process.env.AGENTJET_LOG_WORKERS): number {
  const n = envWorkers(env);
  const cap = Math.min(maxWorkers(cores, free), threadCap ?? Infinity);
  return n === undefined ? cap : Math.min(n, cap);
}

/** Worker threads a run of `tasks` tasks over `totalBytes` takes (0: the calling thread does the work). */
function threadsFor(tasks: number, totalBytes: number, opts: Pick<RunOptions, 'workers' | 'minBytesForWorkers'>): number {
  const want = Math.min(opts.workers ?? defaultWorkers(), threadCap ?? Infinity, tasks);
  // Under a cap (the extension host) one worker still beats the calling thread (`workers: 0` asks for that).
  const onThisThread = threadCap !== undefined ? want < 1 : want <= 1;
  return onThisThread || totalBytes < (opts.minBytesForWorkers ?? 2 * TASK_BYTES) ? 0 : want;
}

/** Whether runTasks would run these tasks on worker threads (not on the calling thread). */
export function offThread(tasks: RangeTask[], opts: Pick<RunOptions, 'workers' | 'minBytesForWorkers'> = {}): boolean {
  const totalBytes = tasks.reduce((a, t) => a + t.offsets[t.offsets.length - 1]! - t.offsets[0]!, 0);
  return workerSpec() !== undefined && threadsFor(tasks.length, totalBytes, opts) > 0;
}

/**
 * Runs `job` over `tasks`; `onResult` sees each task's result in task order (it may return a
 * promise, e.g. to wait for a slow output stream: no more than a few tasks wait meanwhile).
 */
export async function runTasks(
  tasks: RangeTask[],
  job: Job,
  onResult: (r: TaskResult, task: RangeTask) => void | Promise<void>,
  opts: RunOptions = {},
): Promise<void> {
  const totalBytes = tasks.reduce((a, t) => a + t.offsets[t.offsets.length - 1]! - t.offsets[0]!, 0);
  let doneBytes = 0;
  const spec = workerSpec();
  const want = threadsFor(tasks.length, totalBytes, opts);
  if (!spec || want === 0) {
    poolStats.lastThreads = 0;
    for (const t of tasks) {
      if (opts.signal?.aborted) throw new CancelledError();
      const r = runTask(t, job);
      await onResult(r, t);
      if (opts.reuseExportBuffers && r.kind === 'export') recycleExportBuffer(r.chunk.lines.buffer as ArrayBuffer);
      doneBytes += r.bytes;
      opts.progress?.(doneBytes, totalBytes);
      // Let cancellation and other events in between tasks.
      await new Promise<void>((res) => setImmediate(res));
    }
    return;
  }
  const workers: Worker[] = [];
  // Each worker has its next task queued while it works on one (no round trip to this thread in
  // between); the results waiting to be handed over in order are bounded too.
  const perWorker = 2;
  const maxInFlight = want * (perWorker + 1);
  try {
    await new Promise<void>((resolve, reject) => {
      const results = new Map<number, TaskResult>();
      let next = 0,
        delivered = 0,
        delivering = false,
        failed = false;
      const fail = (e: unknown) => {
        if (!failed) {
          failed = true;
          reject(e);
        }
      };
      const onAbort = () => fail(new CancelledError());
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (opts.signal?.aborted) {
        onAbort();
        return;
      }
      /** Tasks sent to each worker and not answered yet. */
      const queued = new Map<Worker, number>();
      /** Export buffers written out, to go back to the workers with their next tasks. */
      const spare: ArrayBuffer[] = [];
      const dispatch = () => {
        while (!failed && next < tasks.length && next - delivered < maxInFlight) {
          let w: Worker | undefined;
          for (const [cand, n] of queued) if (n < perWorker && (!w || n < queued.get(w)!)) w = cand;
          if (!w) break;
          queued.set(w, queued.get(w)! + 1);
          const req: WorkerRequest = { id: next, task: tasks[next]!, job };
          next++;
          const reuse = spare.pop();
          if (reuse) req.reuse = reuse;
          w.postMessage(req, reuse ? [reuse] : []);
        }
      };
      const deliver = async () => {
        if (delivering) return;
        delivering = true;
        try {
          while (!failed && results.has(delivered)) {
            const r = results.get(delivered)!;
            results.delete(delivered);
            await onResult(r, tasks[delivered]!);
            if (opts.reuseExportBuffers && r.kind === 'export' && r.chunk.lines.buffer.byteLength > Buffer.poolSize)
              spare.push(r.chunk.lines.buffer as ArrayBuffer);
            doneBytes += r.bytes;
            delivered++;
            opts.progress?.(doneBytes, totalBytes);
            dispatch();
          }
          if (!failed && delivered === tasks.length) {
            opts.signal?.removeEventListener('abort', onAbort);
            resolve();
          }
        } catch (e) {
          fail(e);
        } finally {
          delivering = false;
        }
      };
      poolStats.lastThreads = want;
      for (let k = 0; k < want; k++) {
        // Under a cap (the extension host) the workers yield the core to the host's own thread.
        const w = new Worker(spec.file, {
          eval: spec.eval ?? false,
          workerData: { background: threadCap !== undefined } satisfies WorkerData,
        });
        workers.push(w);
        w.on('message', (m: WorkerReply) => {
          if (!m.ok) {
            // A changed file is the user's news, not a worker's failure.
            fail(
              m.name === FILE_CHANGED
                ? Object.assign(new FileChangedError('', ''), { message: m.error })
                : new Error(`log worker: ${m.error}`),
            );
            return;
          }
          const r = m.result;
          if (r.kind === 'export') r.chunk.lines = Buffer.from(r.chunk.lines.buffer, r.chunk.lines.byteOffset, r.chunk.lines.byteLength);
          results.set(m.id, r);
          queued.set(w, queued.get(w)! - 1);
          dispatch();
          void deliver();
        });
        w.on('error', fail);
        w.on('exit', (code) => {
          if (code !== 0 && !failed && delivered < tasks.length) fail(new Error(`log worker exited with code ${code}`));
        });
        queued.set(w, 0);
      }
      dispatch();
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
