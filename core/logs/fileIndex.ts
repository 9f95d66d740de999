// The index of one log file: the byte offset and header time of every record, in typed arrays,
// grown by scanning only what was appended (scan.ts finds the record boundaries).
import type { FileHandle } from 'node:fs/promises';
import { openInside, RefusedPathError } from '../fs/inside';
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

  /**
   * `within`: the roots the file must really lie in, checked at every open (an agent's tools);
   * undefined for a file a person chose.
   */
  constructor(
    readonly path: string,
    readonly within?: readonly string[],
  ) {}

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
    // Opened first, then looked at: what is indexed is what was checked (core/fs/inside.ts).
    let opened;
    try {
      opened = await openInside(this.path, this.within);
    } catch (err) {
      if (err instanceof RefusedPathError) {
        // A FIFO would block, a device never ends, a link out of the roots is not ours: nothing to index, and said so.
        const had = this.count > 0;
        this.reset();
        this.problems = [
          {
            offset: 0,
            length: 0,
            reason:
              err.code === 'ENOTREG'
                ? 'not a regular file (a FIFO, device or folder): not read'
                : 'outside the folders this reader may open (a link out of them): not read',
            file: this.path,
          },
        ];
        return had ? 'reset' : 'unchanged';
      }
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'EMFILE' || code === 'ENFILE') throw err;
      if (this.count === 0 && this.scannedSize === 0) return 'unchanged';
      this.reset();
      return 'reset';
    }
    const fh = opened.handle;
    const st = opened.stat;
    try {
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
      return outcome;
    } finally {
      await fh.close();
    }
  }

  /**
   * Opens the indexed file for reading its records: checked against the roots again (core/fs/inside)
   * and refused when another file took its name since it was indexed.
   */
  async openForRead(): Promise<FileHandle> {
    const { handle, stat } = await openInside(this.path, this.within);
    if (this.ino !== -1 && stat.ino !== this.ino) {
      await handle.close();
      throw Object.assign(new Error(`${this.path} changed since it was indexed: another file took its place`), { code: 'ECHANGED' });
    }
    return handle;
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
