// Whole logs and whole runs: one or more log groups (a `.json.log` and its rotated siblings),
// indexed (from the facts cache where it is still valid), then stats, export and search over
// every record in order, split across worker threads (pool.ts).
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CancelledError, FileIndex, LogIndex } from './index';
import { planTasks, runTasks, type RunOptions } from './pool';
import type { RangeTask, RecordFacts, TaskResult } from './jobs';
import type { FactsCache, CacheOutcome } from './cache';
import type { SearchCounts, SearchHitData } from '../protocol/tokenlog';
import type { StepPoint } from '../runs/types';
import { parseRecordTitle } from './record';
import { StepCurves } from './steps';

export interface OpenOptions {
  siblings?: boolean;
  cache?: FactsCache;
  signal?: AbortSignal;
  /** The roots every file must really lie in, checked at each open (an agent's tools). */
  within?: readonly string[];
}

/** Indexed log groups, with the facts the cache still vouches for (per file). */
export interface OpenedLogs {
  indexes: LogIndex[];
  /** Per index, per file: facts of the first records of that file, valid as they are. */
  known: RecordFacts[][][];
  cache: { hit: number; extended: number; miss: number; invalidated: number };
}

/**
 * Token log files of a run folder (`<run>/<host>/<mod>/<mod>.json.log`, any depth up to 4): one
 * group per host, hosts in name order. `mod` defaults to `rollout`.
 */
export async function findRunLogs(dir: string, mod = 'rollout'): Promise<string[]> {
  const out: string[] = [];
  const want = `${mod}.json.log`;
  const walk = async (d: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const hasMain = entries.some((e) => e.isFile() && e.name === want);
    // A group whose live file is gone still has its rotated files.
    const rotated = entries.some((e) => e.isFile() && e.name.startsWith(`${mod}.json.`) && e.name.endsWith('.log') && e.name !== want);
    if (hasMain || rotated) out.push(join(d, want));
    if (depth >= 4) return;
    for (const e of entries) if (e.isDirectory() && !e.name.startsWith('.')) await walk(join(d, e.name), depth + 1);
  };
  await walk(dir, 0);
  return out;
}

export async function openLogs(mains: string[], opts: OpenOptions = {}): Promise<OpenedLogs> {
  const indexes: LogIndex[] = [];
  const known: RecordFacts[][][] = [];
  const cacheCount: Record<CacheOutcome, number> = { hit: 0, extended: 0, miss: 0, invalidated: 0 };
  for (const main of mains) {
    if (opts.signal?.aborted) throw new CancelledError();
    const index = new LogIndex(main, { siblings: opts.siblings, ...(opts.within ? { within: opts.within } : {}) });
    const paths = await index.discover();
    const seeded = new Map<FileIndex, { facts: RecordFacts[]; resets: number }>();
    const files: FileIndex[] = [];
    for (const p of paths) {
      const f = new FileIndex(p, opts.within);
      if (opts.cache) {
        const r = await opts.cache.restore(f);
        cacheCount[r.outcome]++;
        seeded.set(f, { facts: r.facts, resets: f.resets });
      }
      files.push(f);
    }
    index.files = files;
    await index.update({ signal: opts.signal });
    indexes.push(index);
    known.push(
      index.files.map((f) => {
        const s = seeded.get(f);
        return s && s.resets === f.resets ? s.facts.slice(0, f.count) : [];
      }),
    );
  }
  return { indexes, known, cache: cacheCount };
}

/** Facts of every record of every index (in order), computing what the cache did not have. */
export async function collectFacts(
  opened: OpenedLogs,
  opts: RunOptions & { cache?: FactsCache; onFacts?: (ix: number, first: number, facts: RecordFacts[]) => void } = {},
): Promise<RecordFacts[][]> {
  const out: RecordFacts[][] = opened.indexes.map((ix) => new Array<RecordFacts>(ix.count));
  const tasks: { task: RangeTask; ix: number }[] = [];
  opened.indexes.forEach((index, ix) => {
    index.files.forEach((f, k) => {
      const base = index.startOfFile(k);
      const have = opened.known[ix]![k] ?? [];
      for (let i = 0; i < have.length; i++) out[ix]![base + i] = have[i]!;
      if (have.length) opts.onFacts?.(ix, base, have);
      if (have.length < f.count) for (const task of planTasks(index, base + have.length, base + f.count)) tasks.push({ task, ix });
    });
  });
  if (tasks.length) {
    const owner = new Map(tasks.map((t) => [t.task, t.ix]));
    await runTasks(
      tasks.map((t) => t.task),
      { kind: 'facts' },
      (r: TaskResult, task: RangeTask) => {
        if (r.kind !== 'facts') return;
        const ix = owner.get(task)!;
        r.facts.forEach((f, k) => {
          out[ix]![task.first + k] = f;
        });
        opts.onFacts?.(ix, task.first, r.facts);
      },
      opts,
    );
  }
  if (opts.cache) {
    for (let ix = 0; ix < opened.indexes.length; ix++) {
      const index = opened.indexes[ix]!;
      for (let k = 0; k < index.files.length; k++) {
        const f = index.files[k]!;
        const base = index.startOfFile(k);
        try {
          await opts.cache.save(f, out[ix]!.slice(base, base + f.count));
        } catch {
          // A read-only or full cache folder only costs speed.
        }
      }
    }
  }
  return out;
}

/** Tasks over all records of all indexes, numbered globally across the indexes. */
export function allTasks(opened: OpenedLogs, target?: number): RangeTask[] {
  const tasks: RangeTask[] = [];
  let base = 0;
  for (const index of opened.indexes) {
    for (const t of planTasks(index, 0, index.count, target)) tasks.push({ ...t, first: t.first + base });
    base += index.count;
  }
  return tasks;
}

export interface SearchOptions extends RunOptions {
  /** Batches of hits in file order, with the running counts. */
  onHits?: (hits: SearchHitData[], counts: SearchCounts) => void;
}

/** Full-text search (decoded text, case-insensitive) over the given tasks. */
export async function searchTasks(
  tasks: RangeTask[],
  text: string,
  opts: SearchOptions = {},
): Promise<{ hits: SearchHitData[]; counts: SearchCounts }> {
  const needle = text.toLowerCase();
  const total = tasks.reduce((a, t) => a + t.offsets.length - 1, 0);
  const totalBytes = tasks.reduce((a, t) => a + t.offsets[t.offsets.length - 1]! - t.offsets[0]!, 0);
  const counts: SearchCounts = { done: 0, total, doneBytes: 0, totalBytes, hits: 0, matches: 0 };
  const hits: SearchHitData[] = [];
  await runTasks(
    tasks,
    { kind: 'search', needle },
    (r, task) => {
      if (r.kind !== 'search') return;
      counts.done += task.offsets.length - 1;
      counts.doneBytes += r.bytes;
      counts.hits += r.chunk.hits.length;
      counts.matches += r.chunk.matches;
      for (const h of r.chunk.hits) hits.push(h);
      opts.onHits?.(r.chunk.hits, { ...counts });
    },
    opts,
  );
  return { hits, counts };
}

/** Total size in bytes of the files of the given logs (for MB/s). */
export async function totalBytes(opened: OpenedLogs): Promise<number> {
  let t = 0;
  for (const ix of opened.indexes) for (const f of ix.files) t += (await stat(f.path).catch(() => ({ size: 0 }))).size;
  return t;
}

/**
 * Per-step curves of a whole run (the dashboard's rollout data: records, mean reward, success
 * rate, mean response length, first record time per step), computed from the facts (cached or
 * scanned on worker threads); `onPoints` sees the curves grow as the files are read.
 */
export async function stepCurves(
  opened: OpenedLogs,
  opts: RunOptions & {
    cache?: FactsCache;
    onPoints?: (points: StepPoint[], done: number, total: number) => void;
    /** Sees every record's facts too (with its header time, ms): the per-task table reads them in the same pass. */
    onRecord?: (facts: RecordFacts, time: number | undefined, log: string, order: number) => void;
  } = {},
): Promise<StepPoint[]> {
  const curves = new StepCurves();
  const total = opened.indexes.reduce((a, ix) => a + ix.count, 0);
  let done = 0;
  await collectFacts(opened, {
    ...opts,
    onFacts: (ix, first, facts) => {
      const index = opened.indexes[ix]!;
      facts.forEach((f, k) => {
        const time = index.time(first + k);
        // The record's place in the run (log group, then record): chunks arrive in any order.
        opts.onRecord?.(f, time, index.mainPath, ix * 2 ** 40 + first + k);
        if (f.step === undefined) return;
        // As the dashboard: the reward in the title (not a timeline's raw reward when the title has none).
        curves.add(f.step, {
          reward: f.title !== undefined ? parseRecordTitle(f.title).reward : undefined,
          responseLength: f.meanLenResponse,
          time: time === undefined || !Number.isFinite(time) ? undefined : new Date(time).toISOString().replace('T', ' ').slice(0, 23),
        });
      });
      done += facts.length;
      opts.onPoints?.(curves.points(), done, total);
    },
  });
  return curves.points();
}
