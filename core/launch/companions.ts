// The debug launcher's view of companions: a thin adapter over the one companion reader in
// core/agentjet/companions.ts (format, liveness with PID-reuse check, stop). New code should use
// core/agentjet directly (`companionFolder(cwd, version)`, `readCompanionsSync`).
import { basename } from 'node:path';
import { FIXED_LOG_ROOTS } from './plan';
import {
  companionFolder as folderFor,
  groupAlive,
  listCompanions,
  readCompanionsSync,
  stopCompanions as stopAll,
  parseCompanionId,
  type Companion as AnyCompanion,
  type GroupProbe,
} from '../agentjet';

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

/**
 * The companion folder of a launch in `cwd`. Upstream writes companions under the working
 * directory's log root whatever `--exp-dir` says (ajet/utils/smart_daemon.py); `expDir` only tells
 * the generation apart (`launcher_record` is ASTuner Nov 2025 / ASTune).
 */
export function companionFolder(cwd: string, expDir: string): string {
  return folderFor(cwd, basename(expDir) === 'launcher_record' ? 'astuner-2025-11' : 'agentjet');
}

/** Parses `[<tag>.]<hash>.<host>.pgid`; host names may contain dots. */
export function parseCompanionName(name: string): { tag: string; hash: string; host: string } | undefined {
  if (!name.endsWith('.pgid')) return undefined;
  return parseCompanionId(name.slice(0, -'.pgid'.length));
}

function toLaunch(c: AnyCompanion): Companion | undefined {
  if (c.pgid === undefined) return undefined;
  return { tag: c.tag, hash: c.hash, host: c.host ?? '', pgid: c.pgid, pgidFile: c.pgidFile, logFile: c.log, alive: c.alive === true };
}

/** `alive` replaces the verified group check (tests). */
export function readCompanions(folder: string, alive?: (pgid: number) => boolean): Companion[] {
  const opts = alive ? { groupProbe: (g: number) => (alive(g) ? [{ pid: g }] : []) } : {};
  return readCompanionsSync(folder, opts)
    .map(toLaunch)
    .filter((c): c is Companion => c !== undefined);
}

/** Ends companions' process groups (SIGTERM, then SIGKILL after `graceMs`). Returns those stopped. */
export async function stopCompanions(list: readonly Companion[], graceMs = 3000): Promise<Companion[]> {
  const live = list.filter((c) => c.alive && c.pgid > 1);
  await stopAll(
    live.map((c) => ({ id: '', tag: c.tag, hash: c.hash, local: true, pgidFile: c.pgidFile, pgid: c.pgid, startedMs: 0, alive: true })),
    graceMs,
  );
  return live;
}

/**
 * Every companion a launch in `cwd` may reuse (so its port is no stranger's) and Stop must spare:
 * both fixed log roots under the working directory, whatever `--exp-dir` says.
 */
export function companionsOf(cwd: string): Companion[] {
  return FIXED_LOG_ROOTS.flatMap((root) => readCompanions(companionFolder(cwd, root)));
}

/**
 * `companionsOf` without blocking (the inline debug session's sweep runs in the extension host):
 * the folders read asynchronously, and the groups' liveness from `groupProbe` (a process list the
 * caller already has) instead of a scan of /proc.
 */
export async function companionsOfAsync(cwd: string, groupProbe?: GroupProbe): Promise<Companion[]> {
  const lists = await Promise.all(
    FIXED_LOG_ROOTS.map((root) => listCompanions(companionFolder(cwd, root), groupProbe ? { groupProbe } : {}).catch(() => [])),
  );
  return lists
    .flat()
    .map(toLaunch)
    .filter((c): c is Companion => c !== undefined);
}
