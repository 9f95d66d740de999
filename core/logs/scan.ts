// Byte-level record boundary scanner for `.json.log` files. It looks only at the bytes after a
// newline: a record starts where a line begins with a loguru timestamp and parses as a header.
// Payload bytes are never converted to strings here, which is what makes indexing fast.
import { HEADER_RE } from './record';

const NL = 10;
const D0 = 48,
  D9 = 57;
/** Bytes needed to recognise `YYYY-MM-DD HH:MM:SS` at a line start. */
export const PROBE = 19;
/** Header lines longer than this are parsed from their prefix; chunks must be at least twice this. */
export const MAX_HEADER = 4096;
export const MIN_CHUNK = 2 * MAX_HEADER;

/** `YYYY-MM-DD HH:MM:SS`, byte by byte: 0 stands for a digit, anything else for itself. */
const PATTERN = Uint8Array.from('dddd-dd-dd dd:dd:dd', (ch) => (ch === 'd' ? 0 : ch.charCodeAt(0)));

/** True when the `n - i` bytes at `b[i..]` (at most PATTERN's length) follow the timestamp pattern. */
function matchesPattern(b: Uint8Array, i: number, n: number): boolean {
  for (let k = 0; k < n; k++) {
    const c = b[i + k]!;
    const p = PATTERN[k]!;
    if (p === 0 ? !(c >= D0 && c <= D9) : c !== p) return false;
  }
  return true;
}

/** True when `b[i..]` starts with `YYYY-MM-DD HH:MM:SS` (caller ensures PROBE bytes exist). */
export function looksLikeTimestamp(b: Uint8Array, i: number): boolean {
  return matchesPattern(b, i, PROBE);
}

/** True when `b[i..n)` could be the start of a timestamp (a header still being written). */
export function couldBeTimestampPrefix(b: Uint8Array, i: number, n: number): boolean {
  return matchesPattern(b, i, Math.min(n - i, PROBE));
}

/** Parses a header line's prefix (`YYYY-MM-DD HH:MM:SS.mmm | LEVEL | src - msg`); the time as UTC ms. */
export function headerTime(b: Buffer, start: number, end: number): number | undefined {
  const line = b.toString('latin1', start, Math.min(end, start + 512)).replace(/\r$/, '');
  const m = HEADER_RE.exec(line);
  if (!m) return undefined;
  const t = m[1]!;
  const ms = Date.UTC(
    +t.slice(0, 4),
    +t.slice(5, 7) - 1,
    +t.slice(8, 10),
    +t.slice(11, 13),
    +t.slice(14, 16),
    +t.slice(17, 19),
    t.length > 20 ? Math.round(Number('0.' + t.slice(20)) * 1000) : 0,
  );
  return Number.isFinite(ms) ? ms : undefined;
}

/** Where the scanner found something other than records (text before the first header). */
export interface ScanProblem {
  offset: number;
  length: number;
  reason: string;
}

export interface ScanSink {
  /** A record starts at `offset` (its header line); the previous one, if any, ends there. */
  recordStart(offset: number, timeMs: number): void;
  /** At the end of the data, an unfinished line from `offset` may become a header: not indexed yet. */
  pendingTail?(offset: number): void;
  problem(p: ScanProblem): void;
}

/**
 * Resumable scanner over one file's bytes. Feed it chunks in order (`feed`), each starting where
 * the previous `feed` asked (`resumeAt`); it reports record starts to the sink.
 */
export class BoundaryScanner {
  /** Absolute offset of the next byte the scanner wants. */
  resumeAt: number;
  /** Whether `resumeAt` is at the start of a line. */
  private atLineStart: boolean;
  private sawRecord: boolean;
  private preambleStart = -1;
  private preambleNonBlank = false;

  constructor(
    private readonly sink: ScanSink,
    start = 0,
    sawRecord = false,
  ) {
    this.resumeAt = start;
    this.atLineStart = true;
    this.sawRecord = sawRecord;
    if (!sawRecord) this.preambleStart = start;
  }

  /**
   * Scans `b[0..n)`, which holds the file bytes from `base` (= resumeAt). `eof` says no more bytes
   * follow for now. Afterwards `resumeAt` tells where the next chunk must start.
   */
  feed(b: Buffer, n: number, base: number, eof: boolean): void {
    let i = 0;
    if (!this.atLineStart) {
      const e = b.indexOf(NL, 0);
      if (e < 0 || e >= n) {
        this.trackPreamble(b, 0, n);
        this.resumeAt = base + n;
        return;
      }
      this.trackPreamble(b, 0, e + 1);
      i = e + 1;
      this.atLineStart = true;
    }
    while (i < n) {
      if (n - i < PROBE && !eof) {
        this.resumeAt = base + i;
        this.atLineStart = true;
        return;
      }
      let e = b.indexOf(NL, i);
      if (e >= n) e = -1;
      if (e < 0 && eof && couldBeTimestampPrefix(b, i, n) && (n - i < PROBE || headerTime(b, i, n) === undefined)) {
        // The writer is mid-way through a header line: leave it for the next update.
        this.closePreamble(base + i);
        this.sink.pendingTail?.(base + i);
        this.resumeAt = base + i;
        this.atLineStart = true;
        return;
      }
      if (n - i >= PROBE && looksLikeTimestamp(b, i)) {
        if (e < 0 && !eof && n - i < MAX_HEADER) {
          this.resumeAt = base + i;
          this.atLineStart = true;
          return;
        }
        const time = headerTime(b, i, e < 0 ? n : e);
        if (time !== undefined) {
          this.closePreamble(base + i);
          this.sawRecord = true;
          this.sink.recordStart(base + i, time);
        } else {
          this.trackPreamble(b, i, e < 0 ? n : e + 1);
        }
      } else {
        this.trackPreamble(b, i, e < 0 ? n : e + 1);
      }
      if (e < 0) {
        this.resumeAt = base + n;
        this.atLineStart = false;
        if (eof) this.closePreamble(base + n);
        return;
      }
      i = e + 1;
    }
    this.resumeAt = base + n;
    this.atLineStart = true;
    if (eof) this.closePreamble(base + n);
  }

  private trackPreamble(b: Buffer, from: number, to: number): void {
    if (this.sawRecord) return;
    if (this.preambleNonBlank) return;
    for (let k = from; k < to; k++) {
      const c = b[k]!;
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) {
        this.preambleNonBlank = true;
        return;
      }
    }
  }

  private closePreamble(at: number): void {
    if (this.preambleStart >= 0 && this.preambleNonBlank && at > this.preambleStart) {
      this.sink.problem({ offset: this.preambleStart, length: at - this.preambleStart, reason: 'text before the first record header' });
    }
    this.preambleStart = -1;
    this.preambleNonBlank = false;
  }
}
