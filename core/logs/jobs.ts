// Whole-file work on a range of records (one task): the same code runs on a worker thread
// (worker.ts) or inline. A task names a file, a byte range and the record starts inside it.
import { closeSync, readSync } from 'node:fs';
import { openInsideSync, RefusedPathError } from '../fs/inside';
import { TOO_LARGE } from './inflate';
import { FastScanner, Out, exportLineInto, payloadJson, type ScanRecord, type ScanResult } from './fastscan';
import { countTokens, summarizePrefix, type DecodedRecord, type RecordKind, type RecordSummary } from './decode';
import { findInTokens } from './search';
import type { MatchWhere, SearchHitData } from '../protocol/tokenlog';

export interface RangeTask {
  path: string;
  /** Absolute record starts in the file, then the end of the last record. */
  offsets: number[];
  /** Global record number of the first record. */
  first: number;
  /** The last record of this task is the last of the log and the file ends mid-record. */
  partialLast: boolean;
  /** The file's inode when it was indexed: another file under the same name is not read as this one. */
  ino?: number;
  /** The roots the file must really lie in, checked where the worker opens it (core/fs/inside). */
  within?: readonly string[];
}

/**
 * The file a task reads is not the one that was indexed any more (replaced, truncated): what
 * was read so far cannot be completed, and a result from it would be partial.
 */
export class FileChangedError extends Error {
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(`${path} changed while it was read (${what}); the result would be partial: run the command again`);
    this.name = 'FileChangedError';
  }
}
export const FILE_CHANGED = 'FileChangedError';

/**
 * `inflate` only reads and inflates every payload: the benchmark's floor. `summaries` reads the
 * first `prefix` bytes of each record for its list row (the viewer's first pass, off the host's thread).
 */
export type Job =
  { kind: 'facts' } | { kind: 'export' } | { kind: 'search'; needle: string } | { kind: 'inflate' } | { kind: 'summaries'; prefix: number };

/** What the list, stats and the cache keep of a record. */
export interface RecordFacts {
  kind?: RecordKind;
  step?: number;
  reward?: number;
  taskId?: string;
  title?: string;
  outcome?: string;
  timelines: number;
  tokens: number;
  trained: number;
  /** Mean `len_response_ids` of the timelines that have one. */
  meanLenResponse?: number;
  error?: string;
}

function meanLen(ts: { lenResponse?: number }[]): number | undefined {
  let sum = 0,
    n = 0;
  for (const t of ts)
    if (t.lenResponse !== undefined) {
      sum += t.lenResponse;
      n++;
    }
  return n ? sum / n : undefined;
}

export interface ExportChunk {
  lines: Uint8Array;
  rows: number;
  corrupt: number;
  /** The first corrupt records of the task, with why (a few: the count says how many in all). */
  errors: { index: number; error: string }[];
}
export interface SearchChunk {
  hits: SearchHitData[];
  matches: number;
}

export type TaskResult =
  | { kind: 'facts'; facts: RecordFacts[]; bytes: number }
  | { kind: 'export'; chunk: ExportChunk; bytes: number }
  | { kind: 'search'; chunk: SearchChunk; bytes: number }
  | { kind: 'inflate'; inflated: number; bytes: number }
  | { kind: 'summaries'; summaries: RecordSummary[]; bytes: number };

/** The read buffer, reused from task to task (no result refers to it); a huge range gets its own. */
let readBuf = Buffer.allocUnsafeSlow(0);
const KEEP_READ_BYTES = 16 << 20;

/**
 * Opens the task's file, checking that the handle is the file that was indexed (same inode, at
 * least `end` bytes long).
 */
function openChecked(task: RangeTask, end: number): number {
  let fd: number;
  let st;
  try {
    ({ handle: fd, stat: st } = openInsideSync(task.path, task.within));
  } catch (err) {
    if (err instanceof RefusedPathError)
      throw new FileChangedError(
        task.path,
        err.code === 'EOUTSIDE' ? 'it now leads outside the folders this reader may open' : 'it is not a regular file',
      );
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new FileChangedError(task.path, 'it was removed');
    throw err;
  }
  try {
    if (task.ino !== undefined && task.ino >= 0 && st.ino !== task.ino)
      throw new FileChangedError(task.path, 'another file took its place');
    if (st.size < end) throw new FileChangedError(task.path, `it was truncated to ${st.size} bytes`);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/** Summaries of the task's records from the first `prefix` bytes of each (one handle, one buffer). */
function summariesOf(task: RangeTask, prefix: number): RecordSummary[] {
  const n = task.offsets.length - 1;
  const fd = openChecked(task, task.offsets[n]!);
  const buf = Buffer.allocUnsafe(prefix);
  const out: RecordSummary[] = [];
  try {
    for (let k = 0; k < n; k++) {
      const at = task.offsets[k]!;
      const got = readSync(fd, buf, 0, Math.min(prefix, task.offsets[k + 1]! - at), at);
      out.push(summarizePrefix(buf.subarray(0, got)));
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

/**
 * Reads [start, end) of the task's file through one handle, after checking that the handle is
 * the file that was indexed (same inode, still long enough); a short read means it was cut.
 */
function readRange(task: RangeTask, start: number, end: number): Buffer {
  const len = end - start;
  if (readBuf.length < len && len <= KEEP_READ_BYTES)
    readBuf = Buffer.allocUnsafeSlow(Math.min(KEEP_READ_BYTES, Math.max(len, readBuf.length * 2)));
  const buf = len <= readBuf.length ? readBuf.subarray(0, len) : Buffer.allocUnsafe(len);
  const fd = openChecked(task, end);
  try {
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, start + got);
      if (n <= 0) break;
      got += n;
    }
    if (got < buf.length) throw new FileChangedError(task.path, `it was truncated to ${start + got} bytes`);
    return buf;
  } finally {
    closeSync(fd);
  }
}

/** The error message a record gets when it is the unfinished last one (as LogSession.record says). */
function withTail(r: ScanResult, last: boolean): ScanResult {
  if (r.ok || !last) return r;
  return { ok: false, error: `incomplete record: the file ends mid-record (still being written, or cut off): ${r.error}` };
}

export function factsOf(r: ScanResult): RecordFacts {
  if (!r.ok) return { timelines: 0, tokens: 0, trained: 0, error: r.error };
  return {
    kind: r.kind,
    step: r.step,
    reward: r.reward,
    taskId: r.taskId,
    title: r.title,
    outcome: r.outcome,
    timelines: r.timelines.length,
    tokens: r.tokens,
    trained: r.trained,
    meanLenResponse: meanLen(r.timelines),
  };
}

export function factsOfDecoded(rec: DecodedRecord): RecordFacts {
  const c = countTokens(rec);
  return {
    kind: rec.kind,
    step: rec.step,
    reward: rec.reward,
    taskId: rec.taskId,
    title: rec.title,
    outcome: rec.outcome,
    timelines: c.timelines,
    tokens: c.tokens,
    trained: c.trained,
    meanLenResponse: meanLen(rec.timelines),
  };
}

/** Made at the first task, not on import (its WebAssembly instance has no place in activation). */
let scanner: FastScanner | undefined;
/** Export output of a task; its buffer is handed over at the end of each task (Out.detach). */
const exportOut = new Out();
/** Export output buffers given back once written (recycleExportBuffer), for the next tasks. */
const spareOut: Buffer[] = [];

/**
 * Gives back the buffer of an export result whose bytes are no longer needed: the next task
 * writes into it instead of a fresh one, so export memory stays at the buffers in flight.
 */
export function recycleExportBuffer(buffer: ArrayBuffer): void {
  if (buffer.byteLength > Buffer.poolSize && spareOut.length < 4) spareOut.push(Buffer.from(buffer));
}

export function runTask(task: RangeTask, job: Job): TaskResult {
  const start = task.offsets[0]!,
    end = task.offsets[task.offsets.length - 1]!;
  if (job.kind === 'summaries') return { kind: 'summaries', summaries: summariesOf(task, job.prefix), bytes: end - start };
  const buf = readRange(task, start, end);
  const n = task.offsets.length - 1;
  const bytes = end - start;
  const rec = (k: number, want: Parameters<FastScanner['scanRecord']>[1]): ScanResult => {
    const s = task.offsets[k]! - start,
      e = Math.min(task.offsets[k + 1]! - start, buf.length);
    const raw = buf.subarray(s, e);
    let r = (scanner ??= new FastScanner()).scanRecord(raw, want);
    const last = k === n - 1 && (task.partialLast || (!r.ok && r.error === 'record has no payload'));
    if (!r.ok && k === n - 1 && task.partialLast) r = withTail(r, true);
    else if (!r.ok && last) r = withTail(r, true);
    // Where the record is, so it can be found (and the rest of the log is still read).
    if (!r.ok && r.error.startsWith(TOO_LARGE)) r = { ok: false, error: `${r.error} [record at byte ${task.offsets[k]} of ${task.path}]` };
    return r;
  };
  if (job.kind === 'inflate') {
    let inflated = 0;
    for (let k = 0; k < n; k++) {
      try {
        inflated += payloadJson(buf.subarray(task.offsets[k]! - start, task.offsets[k + 1]! - start))?.length ?? 0;
      } catch {
        // too large: counts nothing
      }
    }
    return { kind: 'inflate', inflated, bytes };
  }
  if (job.kind === 'facts') {
    const facts: RecordFacts[] = [];
    for (let k = 0; k < n; k++) facts.push(factsOf(rec(k, {})));
    return { kind: 'facts', facts, bytes };
  }
  if (job.kind === 'export') {
    const out = exportOut;
    let rows = 0,
      corrupt = 0;
    const errors: ExportChunk['errors'] = [];
    for (let k = 0; k < n; k++) {
      const r = rec(k, { tokens: true });
      if (!r.ok) {
        corrupt++;
        if (errors.length < 10) errors.push({ index: task.first + k, error: r.error });
        continue;
      }
      for (const t of r.timelines) {
        exportLineInto(out, task.first + k, r, t);
        rows++;
      }
    }
    // The task's output moves to the writer as it is (transferred from a worker, not copied).
    const lines = out.detach(spareOut.pop());
    return { kind: 'export', chunk: { lines, rows, corrupt, errors }, bytes };
  }
  const hits: SearchHitData[] = [];
  let matches = 0;
  const needle = job.needle;
  const nb = Buffer.from(needle);
  for (let k = 0; k < n; k++) {
    const r = rec(k, { search: true, needle });
    if (!r.ok) continue;
    const h = matchScan(r, needle, nb);
    if (h) {
      hits.push({ index: task.first + k, ...h });
      matches += h.matches;
    }
  }
  return { kind: 'search', chunk: { hits, matches }, bytes };
}

type Hit = Omit<SearchHitData, 'index'>;

/**
 * Finds `needle` (lower case) in a scanned record, with the semantics of sessionsearch.ts matchRecord:
 * token text across token boundaries (per timeline), then title and task id (and content for
 * records without tokens). Matching is on the decoded text.
 */
export function matchScan(r: ScanRecord, needle: string, needleBytes: Buffer = Buffer.from(needle)): Hit | undefined {
  if (!needle) return { matches: 0, where: 'tokens' };
  let matches = 0;
  let first: { timeline: number; token: number; char: number } | undefined;
  r.timelines.forEach((t, ti) => {
    if (t.joined && t.ends) {
      // UTF-8 is self-synchronising: byte matches of a valid needle are character matches.
      // The kernels may have counted them already (for the needle the record was scanned for).
      const found = t.found?.needle === needle ? t.found : undefined;
      let pos = found ? found.at : t.joined.indexOf(needleBytes);
      if (pos < 0) return;
      if (!first) {
        let lo = 0,
          hi = t.ends.length - 1;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (t.ends[mid]! > pos) hi = mid;
          else lo = mid + 1;
        }
        const start = lo > 0 ? t.ends[lo - 1]! : 0;
        first = { timeline: ti, token: lo, char: t.joined.toString('utf8', start, pos).length };
      }
      if (found) {
        matches += found.matches;
        return;
      }
      while (pos >= 0) {
        matches++;
        pos = t.joined.indexOf(needleBytes, pos + Math.max(1, needleBytes.length));
      }
      return;
    }
    const texts = t.texts ?? r.decoded?.timelines[ti]?.text ?? [];
    const f = findInTokens([texts], needle);
    if (f.matches) {
      matches += f.matches;
      if (!first && f.first) first = { timeline: ti, token: f.first.token, char: f.first.char };
    }
  });
  if (matches > 0) return { matches, where: 'tokens', ...first };
  const lower = (s: string | undefined) => (s ?? '').toLowerCase();
  let where: MatchWhere | undefined;
  if (lower(r.title).includes(needle)) where = 'title';
  else if (lower(r.taskId).includes(needle)) where = 'task';
  else if (
    r.kind !== 'tokens' &&
    r.decoded &&
    `${r.title}\n${r.taskId ?? ''}\n${r.decoded.content}\n${r.decoded.attach}`.toLowerCase().includes(needle)
  )
    where = 'content';
  else if (`${r.title}\n${r.taskId ?? ''}\n`.toLowerCase().includes(needle)) where = 'title';
  if (!where) return undefined;
  return { matches, where };
}
