// loguru's rotated siblings of a `.json.log`: which files belong to a group, and their order.
import { basename, dirname, join } from 'node:path';

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
