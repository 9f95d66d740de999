// Sidecar cache of per-record facts (and the record index) of token log files, so that a second
// look at an unchanged file is nearly free and a grown file is read from where it was left.
// One JSON file per log file in a cache folder (the extension's storage, or the CLI's cache
// folder), keyed by the file's identity (device, inode), size and mtime, with fingerprints of
// the file's first bytes and of its last cached record to catch rewrites. Written atomically
// (temp file + rename) so that concurrent readers never see half a cache; bounded in total size.
import { createHash } from 'node:crypto';
import { openInside } from '../fs/inside';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { FileIndex, FileProblem } from './index';
import type { RecordFacts } from './jobs';

const VERSION = 2;
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
  ) {}

  private fileFor(path: string): string {
    return join(this.dir, createHash('sha1').update(path).digest('hex') + '.json');
  }

  private async load(path: string): Promise<Entry | undefined> {
    try {
      const e = JSON.parse(await readFile(this.fileFor(path), 'utf8')) as Entry;
      return e.v === VERSION && e.path === path && Array.isArray(e.offsets) && Array.isArray(e.facts) ? e : undefined;
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
    const keep = file.tailPartial ? n - 1 : n;
    const offsets = Array.from(file.offsets.data.subarray(0, n));
    const entry: Entry = {
      v: VERSION,
      path: file.path,
      dev: st.dev,
      ino: st.ino,
      size: st.size,
      mtimeMs: st.mtimeMs,
      scannedSize: file.scannedSize,
      tailPartial: file.tailPartial,
      offsets,
      times: Array.from(file.times.data.subarray(0, n)),
      problems: file.problems,
      head: await printAt(file.path, 0, Math.min(PRINT, st.size), file.within),
      last: n ? await printAt(file.path, offsets[n - 1]!, Math.min(PRINT, st.size - offsets[n - 1]!), file.within) : '',
      facts: facts.slice(0, Math.max(0, keep)),
    };
    await mkdir(this.dir, { recursive: true });
    const target = this.fileFor(file.path);
    const tmp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(tmp, JSON.stringify(entry));
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
