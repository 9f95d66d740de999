// The debug launcher's view of companions (vLLM server, logview, appworld ...): a synchronous read
// of the same records the Companions view lists (core/runs/companions.ts owns the format, the
// liveness check and how a group is stopped).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, isAbsolute } from 'node:path';
import { companionDir, groupAlive, parseCompanionName as parseId, stopGroup } from '../runs/companions';

export { groupAlive };

export interface Companion {
  tag: string;
  hash: string;
  host: string;
  pgid: number;
  pgidFile: string;
  logFile: string | undefined;
  alive: boolean;
}

export function companionFolder(cwd: string, expDir: string): string {
  return companionDir(isAbsolute(expDir) ? expDir : join(cwd, expDir));
}

/** Parses `<tag>.<hash>.<host>.pgid`; host names may contain dots. */
export function parseCompanionName(name: string): { tag: string; hash: string; host: string } | undefined {
  if (!name.endsWith('.pgid')) return undefined;
  const id = name.slice(0, -'.pgid'.length);
  const parts = id.split('.');
  const { tag, host } = parseId(id);
  if (parts.length < 3 || !tag || !parts[1] || !host) return undefined;
  return { tag, hash: parts[1], host };
}

export function readCompanions(folder: string, alive: (pgid: number) => boolean = groupAlive): Companion[] {
  if (!existsSync(folder)) return [];
  let names: string[];
  try { names = readdirSync(folder); } catch { return []; }
  const out: Companion[] = [];
  for (const name of names) {
    const parsed = parseCompanionName(name);
    if (!parsed) continue;
    const pgidFile = join(folder, name);
    let pgid = NaN;
    try { pgid = parseInt(readFileSync(pgidFile, 'utf8').trim(), 10); } catch { /* unreadable: skip */ }
    if (!Number.isInteger(pgid)) continue;
    const log = pgidFile.replace(/\.pgid$/, '.log');
    out.push({ ...parsed, pgid, pgidFile, logFile: existsSync(log) ? log : undefined, alive: alive(pgid) });
  }
  return out;
}

/** Ends companions' process groups (SIGTERM, then SIGKILL after `graceMs`). Returns those stopped. */
export async function stopCompanions(list: readonly Companion[], graceMs = 3000): Promise<Companion[]> {
  const live = list.filter((c) => c.alive && c.pgid > 1);
  await Promise.all(live.map((c) => stopGroup(c.pgid, graceMs)));
  return live;
}
