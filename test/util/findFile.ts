// The first file below `dir` (depth first, names in order) that satisfies `pred`.
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function findFile(dir: string, pred: (p: string) => boolean): string | undefined {
  for (const n of readdirSync(dir).sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) {
      const f = findFile(p, pred);
      if (f) return f;
    } else if (pred(p)) return p;
  }
  return undefined;
}

/** Every file below `dir` that satisfies `pred` (links not followed). */
export function findFiles(dir: string, pred: (p: string) => boolean): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir).sort()) {
    const p = join(dir, n);
    const st = lstatSync(p);
    if (st.isDirectory()) out.push(...findFiles(p, pred));
    else if (st.isFile() && pred(p)) out.push(p);
  }
  return out;
}
