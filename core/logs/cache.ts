// Sidecar cache of per-record facts (and the record index) of token log files, so that a second
// look at an unchanged file is nearly free and a grown file is read from where it was left.
// One file per log file in a cache folder (the extension's storage, or the CLI's cache
// folder), keyed by the file's identity (device, inode), size and mtime, with fingerprints of
// the file's first bytes and of its last cached record to catch rewrites. Written atomically
// (temp file + rename) so that concurrent readers never see half a cache; bounded in total size.
// JSON lines: a header, then the records' index and facts in slices of SLICE records, each
// written and parsed in its own turn of the event loop (a 1 GB log's 4.6 MB in one JSON.parse held
// the extension host's loop for about 50 ms).
import { createHash } from 'node:crypto';
import { openInside } from '../fs/inside';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { FileIndex, FileProblem } from './index';
import type { RecordFacts } from './jobs';

const VERSION = 3;
/** Records per line of a cache file. */
const SLICE = 2000;
/**
 * Bytes a fingerprint covers: reaching well into the payload, since a record's first line is
 * only a loguru timestamp and the same in a rewrite made within the same millisecond.
 */
const PRINT = 64 * 1024;

interface Entry {
  v: number;
  path: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  scannedSize: number;
  tailPartial: boolean;
  offsets: number[];
  times: number[];
  problems: FileProblem[];
  head: string;
  last: string;
  /** Facts of records [0, facts.length): every record but an unfinished last one. */
  facts: RecordFacts[];
}

/** The first line of a cache file: the entry without its per-record arrays, and their lengths. */
type Header = Omit<Entry, 'offsets' | 'times' | 'facts'> & { records: number; factCount: number };
/** A line after the header: offsets, times and facts of the next records (facts run out first). */
interface Slice {
  o: number[];
  t: number[];
  f: RecordFacts[];
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const isNumbers = (a: unknown): a is number[] => Array.isArray(a) && a.every((x) => typeof x === 'number');

export type CacheOutcome = 'hit' | 'extended' | 'miss' | 'invalidated';

/** The default folder for the CLI: $AGENTJET_CACHE_DIR, else $XDG_CACHE_HOME/agentjet/tokenlog. */
export function defaultCacheDir(): string {
  if (process.env.AGENTJET_CACHE_DIR) return process.env.AGENTJET_CACHE_DIR;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'agentjet', 'tokenlog');
}

/** A fingerprint of the n bytes at `at` (fewer at the end of the file). */
async function printAt(path: string, at: number, n: number, within: readonly string[] | undefined): Promise<string> {
  // Checked where it is opened: cached facts of a file outside the roots are never vouched for.
  const { handle: fh } = await openInside(path, within);
  try {
    const buf = Buffer.alloc(Math.max(0, n));
    const { bytesRead } = await fh.read(buf, 0, buf.length, at);
    return createHash('sha1').update(buf.subarray(0, bytesRead)).digest('base64');
  } finally {
    await fh.close();
  }
}

export class FactsCache {
  constructor(
    readonly dir: string,
    readonly maxBytes = 256 * 1024 * 1024,
    /** Records per line (tests use a few, to see many lines on a small log). */
    readonly slice = SLICE,
  ) {}

  private fileFor(path: string): string {
    return join(this.dir, createHash('sha1').update(path).digest('hex') + '.json');
  }

  /** The entry of `path`, parsed a line per turn of the loop; undefined when absent, old or damaged. */
  private async load(path: string): Promise<Entry | undefined> {
    try {
      const buf = await readFile(this.fileFor(path));
      // Another version's file is not parsed at all (version 2 was one line of the whole entry).
      if (!buf.subarray(0, 16).toString('latin1').startsWith(`{"v":${VERSION},`)) return undefined;
      let at = 0;
      const line = (): unknown => {
        const end = buf.indexOf(10, at);
        if (end < 0) throw new Error('cut short');
        const v: unknown = JSON.parse(buf.toString('utf8', at, end));
        at = end + 1;
        return v;
      };
      const h = line() as Header;
      if (h.v !== VERSION || h.path !== path || !(h.records >= 0) || !(h.factCount >= 0) || h.factCount > h.records) return undefined;
      const e: Entry = { ...h, offsets: [], times: [], facts: [] };
      while (e.offsets.length < h.records) {
        await turn();
        const sl = line() as Slice;
        if (!isNumbers(sl.o) || !isNumbers(sl.t) || sl.o.length !== sl.t.length || !Array.isArray(sl.f)) return undefined;
        for (const x of sl.o) e.offsets.push(x);
        for (const x of sl.t) e.times.push(x);
        for (const x of sl.f) e.facts.push(x);
      }
      return e.offsets.length === h.records && e.facts.length === h.factCount && at === buf.length ? e : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Seeds `file` from the cache when the cache still describes a prefix of it; returns the facts
   * that stay valid (records before the last seeded one, which is always read again).
   */
  async restore(file: FileIndex): Promise<{ outcome: CacheOutcome; facts: RecordFacts[] }> {
    const e = await this.load(file.path);
    if (!e) return { outcome: 'miss', facts: [] };
    let st;
    try {
      st = await stat(file.path);
    } catch {
      return { outcome: 'invalidated', facts: [] };
    }
    const same = st.ino === e.ino && st.dev === e.dev;
    const unchanged = same && st.size === e.size && st.mtimeMs === e.mtimeMs;
    const grown = same && st.size > e.size && st.mtimeMs >= e.mtimeMs;
    if (!unchanged && !grown) return { outcome: 'invalidated', facts: [] };
    // Fingerprints: the first bytes, and the start of the last cached record, both within the
    // size the cache knew (a grown file has new bytes after it).
    const lastAt = e.offsets.length ? e.offsets[e.offsets.length - 1]! : 0;
    try {
      if (
        (await printAt(file.path, 0, Math.min(PRINT, e.size), file.within)) !== e.head ||
        (e.offsets.length && (await printAt(file.path, lastAt, Math.min(PRINT, e.size - lastAt), file.within)) !== e.last)
      )
        return { outcome: 'invalidated', facts: [] };
    } catch {
      return { outcome: 'invalidated', facts: [] };
    }
    file.seed({ offsets: e.offsets, times: e.times, scannedSize: e.scannedSize, fileSize: e.size, ino: e.ino, tailPartial: e.tailPartial });
    file.problems = e.problems;
    if (unchanged) return { outcome: 'hit', facts: e.facts };
    // The last record is read again (it may have been cut short); so are its facts.
    return { outcome: 'extended', facts: e.facts.slice(0, Math.max(0, e.offsets.length - 1)) };
  }

  /** Saves the index and facts of `file` (facts[i] for its records in order). */
  async save(file: FileIndex, facts: RecordFacts[]): Promise<void> {
    let st;
    try {
      st = await stat(file.path);
    } catch {
      return;
    }
    // Only what the index covered when it was built; a file that moved on since is saved as it was.
    if (st.size !== file.fileSize || st.ino !== file.ino) return;
    const n = file.count;
    const keep = Math.min(facts.length, Math.max(0, file.tailPartial ? n - 1 : n));
    const offsets = file.offsets.data.subarray(0, n);
    const times = file.times.data.subarray(0, n);
    const header: Header = {
      v: VERSION,
      path: file.path,
      dev: st.dev,
      ino: st.ino,
      size: st.size,
      mtimeMs: st.mtimeMs,
      scannedSize: file.scannedSize,
      tailPartial: file.tailPartial,
      problems: file.problems,
      head: await printAt(file.path, 0, Math.min(PRINT, st.size), file.within),
      last: n ? await printAt(file.path, offsets[n - 1]!, Math.min(PRINT, st.size - offsets[n - 1]!), file.within) : '',
      records: n,
      factCount: keep,
    };
    await mkdir(this.dir, { recursive: true });
    const target = this.fileFor(file.path);
    const tmp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    const fh = await open(tmp, 'w');
    try {
      // Each slice is made and written in its own turn (the write's wait lets the loop in).
      await fh.write(JSON.stringify(header) + '\n');
      const step = Math.max(1, Math.floor(this.slice));
      for (let i = 0; i < n; i += step) {
        const sl: Slice = {
          o: Array.from(offsets.subarray(i, i + step)),
          t: Array.from(times.subarray(i, i + step)),
          f: facts.slice(Math.min(i, keep), Math.min(i + step, keep)),
        };
        await fh.write(JSON.stringify(sl) + '\n');
      }
    } catch (err) {
      await fh.close();
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    await fh.close();
    await rename(tmp, target);
    await this.trim();
  }

  /** Keeps the folder under maxBytes, dropping the least recently written entries. */
  private async trim(): Promise<void> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.endsWith('.json'));
    } catch {
      return;
    }
    const files = (
      await Promise.all(
        names.map(async (n) => {
          try {
            const s = await stat(join(this.dir, n));
            return { n, size: s.size, t: s.mtimeMs };
          } catch {
            return undefined;
          }
        }),
      )
    ).filter((f): f is { n: string; size: number; t: number } => f !== undefined);
    let total = files.reduce((a, f) => a + f.size, 0);
    files.sort((a, b) => a.t - b.t);
    for (const f of files) {
      if (total <= this.maxBytes) break;
      await unlink(join(this.dir, f.n)).catch(() => undefined);
      total -= f.size;
    }
  }
}
