// The first listing of a large run tree (`agentjet runs` over thousands of experiments) spends its
// time reading each experiment's folders and log tails, experiment by experiment: work that splits
// cleanly. The calling thread inspects one share and worker threads the others; the results come
// back in the input order, the same as one thread would give. Small trees stay on one thread (a
// worker costs some 100 ms to start). CLI only: workers use the synchronous file seam.
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { inspectExperiment } from './discover';
import { mapLimit, syncNodeFs, type RunsFs } from '../fs/seam';
import type { DiscoverOptions, ExperimentEntry, ExperimentInfo } from './runTypes';
import { getLocale } from '../l10n';

/** Below this many experiments, one thread. */
export const PARALLEL_MIN_EXPERIMENTS = 400;

/** What a worker needs for its share (plain data: it crosses a thread boundary). */
export interface ShareRequest {
  entries: ExperimentEntry[];
  env?: Record<string, string | undefined>;
  localHost?: string;
  remoteFreshMs?: number;
  /** The roots nothing outside of is read (an agent's listing): see nodeFs/syncNodeFs. */
  within?: string[];
}

/** Inspects one share with the synchronous seam and a listing memo of its own. */
export async function inspectShare(req: ShareRequest): Promise<ExperimentInfo[]> {
  const opts: DiscoverOptions = { listingMemo: new Map() };
  if (req.env) opts.env = req.env;
  if (req.localHost !== undefined) opts.localHost = req.localHost;
  if (req.remoteFreshMs !== undefined) opts.remoteFreshMs = req.remoteFreshMs;
  const fs = syncNodeFs(req.within ? { within: req.within } : {});
  return mapLimit(req.entries, 16, (e) => inspectExperiment(fs, e, opts));
}

/**
 * Threads to use: AGENTJET_RUNS_THREADS, else two when a second core is idle (the load average
 * leaves one free), else one. On a busy machine a second thread only adds its start-up and the
 * two threads' contention for the same folders (measured: about 25% more CPU for the same listing).
 */
export function defaultThreads(): number {
  const env = Number(process.env.AGENTJET_RUNS_THREADS);
  if (Number.isInteger(env) && env >= 1) return Math.min(env, 8);
  const cores = availableParallelism();
  return cores >= 2 && loadavg()[0]! <= cores - 1 ? 2 : 1;
}

/** Where the worker script is: beside the bundle (dist/runsworker.js), or the source under tsx. */
function workerSpec(): { file: string; eval: boolean } | undefined {
  const bundled = join(__dirname, 'runsworker.js');
  if (existsSync(bundled)) return { file: bundled, eval: false };
  const src = join(__dirname, 'inspectWorker.ts');
  if (__filename.endsWith('.ts') && existsSync(src)) return { file: `require('tsx/cjs'); require(${JSON.stringify(src)});`, eval: true };
  return undefined;
}

function inWorker(spec: { file: string; eval: boolean }, req: ShareRequest): Promise<ExperimentInfo[]> {
  return new Promise((resolve, reject) => {
    const w = new Worker(spec.file, { eval: spec.eval });
    let settled = false;
    const done = (err: Error | undefined, infos?: ExperimentInfo[]) => {
      if (settled) return;
      settled = true;
      void w.terminate();
      if (err) reject(err);
      else resolve(infos!);
    };
    w.on('message', (m: { ok: true; infos: ExperimentInfo[] } | { ok: false; error: string }) =>
      m.ok ? done(undefined, m.infos) : done(new Error(m.error)),
    );
    w.on('error', (err) => done(err));
    w.on('exit', (code) => done(new Error(`runs worker exited with code ${code}`)));
    w.postMessage({ ...req, locale: getLocale() });
  });
}

/**
 * Every entry's details, in the order of `entries`. `opts` may only hold plain data when threads
 * are used (a process probe or a clock cannot cross to a worker): with anything else, one thread.
 */
export async function inspectAll(
  fs: RunsFs,
  entries: readonly ExperimentEntry[],
  opts: DiscoverOptions = {},
  threads = defaultThreads(),
  minExperiments = PARALLEL_MIN_EXPERIMENTS,
  /** Filled with how many shares worker threads did (tests, the benchmark). */
  report: { workerShares: number } = { workerShares: 0 },
  /** The roots `fs` confines reads to (handed to the workers, which build their own seam). */
  within?: readonly string[],
): Promise<ExperimentInfo[]> {
  const inline = () => mapLimit(entries, 16, (e) => inspectExperiment(fs, e, opts));
  const spec = workerSpec();
  if (threads < 2 || entries.length < minExperiments || !spec || opts.processProbe || opts.isAlive || opts.now) return inline();
  // Interleaved shares: neighbours in the list (newest first) tend to be alike in size.
  const shares = Array.from({ length: threads }, (_, k) => entries.filter((_, i) => i % threads === k));
  const plain = (share: ExperimentEntry[]): ShareRequest => ({
    entries: share,
    ...(opts.env ? { env: { ...opts.env } } : {}),
    ...(opts.localHost !== undefined ? { localHost: opts.localHost } : {}),
    ...(opts.remoteFreshMs !== undefined ? { remoteFreshMs: opts.remoteFreshMs } : {}),
    ...(within ? { within: [...within] } : {}),
  });
  const results = await Promise.all(
    shares.map((share, k) =>
      k === 0
        ? mapLimit(share, 16, (e) => inspectExperiment(fs, e, opts))
        : // A worker that fails (cannot start, cannot clone) leaves its share to this thread.
          inWorker(spec, plain(share)).then(
            (infos) => {
              report.workerShares++;
              return infos;
            },
            () => mapLimit(share, 16, (e) => inspectExperiment(fs, e, opts)),
          ),
    ),
  );
  const out = new Array<ExperimentInfo>(entries.length);
  results.forEach((infos, k) => infos.forEach((info, j) => (out[j * threads + k] = info)));
  return out;
}
