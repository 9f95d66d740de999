// Helper processes the debug backbone leaves running (vLLM server, logview, appworld ...), recorded
// as saved_experiments/companion_logs/companion/<tag>.<hash>.<host>.pgid with a .log beside.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { tryReaddir, tryStat, type RunsFs } from './fs';

export interface Companion {
  /** File name without `.pgid` */
  id: string;
  tag: string;
  host?: string;
  pgidFile: string;
  log?: string;
  pgid?: number;
  /** Checked on this host only; undefined for another host's companion or an unreadable id. */
  alive?: boolean;
  startedMs: number;
}

export function companionDir(experimentRoot: string): string {
  return join(experimentRoot, 'companion_logs', 'companion');
}

/** `external_vllm_server.ab12cd.gpu-node-0` -> tag, host (host names may hold dots, the hash does not). */
export function parseCompanionName(id: string): { tag: string; host?: string } {
  const parts = id.split('.');
  if (parts.length < 3) return { tag: parts[0] ?? id };
  return { tag: parts[0]!, host: parts.slice(2).join('.') };
}

export function groupAlive(pgid: number): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

export async function listCompanions(fs: RunsFs, experimentRoot: string, opts: { localHost?: string; isGroupAlive?: (pgid: number) => boolean } = {}): Promise<Companion[]> {
  const dir = companionDir(experimentRoot);
  const { entries } = await tryReaddir(fs, dir);
  const names = new Set(entries.map((e) => e.name));
  const local = (opts.localHost ?? hostname()).toLowerCase();
  const out: Companion[] = [];
  for (const e of entries) {
    if (e.kind !== 'file' || !e.name.endsWith('.pgid')) continue;
    const id = e.name.slice(0, -'.pgid'.length);
    const { tag, host } = parseCompanionName(id);
    const pgidFile = join(dir, e.name);
    const c: Companion = { id, tag, pgidFile, startedMs: 0 };
    if (host) c.host = host;
    if (names.has(`${id}.log`)) c.log = join(dir, `${id}.log`);
    const st = await tryStat(fs, pgidFile);
    if (!st) continue; // removed while listing
    c.startedMs = st.mtimeMs;
    try {
      const n = Number.parseInt((await fs.readRange(pgidFile, 0, 64)).toString('utf8').trim(), 10);
      if (Number.isInteger(n) && n > 1) c.pgid = n;
    } catch { /* unreadable: state unknown */ }
    const here = !host || host.toLowerCase() === local || host.toLowerCase().split('.')[0] === local.split('.')[0];
    if (c.pgid !== undefined && here) c.alive = (opts.isGroupAlive ?? groupAlive)(c.pgid);
    out.push(c);
  }
  return out.sort((a, b) => Number(b.alive ?? false) - Number(a.alive ?? false) || b.startedMs - a.startedMs);
}

/** Ends a companion's process group: SIGTERM, then SIGKILL if it is still there after `graceMs`. */
export async function stopGroup(pgid: number, graceMs = 3000, isGroupAlive: (pgid: number) => boolean = groupAlive): Promise<'stopped' | 'killed' | 'gone'> {
  if (!isGroupAlive(pgid)) return 'gone';
  try { process.kill(-pgid, 'SIGTERM'); } catch { return 'gone'; }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isGroupAlive(pgid)) return 'stopped';
    await new Promise((r) => setTimeout(r, 100));
  }
  try { process.kill(-pgid, 'SIGKILL'); } catch { return 'stopped'; }
  return 'killed';
}
