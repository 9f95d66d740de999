// Companions the launcher leaves running on purpose (vLLM server, logview, appworld ...),
// recorded as `<expDir>/companion_logs/companion/<tag>.<hash>.<host>.pgid` (+ `.log`).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, isAbsolute } from 'node:path';

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
  return join(isAbsolute(expDir) ? expDir : join(cwd, expDir), 'companion_logs', 'companion');
}

export function groupAlive(pgid: number): boolean {
  if (!(pgid > 1)) return false;
  try { process.kill(-pgid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

/** Parses `<tag>.<hash>.<host>.pgid`; host names may contain dots. */
export function parseCompanionName(name: string): { tag: string; hash: string; host: string } | undefined {
  const m = /^([^.]+)\.([^.]+)\.(.+)\.pgid$/.exec(name);
  return m ? { tag: m[1]!, hash: m[2]!, host: m[3]! } : undefined;
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
  for (const c of live) { try { process.kill(-c.pgid, 'SIGTERM'); } catch { /* gone */ } }
  const deadline = Date.now() + graceMs;
  let left = live.filter((c) => groupAlive(c.pgid));
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = left.filter((c) => groupAlive(c.pgid));
  }
  for (const c of left) { try { process.kill(-c.pgid, 'SIGKILL'); } catch { /* gone */ } }
  return live;
}
