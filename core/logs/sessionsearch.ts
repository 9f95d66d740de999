// The search job of a log session (session.ts): the candidate records, grouped into contiguous
// ranges, scanned on worker threads (pool.ts, wholelog.ts), hits streamed back in file order.
import type { LogIndex } from './index';
import type { DecodedRecord } from './decode';
import { findInTokens } from './search';
import { planTasks } from './pool';
import { searchTasks } from './wholelog';
import type { RangeTask } from './jobs';
import type { MatchWhere, SearchCounts, SearchHitData as SearchHit } from '../protocol/tokenlog';

export interface SearchOptions {
  signal?: AbortSignal;
  onHit?: (h: SearchHit) => void;
  onHits?: (hits: SearchHit[], counts: SearchCounts) => void;
  progress?: (done: number, total: number) => void;
  workers?: number;
}

/**
 * Reports the candidates whose token text, title or task id contains `text` (case-insensitive,
 * on the decoded text); hits stream through `onHit` (file order) and `onHits` (batches with
 * running counts). The records are scanned on worker threads (pool.ts). Cancellable.
 */
export async function searchRecords(
  logIndex: LogIndex,
  count: number,
  text: string,
  candidates: number[],
  opts: SearchOptions = {},
): Promise<SearchHit[]> {
  const needle = text.toLowerCase();
  if (!needle) {
    const all = candidates.map((index): SearchHit => ({ index, matches: 0, where: 'tokens' }));
    for (const h of all) opts.onHit?.(h);
    return all;
  }
  const wanted = new Set(candidates);
  const sorted = [...wanted].filter((i) => i >= 0 && i < count).sort((a, b) => a - b);
  // Contiguous runs (small gaps are read through: a task per record would cost more).
  const tasks: RangeTask[] = [];
  for (let k = 0; k < sorted.length;) {
    let j = k;
    while (j + 1 < sorted.length && sorted[j + 1]! - sorted[j]! <= 8) j++;
    tasks.push(...planTasks(logIndex, sorted[k]!, sorted[j]! + 1));
    k = j + 1;
  }
  const hits: SearchHit[] = [];
  const counts: SearchCounts = {
    done: 0,
    total: sorted.length,
    doneBytes: 0,
    totalBytes: tasks.reduce((a, t) => a + t.offsets[t.offsets.length - 1]! - t.offsets[0]!, 0),
    hits: 0,
    matches: 0,
  };
  await searchTasks(tasks, text, {
    signal: opts.signal,
    workers: opts.workers,
    onHits: (batch, c) => {
      const mine = batch.filter((h) => wanted.has(h.index));
      counts.doneBytes = c.doneBytes;
      for (const h of mine) {
        hits.push(h);
        counts.hits++;
        counts.matches += h.matches;
        opts.onHit?.(h);
      }
      counts.done = doneUpTo(sorted, c, tasks);
      opts.onHits?.(mine, { ...counts });
      opts.progress?.(counts.done, counts.total);
    },
  });
  return hits;
}

/** Candidates covered once the tasks up to the one holding `c.done` records are done. */
function doneUpTo(sorted: number[], c: SearchCounts, tasks: RangeTask[]): number {
  // c.done counts records of finished tasks (in file order): find the last finished record.
  let n = 0,
    k = 0;
  for (const t of tasks) {
    n += t.offsets.length - 1;
    if (n > c.done) break;
    k++;
  }
  if (k === 0) return 0;
  const t = tasks[k - 1]!;
  const lastRecord = t.first + t.offsets.length - 2;
  let lo = 0,
    hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= lastRecord) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Finds `needle` (lower case) in a record: token text across token boundaries, title, task. */
export function matchRecord(rec: DecodedRecord, needle: string): Omit<SearchHit, 'index'> | undefined {
  if (!needle) return { matches: 0, where: 'tokens' };
  const { matches, first } = findInTokens(
    rec.timelines.map((t) => t.text),
    needle,
  );
  if (matches > 0) return { matches, where: 'tokens', ...(first ?? {}) };
  const meta = `${rec.title}\n${rec.taskId ?? ''}\n${rec.kind === 'tokens' ? '' : rec.content + '\n' + rec.attach}`.toLowerCase();
  if (!meta.includes(needle)) return undefined;
  const where: MatchWhere = rec.title.toLowerCase().includes(needle)
    ? 'title'
    : (rec.taskId ?? '').toLowerCase().includes(needle)
      ? 'task'
      : rec.kind === 'tokens'
        ? 'title'
        : 'content';
  return { matches, where };
}
