// One entry per file when the same file is reached by several paths (a symlinked folder, `a/../b`,
// a letter case the file system ignores): the real path, symlinks followed, is the file's identity.
import { promises as fsp } from 'node:fs';
import { resolve } from 'node:path';

/**
 * `items` without the later ones whose path names a file an earlier one names (order kept). Items
 * without a path (`pathOf` undefined: not on this disk) are kept as they are; a path that does not
 * resolve (gone, unreadable) counts as itself.
 */
export async function distinctFiles<T>(
  items: readonly T[],
  pathOf: (item: T) => string | undefined,
  realpath: (p: string) => Promise<string> = (p) => fsp.realpath(p),
): Promise<T[]> {
  const keys = await Promise.all(
    items.map(async (item) => {
      const p = pathOf(item);
      if (p === undefined) return undefined;
      return realpath(p).catch(() => resolve(p));
    }),
  );
  const seen = new Set<string>();
  return items.filter((_, i) => {
    const key = keys[i];
    if (key === undefined) return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
