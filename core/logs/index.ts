// A streaming, incremental index of one `.json.log` (plus its loguru-rotated siblings): byte
// offsets and lengths of every record in typed arrays. Payloads stay on disk until asked for.
// One file's index is fileIndex.ts, the names of rotated siblings rotation.ts.
import { readdir, stat, type FileHandle } from 'node:fs/promises';
import { resolveInside } from '../fs/inside';
import { basename, dirname, join } from 'node:path';
import { CancelledError, FileIndex, type FileProblem, type UpdateOptions } from './fileIndex';
import { isRotatedSibling, mainFileOf, rotationKey } from './rotation';

export { CancelledError, DEFAULT_CHUNK, FileIndex, type FileProblem, type UpdateOptions } from './fileIndex';
export { isRotatedSibling, mainFileOf, rotationKey } from './rotation';

export interface RecordLocation {
  file: FileIndex;
  fileNo: number;
  local: number;
  offset: number;
  end: number;
}

/**
 * All records of a log, across rotated siblings (oldest first, the live file last), addressed
 * by a global record number.
 */
export class LogIndex {
  files: FileIndex[] = [];
  private starts: number[] = [0];
  /** The file the user opened; with `siblings`, the group's main file. */
  readonly mainPath: string;

  constructor(
    path: string,
    private readonly opts: { siblings?: boolean; within?: readonly string[] } = {},
  ) {
    this.mainPath = opts.siblings === false ? path : mainFileOf(path);
  }

  get count(): number {
    return this.starts[this.starts.length - 1]!;
  }

  get bytes(): number {
    return this.files.reduce((a, f) => a + f.scannedSize, 0);
  }

  get problems(): FileProblem[] {
    return this.files.flatMap((f) => f.problems);
  }

  /** True when the newest record may still be incomplete. */
  get tailPartial(): boolean {
    return this.files.length > 0 && this.files[this.files.length - 1]!.tailPartial;
  }

  /** The roots every file of the group must really lie in (an agent's tools); undefined: anywhere. */
  get within(): readonly string[] | undefined {
    return this.opts.within;
  }

  /** The files of the group, oldest first, the live file last. */
  async discover(): Promise<string[]> {
    if (this.opts.siblings === false) return [this.mainPath];
    const dir = dirname(this.mainPath);
    const main = basename(this.mainPath);
    let names: string[] = [];
    try {
      names = await readdir(dir);
    } catch {
      return [this.mainPath];
    }
    let rotated = names.filter((n) => isRotatedSibling(main, n));
    // A sibling whose real path leaves the roots is not one of ours (each open checks again).
    const within = this.opts.within;
    if (within) {
      const ok = await Promise.all(rotated.map(async (n) => (await resolveInside(join(dir, n), within)).ok));
      rotated = rotated.filter((_, i) => ok[i]);
    }
    const dated = await Promise.all(
      rotated.map(async (n) => {
        const { date, n: counter } = rotationKey(main, n);
        try {
          return { n, date, counter, t: (await stat(join(dir, n))).mtimeMs };
        } catch {
          return { n, date, counter, t: 0 };
        }
      }),
    );
    // loguru names rotated files by time (then a counter), so that is time order; mtime breaks ties.
    dated.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.counter !== b.counter ? a.counter - b.counter : a.t - b.t));
    return [...dated.map((d) => join(dir, d.n)), this.mainPath];
  }

  /**
   * Brings the index up to date. Returns 'reset' when records already reported may have
   * changed (rotation, truncation), 'grown' when records were only appended.
   */
  async update(opts: UpdateOptions & { onRecords?: (count: number) => void } = {}): Promise<'unchanged' | 'grown' | 'reset'> {
    const paths = await this.discover();
    let outcome: 'unchanged' | 'grown' | 'reset' = 'unchanged';
    const oldPaths = this.files.map((f) => f.path);
    const sameList = oldPaths.length === paths.length && oldPaths.every((p, i) => p === paths[i]);
    if (!sameList) {
      // Keep the indexes of files we already know (a rotation renames the live file: its
      // content now lives under a new name, which we index again).
      const byPath = new Map(this.files.map((f) => [f.path, f]));
      const prevCount = this.count;
      this.files = paths.map((p) => byPath.get(p) ?? new FileIndex(p, this.opts.within));
      const prefixKept = paths.length >= oldPaths.length && oldPaths.every((p, i) => p === paths[i]);
      if (!prefixKept && prevCount > 0) outcome = 'reset';
    }
    const total = await this.totalSize();
    let before = 0;
    for (let k = 0; k < this.files.length; k++) {
      const f = this.files[k]!;
      const base = this.startOfFile(k);
      const r = await f.update({
        ...opts,
        progress: (done) => {
          this.recount();
          opts.progress?.(before + done, total);
          opts.onRecords?.(base + f.count);
        },
      });
      before += f.scannedSize;
      if (r === 'reset' && outcome !== 'reset' && base + f.count > 0) outcome = 'reset';
      else if (r === 'grown' && outcome === 'unchanged') outcome = 'grown';
      this.recount();
    }
    if (!sameList && outcome === 'unchanged') outcome = 'grown';
    return outcome;
  }

  private async totalSize(): Promise<number> {
    let t = 0;
    for (const f of this.files) {
      try {
        t += (await stat(f.path)).size;
      } catch {
        // vanished: counts as empty
      }
    }
    return t;
  }

  /** Global number of the first record of file k. */
  startOfFile(k: number): number {
    let s = 0;
    for (let j = 0; j < k; j++) s += this.files[j]!.count;
    return s;
  }

  private recount(): void {
    const s = [0];
    for (const f of this.files) s.push(s[s.length - 1]! + f.count);
    this.starts = s;
  }

  locate(i: number): RecordLocation | undefined {
    if (!Number.isInteger(i) || i < 0 || i >= this.count) return undefined;
    // The last file starting at or before i (a group has a handful of files: a scan from the end).
    let k = this.files.length - 1;
    while (k > 0 && this.starts[k]! > i) k--;
    const file = this.files[k]!;
    const local = i - this.starts[k]!;
    return { file, fileNo: k, local, offset: file.offset(local), end: file.end(local) };
  }

  /** Header time (UTC ms of the local timestamp as written) of record i. */
  time(i: number): number | undefined {
    const loc = this.locate(i);
    return loc ? loc.file.times.data[loc.local] : undefined;
  }

  /** Reads the raw bytes of record i (header line and payload). */
  async readRecord(i: number, maxBytes = Infinity): Promise<Buffer | undefined> {
    const loc = this.locate(i);
    if (!loc) return undefined;
    const len = Math.min(loc.end - loc.offset, maxBytes);
    const buf = Buffer.allocUnsafe(len);
    const fh = await loc.file.openForRead();
    try {
      let got = 0;
      while (got < len) {
        const { bytesRead } = await fh.read(buf, got, len - got, loc.offset + got);
        if (bytesRead <= 0) break;
        got += bytesRead;
      }
      return buf.subarray(0, got);
    } finally {
      await fh.close();
    }
  }

  /**
   * Reads the first bytes of many records (one open handle per file, a few reads in flight);
   * `each` sees them in record order.
   */
  async readPrefixes(
    from: number,
    to: number,
    maxBytes: number,
    each: (i: number, bytes: Buffer, complete: boolean) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const IN_FLIGHT = 16;
    const handles = new Map<number, Promise<FileHandle>>();
    const bufs = Array.from({ length: IN_FLIGHT }, () => Buffer.allocUnsafe(maxBytes));
    const handle = (loc: RecordLocation) => {
      let fh = handles.get(loc.fileNo);
      if (!fh) {
        fh = loc.file.openForRead();
        handles.set(loc.fileNo, fh);
      }
      return fh;
    };
    try {
      for (let start = from; start < to; start += IN_FLIGHT) {
        if (signal?.aborted) throw new CancelledError();
        const reads: Promise<{ i: number; n: number; complete: boolean }>[] = [];
        for (let i = start; i < Math.min(to, start + IN_FLIGHT); i++) {
          const loc = this.locate(i);
          if (!loc) break;
          const buf = bufs[i - start]!;
          const len = Math.min(loc.end - loc.offset, maxBytes);
          reads.push(
            handle(loc)
              .then((fh) => fh.read(buf, 0, len, loc.offset))
              .then(({ bytesRead }) => ({ i, n: bytesRead, complete: loc.end - loc.offset <= maxBytes })),
          );
        }
        for (const r of await Promise.all(reads)) each(r.i, bufs[r.i - start]!.subarray(0, r.n), r.complete);
        if (reads.length === 0) break;
      }
    } finally {
      for (const fh of handles.values()) await (await fh.catch(() => undefined))?.close();
    }
  }
}
