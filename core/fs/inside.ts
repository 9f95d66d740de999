// The one check every path a webview (or any untrusted side) asks to open goes through: resolved,
// symlinks followed (realpath), and then compared with the allowed folders by path segments, so
// `/runs/exp1` admits `/runs/exp1/a.log` but neither `/runs/exp10/a.log` nor `/runs/exp1/../x`.
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** True when `child` is `parent` or lies below it, comparing whole path segments (no I/O). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  if (rel === '') return true;
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

export type InsideResult = { ok: true; path: string } | { ok: false; reason: string };

/**
 * Resolves `requested` (absolute, existing) with symlinks followed and returns its real path when
 * it lies inside one of `allowed` (also compared by real path). Never throws.
 */
export async function resolveInside(requested: unknown, allowed: readonly string[]): Promise<InsideResult> {
  if (typeof requested !== 'string' || requested === '') return { ok: false, reason: 'not a path' };
  if (requested.includes('\0')) return { ok: false, reason: 'path contains a NUL character' };
  if (!isAbsolute(requested)) return { ok: false, reason: 'path is not absolute' };
  let real: string;
  try {
    real = await realpath(resolve(requested));
  } catch {
    return { ok: false, reason: 'no such file' };
  }
  for (const root of allowed) {
    if (typeof root !== 'string' || !isAbsolute(root)) continue;
    let realRoot: string;
    try {
      realRoot = await realpath(root);
    } catch {
      continue;
    }
    if (isInside(realRoot, real)) return { ok: true, path: real };
  }
  return { ok: false, reason: 'outside the allowed folders' };
}
