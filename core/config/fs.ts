// File-system access for the validator, behind an interface so tests and the server can cache.
// Files are read through the open-time real-path check (core/fs/inside.ts, openInsideSync) when the
// caller names the folders they must lie in: a link out of them is not read, a FIFO never waited on.
import { statSync, readdirSync, readSync, closeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { openInsideSync, resolveInsideSync } from '../fs/inside';

export interface ConfigFs {
  /** 'file', 'dir' or undefined when missing. */
  kind(path: string): 'file' | 'dir' | undefined;
  /** The file's text; undefined when missing, too large, or (with `within`) its real path is outside those folders. */
  read(path: string, within?: readonly string[]): string | undefined;
  list(dir: string): string[];
  /** Size of a regular file in bytes (undefined when missing or not a regular file). */
  size?(path: string): number | undefined;
  /**
   * The first line of a file (of any size up to `maxBytes`) that `re` matches, read in chunks: for
   * files too large for `read`. Null when no line matches; undefined when the file cannot be read
   * or is larger than `maxBytes`.
   */
  findLine?(
    path: string,
    re: RegExp,
    maxBytes?: number,
    within?: readonly string[],
  ): { line: number; character: number } | null | undefined;
  /** True when `path` exists and its real path lies outside every folder of `within` (it is not read). */
  outside?(path: string, within: readonly string[]): boolean;
}

/** The text of a regular file (read through openInsideSync), undefined when larger than `maxBytes`. Throws as openInsideSync does. */
function readTextInside(path: string, within: readonly string[] | undefined, maxBytes: number): string | undefined {
  const { handle: fd, stat } = openInsideSync(path, within);
  try {
    if (stat.size > maxBytes) return undefined;
    const buf = Buffer.allocUnsafe(stat.size);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (!n) break;
      got += n;
    }
    return buf.subarray(0, got).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

const scopeKey = (within: readonly string[] | undefined) => (within ? within.join('\0') : '*');

/** Largest file `findLine` scans (a generated module of that size is already an oddity). */
const MAX_SCAN_BYTES = 256 * 1024 * 1024;

/**
 * The first line a regular expression matches, fed a file's bytes chunk by chunk (the same for the
 * blocking and the asynchronous reader): 0-based line and column, `null` at the end without a match,
 * `undefined` once more than `maxBytes` came (the file grew while read), `'more'` to go on.
 */
export class LineMatcher {
  private readonly dec = new StringDecoder('utf8');
  private carry = '';
  private line = 0;
  private total = 0;
  constructor(
    private readonly re: RegExp,
    private readonly maxBytes: number,
  ) {}

  feed(buf: Buffer, n: number): { line: number; character: number } | null | undefined | 'more' {
    this.total += n;
    if (this.total > this.maxBytes) return undefined;
    const chunk = n > 0 ? this.carry + this.dec.write(buf.subarray(0, n)) : this.carry + this.dec.end();
    const parts = chunk.split('\n');
    this.carry = n > 0 ? (parts.pop() ?? '') : '';
    for (const part of parts) {
      const m = this.re.exec(part.endsWith('\r') ? part.slice(0, -1) : part);
      if (m) return { line: this.line, character: m.index };
      this.line++;
    }
    return n === 0 ? null : 'more';
  }
}

/** Streams `path` line by line for the first match of `re` (see ConfigFs.findLine). */
export function scanLines(
  path: string,
  re: RegExp,
  maxBytes = MAX_SCAN_BYTES,
  chunkBytes = 1 << 20,
  within?: readonly string[],
): { line: number; character: number } | null | undefined {
  let fd: number;
  try {
    const opened = openInsideSync(path, within);
    fd = opened.handle;
    if (opened.stat.size > maxBytes) {
      closeSync(fd);
      return undefined;
    }
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(chunkBytes);
    const lines = new LineMatcher(re, maxBytes);
    for (;;) {
      const hit = lines.feed(buf, readSync(fd, buf, 0, buf.length, null));
      if (hit !== 'more') return hit;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Node fs with a short-lived cache (validation runs on every keystroke). */
export class CachedFs implements ConfigFs {
  private kinds = new Map<string, { t: number; v: 'file' | 'dir' | undefined }>();
  private texts = new Map<string, { t: number; mtime: number; v: string | undefined }>();
  private lists = new Map<string, { t: number; v: string[] }>();
  private scans = new Map<string, { stamp: string; v: { line: number; character: number } | null | undefined }>();
  constructor(
    private readonly ttlMs = 2000,
    private readonly maxReadBytes = 4_000_000,
  ) {}

  kind(path: string): 'file' | 'dir' | undefined {
    const now = Date.now();
    const c = this.kinds.get(path);
    if (c && now - c.t < this.ttlMs) return c.v;
    let v: 'file' | 'dir' | undefined;
    try {
      const s = statSync(path);
      v = s.isDirectory() ? 'dir' : s.isFile() ? 'file' : undefined;
    } catch {
      v = undefined;
    }
    this.kinds.set(path, { t: now, v });
    return v;
  }
  read(path: string, within?: readonly string[]): string | undefined {
    const now = Date.now();
    const key = `${path}\0${scopeKey(within)}`;
    const c = this.texts.get(key);
    if (c && now - c.t < this.ttlMs) return c.v;
    let v: string | undefined;
    let mtime = 0;
    try {
      const s = statSync(path);
      mtime = s.mtimeMs;
      if (c && c.mtime === mtime) {
        c.t = now;
        return c.v;
      }
      v = s.isFile() && s.size <= this.maxReadBytes ? readTextInside(path, within, this.maxReadBytes) : undefined;
    } catch {
      v = undefined;
    }
    if (this.texts.size > 4096) this.texts.clear();
    this.texts.set(key, { t: now, mtime, v });
    return v;
  }
  outside(path: string, within: readonly string[]): boolean {
    const r = resolveInsideSync(path, within);
    return !r.ok && r.reason === 'outside the allowed folders';
  }
  size(path: string): number | undefined {
    try {
      const s = statSync(path);
      return s.isFile() ? s.size : undefined;
    } catch {
      return undefined;
    }
  }
  /** Memoised per file, pattern, size and modification time: the scan of a huge file runs once. */
  findLine(
    path: string,
    re: RegExp,
    maxBytes = MAX_SCAN_BYTES,
    within?: readonly string[],
  ): { line: number; character: number } | null | undefined {
    let stamp: string;
    try {
      const s = statSync(path);
      stamp = `${s.size}:${s.mtimeMs}`;
    } catch {
      return undefined;
    }
    const key = `${path}\0${re.source}\0${re.flags}\0${maxBytes}\0${scopeKey(within)}`;
    const c = this.scans.get(key);
    if (c && c.stamp === stamp) return c.v;
    const v = scanLines(path, re, maxBytes, undefined, within);
    if (this.scans.size > 256) this.scans.clear();
    this.scans.set(key, { stamp, v });
    return v;
  }
  list(dir: string): string[] {
    const now = Date.now();
    const c = this.lists.get(dir);
    if (c && now - c.t < this.ttlMs) return c.v;
    let v: string[];
    try {
      v = readdirSync(dir);
    } catch {
      v = [];
    }
    this.lists.set(dir, { t: now, v });
    return v;
  }
}
