// The validator's file system for a thread that must never block (the extension host's agent
// tools): the validator asks synchronously, so this answers only from what it already fetched and
// notes every question it could not answer. The caller then fetches those asynchronously (`fill`)
// and checks the file again, until a pass asks nothing new: the last pass saw the same disk the
// blocking CachedFs would have, without a synchronous call.
import { open, readdir, stat } from 'node:fs/promises';
import { LineMatcher, type ConfigFs } from './fs';
import { mapLimit } from '../fs/seam';

type Hit = { line: number; character: number } | null | undefined;

/** Largest file `findLine` scans (as CachedFs). */
const MAX_SCAN_BYTES = 256 * 1024 * 1024;

/** File-system calls in flight while filling. */
const CONCURRENCY = 16;

/** `scanLines` of core/config/fs.ts without blocking: the first line of `path` that `re` matches. */
export async function scanLinesAsync(path: string, re: RegExp, maxBytes = MAX_SCAN_BYTES, chunkBytes = 1 << 20): Promise<Hit> {
  let fh;
  try {
    const st = await stat(path);
    if (!st.isFile() || st.size > maxBytes) return undefined;
    fh = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(chunkBytes);
    const lines = new LineMatcher(re, maxBytes);
    for (;;) {
      const hit = lines.feed(buf, (await fh.read(buf, 0, buf.length, null)).bytesRead);
      if (hit !== 'more') return hit;
    }
  } catch {
    return undefined;
  } finally {
    await fh.close().catch(() => undefined);
  }
}

interface Scan {
  path: string;
  re: RegExp;
  maxBytes: number;
}

export class PrefetchFs implements ConfigFs {
  private readonly kinds = new Map<string, 'file' | 'dir' | undefined>();
  private readonly texts = new Map<string, string | undefined>();
  private readonly lists = new Map<string, string[]>();
  private readonly sizes = new Map<string, number | undefined>();
  private readonly scans = new Map<string, Hit>();
  private readonly wanted = {
    kinds: new Set<string>(),
    texts: new Set<string>(),
    lists: new Set<string>(),
    sizes: new Set<string>(),
    scans: new Map<string, Scan>(),
  };

  constructor(private readonly maxReadBytes = 4_000_000) {}

  /** Questions asked since the last `fill` that it could not answer. */
  get misses(): number {
    const w = this.wanted;
    return w.kinds.size + w.texts.size + w.lists.size + w.sizes.size + w.scans.size;
  }

  kind(path: string): 'file' | 'dir' | undefined {
    if (this.kinds.has(path)) return this.kinds.get(path);
    this.wanted.kinds.add(path);
    return undefined;
  }

  read(path: string): string | undefined {
    if (this.texts.has(path)) return this.texts.get(path);
    this.wanted.texts.add(path);
    return undefined;
  }

  list(dir: string): string[] {
    const v = this.lists.get(dir);
    if (v) return v;
    this.wanted.lists.add(dir);
    return [];
  }

  size(path: string): number | undefined {
    if (this.sizes.has(path)) return this.sizes.get(path);
    this.wanted.sizes.add(path);
    return undefined;
  }

  findLine(path: string, re: RegExp, maxBytes = MAX_SCAN_BYTES): Hit {
    const key = `${path}\0${re.source}\0${re.flags}\0${maxBytes}`;
    if (this.scans.has(key)) return this.scans.get(key);
    this.wanted.scans.set(key, { path, re, maxBytes });
    return undefined;
  }

  /** Fetches, asynchronously, everything asked and not known; stops early when `signal` aborts. */
  async fill(signal?: AbortSignal): Promise<void> {
    const w = this.wanted;
    const kinds = [...w.kinds, ...w.sizes].filter((p, i, a) => a.indexOf(p) === i);
    const texts = [...w.texts];
    const lists = [...w.lists];
    const scans = [...w.scans];
    w.kinds.clear();
    w.sizes.clear();
    w.texts.clear();
    w.lists.clear();
    w.scans.clear();
    const live = () => signal?.aborted !== true;
    await Promise.all([
      mapLimit(kinds, CONCURRENCY, async (p) => {
        if (!live()) return;
        const st = await stat(p).catch(() => undefined);
        this.kinds.set(p, st?.isDirectory() ? 'dir' : st?.isFile() ? 'file' : undefined);
        this.sizes.set(p, st?.isFile() ? st.size : undefined);
      }),
      mapLimit(texts, CONCURRENCY, async (p) => {
        if (!live()) return;
        const st = await stat(p).catch(() => undefined);
        let text: string | undefined;
        if (st?.isFile() && st.size <= this.maxReadBytes) {
          const fh = await open(p, 'r').catch(() => undefined);
          if (fh)
            try {
              const buf = Buffer.alloc(st.size);
              const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
              text = buf.subarray(0, bytesRead).toString('utf8');
            } catch {
              text = undefined;
            } finally {
              await fh.close().catch(() => undefined);
            }
        }
        this.texts.set(p, text);
      }),
      mapLimit(lists, CONCURRENCY, async (d) => {
        if (!live()) return;
        this.lists.set(d, await readdir(d).catch(() => []));
      }),
      mapLimit(scans, 2, async ([key, s]) => {
        if (!live()) return;
        this.scans.set(key, await scanLinesAsync(s.path, s.re, s.maxBytes));
      }),
    ]);
  }
}
