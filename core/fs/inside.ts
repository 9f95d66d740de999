// The one check every path an agent, the CLI's tools or the language server opens goes through:
// resolved, symlinks followed (realpath), and compared with the allowed folders by path segments,
// so `/runs/exp1` admits `/runs/exp1/a.log` but neither `/runs/exp10/a.log` nor `/runs/exp1/../x`.
// Files are checked where they are opened (openInside): the file is opened first, without
// blocking, and then the path of what was opened is checked, so a link swapped in after an earlier
// check (or between the check and the open) never lets outside content through.
import {
  closeSync,
  constants as fsc,
  fstatSync,
  openSync,
  promises as fsp,
  readlinkSync,
  realpathSync,
  statSync,
  type Stats,
} from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** True when `child` is `parent` or lies below it, comparing whole path segments (no I/O). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  if (rel === '') return true;
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

export type InsideResult = { ok: true; path: string } | { ok: false; reason: string };

/** The real paths of the roots that exist (a root that is a link counts as where it points). */
async function realRoots(allowed: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const root of allowed) {
    if (typeof root !== 'string' || !isAbsolute(root)) continue;
    try {
      out.push(await fsp.realpath(root));
    } catch {
      /* a root that is gone admits nothing */
    }
  }
  return out;
}

function realRootsSync(allowed: readonly string[]): string[] {
  const out: string[] = [];
  for (const root of allowed) {
    if (typeof root !== 'string' || !isAbsolute(root)) continue;
    try {
      out.push(realpathSync.native(root));
    } catch {
      /* a root that is gone admits nothing */
    }
  }
  return out;
}

/**
 * Resolves `requested` (absolute, existing) with symlinks followed and returns its real path when
 * it lies inside one of `allowed` (also compared by real path). Never throws. For folders (what
 * to list); a file is checked again where it is opened (openInside).
 */
export async function resolveInside(requested: unknown, allowed: readonly string[]): Promise<InsideResult> {
  if (typeof requested !== 'string' || requested === '') return { ok: false, reason: 'not a path' };
  if (requested.includes('\0')) return { ok: false, reason: 'path contains a NUL character' };
  if (!isAbsolute(requested)) return { ok: false, reason: 'path is not absolute' };
  let real: string;
  try {
    real = await fsp.realpath(resolve(requested));
  } catch {
    return { ok: false, reason: 'no such file' };
  }
  for (const root of await realRoots(allowed)) if (isInside(root, real)) return { ok: true, path: real };
  return { ok: false, reason: 'outside the allowed folders' };
}

/** resolveInside without promises (worker threads and the CLI's synchronous file seam). */
export function resolveInsideSync(requested: string, allowed: readonly string[]): InsideResult {
  if (requested === '' || requested.includes('\0') || !isAbsolute(requested)) return { ok: false, reason: 'not a path' };
  let real: string;
  try {
    real = realpathSync.native(resolve(requested));
  } catch {
    return { ok: false, reason: 'no such file' };
  }
  for (const root of realRootsSync(allowed)) if (isInside(root, real)) return { ok: true, path: real };
  return { ok: false, reason: 'outside the allowed folders' };
}

/** A file that may not be read: outside the roots (code EOUTSIDE) or not a regular file (ENOTREG). */
export class RefusedPathError extends Error {
  constructor(
    readonly path: string,
    readonly code: 'EOUTSIDE' | 'ENOTREG',
  ) {
    super(code === 'EOUTSIDE' ? `outside the allowed folders: ${path}` : `not a regular file: ${path}`);
  }
}

// O_NONBLOCK: a FIFO opens at once instead of waiting for a writer; O_NOCTTY: a terminal device
// never becomes ours. Both are 0 where they do not exist (Windows).
const READ_FLAGS = fsc.O_RDONLY | (fsc.O_NONBLOCK ?? 0) | (fsc.O_NOCTTY ?? 0);
const HAS_PROC_FD = process.platform === 'linux';

/**
 * The path of what `fd` has open, as the kernel knows it (Linux: /proc/self/fd), so no later
 * rename or link swap can change the answer; undefined elsewhere or when /proc is not mounted.
 */
function openedPath(fd: number): string | undefined {
  if (!HAS_PROC_FD) return undefined;
  try {
    const p = readlinkSync(`/proc/self/fd/${fd}`);
    // A deleted file's name ends with " (deleted)", not a path: checked by name below instead.
    return isAbsolute(p) && !p.endsWith(' (deleted)') ? p : undefined;
  } catch {
    return undefined;
  }
}

const sameFile = (a: Stats, b: Stats): boolean => a.dev === b.dev && a.ino === b.ino;

/**
 * Where the opened file `st` (of `fd`, opened as `path`) really is, when that lies in `roots`:
 * the kernel's path of the handle, else the real path of the name checked to be the same file
 * (device and inode), so a swap between the open and the check is refused, never followed.
 */
function verdict(path: string, fd: number, st: Stats, roots: readonly string[], realOf: (p: string) => string): string | undefined {
  const byFd = openedPath(fd);
  if (byFd !== undefined) return roots.some((r) => isInside(r, byFd)) ? byFd : undefined;
  let real: string;
  try {
    real = realOf(path);
    if (!sameFile(statSync(real), st)) return undefined;
  } catch {
    return undefined;
  }
  return roots.some((r) => isInside(r, real)) ? real : undefined;
}

export interface OpenedInside<H> {
  handle: H;
  /** The real path of the opened file. */
  real: string;
  stat: Stats;
}

/**
 * Opens `path` for reading when it is a regular file inside one of `allowed` (real paths): opened
 * first (never blocking: a FIFO or device is refused, not waited on), then the opened file's own
 * path is checked. `allowed` undefined: any regular file (a path a person typed). Throws ENOENT
 * and the like as fs does, RefusedPathError for what may not be read.
 */
export async function openInside(path: string, allowed: readonly string[] | undefined): Promise<OpenedInside<fsp.FileHandle>> {
  const fh = await fsp.open(path, READ_FLAGS);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new RefusedPathError(path, 'ENOTREG');
    if (!allowed) return { handle: fh, real: resolve(path), stat: st };
    const real = verdict(path, fh.fd, st, await realRoots(allowed), (p) => realpathSync.native(p));
    if (real === undefined) throw new RefusedPathError(path, 'EOUTSIDE');
    return { handle: fh, real, stat: st };
  } catch (err) {
    await fh.close().catch(() => undefined);
    throw err;
  }
}

/** openInside with a file descriptor, for worker threads and synchronous readers (close it yourself). */
export function openInsideSync(path: string, allowed: readonly string[] | undefined): OpenedInside<number> {
  const fd = openSync(path, READ_FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new RefusedPathError(path, 'ENOTREG');
    if (!allowed) return { handle: fd, real: resolve(path), stat: st };
    const real = verdict(path, fd, st, realRootsSync(allowed), (p) => realpathSync.native(p));
    if (real === undefined) throw new RefusedPathError(path, 'EOUTSIDE');
    return { handle: fd, real, stat: st };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * The first `max` bytes of a regular file inside `allowed`, its size, real path and stat; a read
 * never past `max` (a huge file costs what the answer needs). Throws as openInside does.
 */
export async function readInside(
  path: string,
  allowed: readonly string[] | undefined,
  max = Infinity,
): Promise<{ bytes: Buffer; size: number; real: string; stat: Stats }> {
  const { handle, stat, real } = await openInside(path, allowed);
  try {
    const buf = Buffer.allocUnsafe(Math.min(stat.size, max));
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await handle.read(buf, got, buf.length - got, got);
      if (!bytesRead) break;
      got += bytesRead;
    }
    return { bytes: buf.subarray(0, got), size: Math.max(stat.size, got), real, stat };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** `[start, start+length)` of a regular file inside `allowed` (clamped to the file). */
export async function readRangeInside(
  path: string,
  allowed: readonly string[] | undefined,
  start: number,
  length: number,
): Promise<Buffer> {
  const { handle, stat } = await openInside(path, allowed);
  try {
    const buf = Buffer.allocUnsafe(Math.max(0, Math.min(length, stat.size - start)));
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await handle.read(buf, got, buf.length - got, start + got);
      if (!bytesRead) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  } finally {
    await handle.close().catch(() => undefined);
  }
}
