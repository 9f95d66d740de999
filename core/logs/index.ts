// A streaming, incremental index of one `.json.log` (plus its loguru-rotated siblings): byte
// offsets and lengths of every record in typed arrays. Payloads stay on disk until asked for.
import { open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { BoundaryScanner, MIN_CHUNK, type ScanProblem } from './scan';

export const DEFAULT_CHUNK = 4 * 1024 * 1024;

/** Growable column of numbers backed by a typed array. */
class Column<T extends Float64Array | Uint32Array> {
  data: T;
  constructor(
    private readonly make: (n: number) => T,
    initial = 1024,
  ) {
    this.data = make(initial);
  }
  ensure(n: number): void {
    if (n <= this.data.length) return;
    let size = this.data.length * 2;
    while (size < n) size *= 2;
    const next = this.make(size);
    next.set(this.data);
    this.data = next;
  }
}

export interface FileProblem extends ScanProblem {
  file: string;
}

/** The records of one file. */
export class FileIndex {
  count = 0;
  /** Bytes of the file covered by the index (its size when last scanned). */
  scannedSize = 0;
  /** True when the last record does not end with a newline: still being written, or cut off. */
  tailPartial = false;
  /** File size at the last update (may exceed scannedSize by an unfinished header line). */
  fileSize = -1;
  problems: FileProblem[] = [];
  ino = -1;
  readonly offsets = new Column((n) => new Float64Array(n));
  readonly times = new Column((n) => new Float64Array(n));

  constructor(readonly path: string) {}

  offset(i: number): number {
    return this.offsets.data[i]!;
  }

  /** Record i spans [offset(i), end(i)). */
  end(i: number): number {
    return i + 1 < this.count ? this.offsets.data[i + 1]! : this.scannedSize;
  }

  /** Restores an index saved earlier (cache.ts); `update` then reads only what follows. */
  seed(saved: { offsets: number[]; times: number[]; scannedSize: number; fileSize: number; ino: number; tailPartial: boolean }): void {
    this.reset();
    this.offsets.ensure(saved.offsets.length);
    this.times.ensure(saved.offsets.length);
    this.offsets.data.set(saved.offsets);
    this.times.data.set(saved.times);
    this.count = saved.offsets.length;
    this.scannedSize = saved.scannedSize;
    this.fileSize = saved.fileSize;
    this.ino = saved.ino;
    this.tailPartial = saved.tailPartial;
  }

  /** How many times the index was dropped (rewrite, truncation, new inode, seeding). */
  resets = 0;

  reset(): void {
    this.resets++;
    this.count = 0;
    this.scannedSize = 0;
    this.fileSize = -1;
    this.tailPartial = false;
    this.problems = [];
  }

  /**
   * Indexes new bytes. The last record is re-scanned each time because it may have been
   * incomplete; everything before it is kept. Calls `progress` after each chunk.
   */
  async update(opts: UpdateOptions = {}): Promise<'unchanged' | 'grown' | 'reset'> {
    let st;
    try {
      st = await stat(this.path);
    } catch {
      if (this.count === 0 && this.scannedSize === 0) return 'unchanged';
      this.reset();
      return 'reset';
    }
    let outcome: 'grown' | 'reset' = 'grown';
    if (this.ino !== -1 && st.ino !== this.ino) {
      this.reset();
      outcome = 'reset';
    } else if (st.size < this.scannedSize) {
      this.reset();
      outcome = 'reset';
    } else if (st.size === this.scannedSize || st.size === this.fileSize) return 'unchanged';
    this.ino = st.ino;
    const fileSize = st.size;
    // Resume at the last record: it may have been incomplete.
    const restart = this.count > 0 ? this.offsets.data[this.count - 1]! : 0;
    const hadRecords = this.count > 0;
    if (this.count > 0) this.count--;
    this.problems = this.problems.filter((p) => p.offset < restart);
    const fh = await open(this.path, 'r');
    try {
      // A header still being written at the end is left out until it is complete.
      const covered = await this.scan(fh, restart, fileSize, hadRecords, opts);
      this.scannedSize = covered;
      this.fileSize = fileSize;
      this.tailPartial = false;
      if (this.count > 0 && covered > 0) {
        const last = Buffer.alloc(1);
        const { bytesRead } = await fh.read(last, 0, 1, covered - 1);
        this.tailPartial = bytesRead === 1 && last[0] !== 10;
      }
    } finally {
      await fh.close();
    }
    return outcome;
  }

  private async scan(fh: FileHandle, start: number, size: number, sawRecord: boolean, opts: UpdateOptions): Promise<number> {
    const chunk = Math.max(MIN_CHUNK, opts.chunkSize ?? DEFAULT_CHUNK);
    const buf = Buffer.allocUnsafe(chunk);
    const scanner = new BoundaryScanner(
      {
        recordStart: (offset, time) => {
          this.offsets.ensure(this.count + 1);
          this.times.ensure(this.count + 1);
          this.offsets.data[this.count] = offset;
          this.times.data[this.count] = time;
          this.count++;
        },
        problem: (p) => {
          this.problems.push({ ...p, file: this.path });
        },
        pendingTail: (offset) => {
          pending = offset;
        },
      },
      start,
      sawRecord,
    );
    let pending = -1;
    while (scanner.resumeAt < size) {
      if (opts.signal?.aborted) throw new CancelledError();
      const base = scanner.resumeAt;
      const want = Math.min(chunk, size - base);
      const { bytesRead } = await fh.read(buf, 0, want, base);
      if (bytesRead <= 0) break;
      const eof = base + bytesRead >= size;
      scanner.feed(buf.subarray(0, bytesRead), bytesRead, base, eof);
      // Progress counts bytes up to the last record start, so nothing reported moves later.
      this.scannedSize = Math.max(this.scannedSize, scanner.resumeAt);
      opts.progress?.(scanner.resumeAt, size);
      if (pending >= 0 || scanner.resumeAt === base) break; // the latter guards a loop; MIN_CHUNK prevents it
    }
    return pending >= 0 ? pending : size;
  }
}

export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

export interface UpdateOptions {
  signal?: AbortSignal;
  chunkSize?: number;
  /** Bytes done / total of the file being indexed. */
  progress?: (done: number, total: number) => void;
}

/** Rotated siblings of `dir/stem.json.log` are `stem.json.<time>.log` (loguru rotation). */
export function isRotatedSibling(main: string, candidate: string): boolean {
  const m = /^(.*)\.json\.log$/.exec(main);
  if (!m) return false;
  const prefix = `${m[1]}.json.`;
  return candidate !== main && candidate.startsWith(prefix) && candidate.endsWith('.log') && candidate.length > prefix.length + 4;
}

/**
 * Sort key of a rotated sibling's middle part. loguru renames `stem.json.log` to
 * `stem.json.<date>.log` and, when that name is taken, `stem.json.<date>.<n>.log` (n = 2, 3, ...),
 * so `<date>.2` comes after `<date>` (a plain name sort puts it first: '2' < 'l').
 */
export function rotationKey(main: string, candidate: string): { date: string; n: number } {
  const m = /^(.*)\.json\.log$/.exec(main);
  const mid = m ? candidate.slice(m[1]!.length + '.json.'.length, -'.log'.length) : candidate;
  const c = /^(.*)\.(\d+)$/.exec(mid);
  return c ? { date: c[1]!, n: Number(c[2]) } : { date: mid, n: 1 };
}

/** The main file of the group a file belongs to (`stem.json.<time>.log` -> `stem.json.log`). */
export function mainFileOf(path: string): string {
  const name = basename(path);
  const m = /^(.*?\.json)\.[^/]+\.log$/.exec(name);
  if (m && !name.endsWith('.json.log')) return join(dirname(path), `${m[1]}.log`);
  return path;
}

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
    private readonly opts: { siblings?: boolean } = {},
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
    const rotated = names.filter((n) => isRotatedSibling(main, n));
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
      this.files = paths.map((p) => byPath.get(p) ?? new FileIndex(p));
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
    let lo = 0,
      hi = this.files.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    const file = this.files[lo]!;
    const local = i - this.starts[lo]!;
    return { file, fileNo: lo, local, offset: file.offset(local), end: file.end(local) };
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
    const fh = await open(loc.file.path, 'r');
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
        fh = open(loc.file.path, 'r');
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
