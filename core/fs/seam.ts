// The file-system seam run discovery (and core/agentjet's readers) go through: async only, every call counted (the benchmark
// reports how much work a refresh costs), and every failure turned into a value by the callers.
import { closeSync, promises as fsp, readdirSync, readSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';
import { openInside, openInsideSync, RefusedPathError, resolveInside, resolveInsideSync } from './inside';

export interface DirEntry {
  name: string;
  /** Resolved through symlinks when the entry is one; `undefined` for a dangling or looping link. */
  kind: 'file' | 'dir' | 'other' | undefined;
  symlink: boolean;
}

export interface RunsFs {
  readdir(path: string): Promise<DirEntry[]>;
  stat(path: string): Promise<Stats>;
  /** Reads `length` bytes at `position` (clamped to the file). */
  readRange(path: string, position: number, length: number): Promise<Buffer>;
  readFile(path: string): Promise<Buffer>;
  realpath(path: string): Promise<string>;
  /** Operations performed so far (for benchmarks and tests). */
  readonly ops: number;
}

/**
 * `fs.promises` behind the seam; `hooks.before` lets tests change the tree mid-scan. With
 * `within` (the roots an agent may read), nothing outside them is listed, stat'ed or read: a link
 * out of the roots reads as a dangling one, and every file is checked where it is opened.
 */
export function nodeFs(hooks: { before?: (op: string, path: string) => void | Promise<void>; within?: readonly string[] } = {}): RunsFs {
  let ops = 0;
  const within = hooks.within;
  const inside = async (path: string): Promise<void> => {
    if (!within) return;
    const r = await resolveInside(path, within);
    if (!r.ok && r.reason === 'outside the allowed folders') throw new RefusedPathError(path, 'EOUTSIDE');
  };
  const before = async (op: string, path: string): Promise<void> => {
    ops++;
    if (hooks.before) await hooks.before(op, path);
  };
  const kindOf = (d: Dirent | Stats): DirEntry['kind'] => (d.isDirectory() ? 'dir' : d.isFile() ? 'file' : 'other');
  const self: RunsFs = {
    get ops() {
      return ops;
    },
    async readdir(path) {
      await before('readdir', path);
      await inside(path);
      const dirents = await fsp.readdir(path, { withFileTypes: true });
      const out: DirEntry[] = [];
      for (const d of dirents) {
        if (!d.isSymbolicLink()) {
          out.push({ name: d.name, kind: kindOf(d), symlink: false });
          continue;
        }
        // A link costs one more stat; loops (ELOOP) and dangling links come back as kind undefined.
        let kind: DirEntry['kind'];
        try {
          await before('stat', `${path}/${d.name}`);
          await inside(`${path}/${d.name}`);
          kind = kindOf(await fsp.stat(`${path}/${d.name}`));
        } catch {
          kind = undefined;
        }
        out.push({ name: d.name, kind, symlink: true });
      }
      return out;
    },
    async stat(path) {
      await before('stat', path);
      await inside(path);
      return fsp.stat(path);
    },
    async readRange(path, position, length) {
      await before('read', path);
      const { handle: fh, stat } = await openInside(path, within);
      const size = stat.size;
      try {
        // Clamped to the file first: a 2 MB cap on a 60-byte snapshot allocates 60 bytes.
        const buf = Buffer.allocUnsafe(Math.max(0, Math.min(length, size - position)));
        let got = 0;
        while (got < buf.length) {
          const { bytesRead } = await fh.read(buf, got, buf.length - got, position + got);
          if (bytesRead === 0) break;
          got += bytesRead;
        }
        return buf.subarray(0, got);
      } finally {
        await fh.close();
      }
    },
    async readFile(path) {
      await before('read', path);
      const { handle: fh } = await openInside(path, within);
      try {
        return await fh.readFile();
      } finally {
        await fh.close();
      }
    },
    async realpath(path) {
      await before('realpath', path);
      await inside(path);
      return fsp.realpath(path);
    },
  };
  return self;
}

/**
 * The same seam over synchronous calls, for the CLI: a process that only lists runs has nothing
 * else to do meanwhile, and a synchronous stat costs a small part of a promise-based one (10,000
 * experiments are some 130,000 calls). Never for the extension host, which must not block.
 */
export function syncNodeFs(opts: { within?: readonly string[] } = {}): RunsFs {
  let ops = 0;
  const within = opts.within;
  const inside = (path: string): void => {
    if (!within) return;
    const r = resolveInsideSync(path, within);
    if (!r.ok && r.reason === 'outside the allowed folders') throw new RefusedPathError(path, 'EOUTSIDE');
  };
  const kindOf = (d: Dirent | Stats): DirEntry['kind'] => (d.isDirectory() ? 'dir' : d.isFile() ? 'file' : 'other');
  const run = <T>(fn: () => T): Promise<T> => {
    ops++;
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err as Error);
    }
  };
  return {
    get ops() {
      return ops;
    },
    readdir: (path) =>
      run(() => {
        inside(path);
        return readdirSync(path, { withFileTypes: true }).map((d): DirEntry => {
          if (!d.isSymbolicLink()) return { name: d.name, kind: kindOf(d), symlink: false };
          ops++;
          let kind: DirEntry['kind'];
          try {
            inside(`${path}/${d.name}`);
            kind = kindOf(statSync(`${path}/${d.name}`));
          } catch {
            kind = undefined;
          }
          return { name: d.name, kind, symlink: true };
        });
      }),
    stat: (path) =>
      run(() => {
        inside(path);
        return statSync(path);
      }),
    readRange: (path, position, length) =>
      run(() => {
        const { handle: fd, stat: st } = openInsideSync(path, within);
        try {
          const buf = Buffer.allocUnsafe(Math.max(0, Math.min(length, st.size - position)));
          let got = 0;
          while (got < buf.length) {
            const n = readSync(fd, buf, got, buf.length - got, position + got);
            if (n === 0) break;
            got += n;
          }
          return buf.subarray(0, got);
        } finally {
          closeSync(fd);
        }
      }),
    readFile: (path) =>
      run(() => {
        const { handle: fd, stat: st } = openInsideSync(path, within);
        try {
          const buf = Buffer.allocUnsafe(st.size);
          let got = 0;
          while (got < buf.length) {
            const n = readSync(fd, buf, got, buf.length - got, got);
            if (n === 0) break;
            got += n;
          }
          return buf.subarray(0, got);
        } finally {
          closeSync(fd);
        }
      }),
    realpath: (path) =>
      run(() => {
        inside(path);
        return realpathSync(path);
      }),
  };
}

/** Maps with at most `limit` calls in flight; results keep the input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** A short, user-facing reason for an fs error ("permission denied", "not found", ...). */
export function fsErrorText(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOENT':
      return 'not found';
    case 'ELOOP':
      return 'symlink loop';
    case 'ENOTDIR':
      return 'not a folder';
    case 'ENOTREG':
      return 'not a regular file';
    case 'EOUTSIDE':
      return 'outside the allowed folders';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

export async function tryStat(fs: RunsFs, path: string): Promise<Stats | undefined> {
  try {
    return await fs.stat(path);
  } catch {
    return undefined;
  }
}

export async function tryReaddir(fs: RunsFs, path: string): Promise<{ entries: DirEntry[]; error?: string }> {
  try {
    return { entries: await fs.readdir(path) };
  } catch (err) {
    return { entries: [], error: fsErrorText(err) };
  }
}

/**
 * The files of `dir` named `<stem><suffix>`, each with the path of its sibling `<stem><sibling>`
 * when that exists too (a record and its output, a pid file and its log). Unreadable: none.
 */
export async function filesWithSibling(
  fs: RunsFs,
  dir: string,
  suffix: string,
  sibling: string,
): Promise<{ name: string; path: string; sibling?: string }[]> {
  const { entries } = await tryReaddir(fs, dir);
  const names = new Set(entries.map((e) => e.name));
  return entries
    .filter((e) => e.kind === 'file' && e.name.endsWith(suffix))
    .map((e) => {
      const siblingName = e.name.slice(0, -suffix.length) + sibling;
      return { name: e.name, path: join(dir, e.name), ...(names.has(siblingName) ? { sibling: join(dir, siblingName) } : {}) };
    });
}

/** Runs at most `max` tasks at once; the rest wait in order. */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

/** Sub-folders of `dir` named `<prefix><N>` (global_step_N, step_N), by N. */
export async function numberedDirs(fs: RunsFs, dir: string, prefix: string): Promise<{ step: number; path: string }[]> {
  const { entries } = await tryReaddir(fs, dir);
  const out: { step: number; path: string }[] = [];
  for (const e of entries) {
    if (e.kind !== 'dir' || !e.name.startsWith(prefix)) continue;
    const n = e.name.slice(prefix.length);
    if (/^\d+$/.test(n)) out.push({ step: Number(n), path: join(dir, e.name) });
  }
  return out.sort((a, b) => a.step - b.step);
}

/**
 * `fs` whose `stat` answers each path once: one experiment's read asks about its logs from several
 * places (status, step and reward). Use it for one experiment's read, never longer, so a later read
 * still sees files grow.
 */
export function statOnce(fs: RunsFs): RunsFs {
  const seen = new Map<string, Promise<Stats>>();
  return {
    get ops() {
      return fs.ops;
    },
    readdir: (path) => fs.readdir(path),
    stat(path) {
      let p = seen.get(path);
      if (!p) {
        p = fs.stat(path);
        seen.set(path, p);
      }
      return p;
    },
    readRange: (path, position, length) => fs.readRange(path, position, length),
    readFile: (path) => fs.readFile(path),
    realpath: (path) => fs.realpath(path),
  };
}
