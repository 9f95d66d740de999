// Companion records: helper processes (vLLM server, logview, appworld ...) that AgentJet's
// `LaunchWhenAbsent` (ajet/utils/smart_daemon.py) starts in their own session and records as
// `<logRoot>/companion_logs/companion/[<tag>.]<hash>.<host>.pgid` (the process group id) with the
// output in `<same>.log`. `<hash>` is md5(...)[:8]; `<host>` is `os.uname().nodename` (may hold
// dots); the tag is omitted when empty. One type, one parser, one liveness rule, for the Companions
// view, the preflight and Stop.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { filesWithSibling, nodeFs, tryStat, type RunsFs } from '../fs/seam';
import { sameHost } from './hosts';
import { checkRecordedGroup, groupProbeAsync, probeGroup, type GroupProbe, type Liveness } from './liveness';

export interface Companion {
  /** File name without `.pgid`. */
  id: string;
  /** `external_vllm_server`, ... ('' when the record has none). */
  tag: string;
  hash: string;
  host?: string;
  /** Recorded on this machine (or with no host in the name). */
  local: boolean;
  pgidFile: string;
  log?: string;
  pgid?: number;
  /** The `.pgid` file's mtime: when the companion was (re)started. */
  startedMs: number;
  /** This machine's companions with a readable id only; undefined otherwise. */
  alive?: boolean;
  liveness?: Liveness;
}

const HASH = /^[0-9a-f]{8}$/;

/** `[<tag>.]<hash>.<host>`; undefined when it is not a companion name. */
export function parseCompanionId(id: string): { tag: string; hash: string; host: string } | undefined {
  const parts = id.split('.');
  if (parts.length >= 2 && HASH.test(parts[0]!) && !(parts.length >= 3 && HASH.test(parts[1]!)))
    return { tag: '', hash: parts[0]!, host: parts.slice(1).join('.') };
  if (parts.length >= 3 && parts[0] && parts[1]) return { tag: parts[0], hash: parts[1], host: parts.slice(2).join('.') };
  return undefined;
}

export interface CompanionReadOptions {
  localHost?: string;
  groupProbe?: GroupProbe;
}

/** One record from what the folder listing and two reads give. */
export function companionFromFiles(
  folder: string,
  fileName: string,
  pgidText: string | undefined,
  mtimeMs: number,
  hasLog: boolean,
  opts: CompanionReadOptions = {},
): Companion | undefined {
  if (!fileName.endsWith('.pgid')) return undefined;
  const id = fileName.slice(0, -'.pgid'.length);
  const parsed = parseCompanionId(id);
  const c: Companion = {
    id,
    tag: parsed?.tag ?? id,
    hash: parsed?.hash ?? '',
    local: true,
    pgidFile: join(folder, fileName),
    startedMs: mtimeMs,
  };
  if (parsed) {
    c.host = parsed.host;
    c.local = sameHost(parsed.host, opts.localHost ?? hostname());
  }
  if (hasLog) c.log = join(folder, `${id}.log`);
  const n = pgidText === undefined ? NaN : Number.parseInt(pgidText.trim(), 10);
  if (Number.isInteger(n) && n > 1) c.pgid = n;
  if (c.pgid !== undefined && c.local) {
    c.liveness = checkRecordedGroup(c.pgid, mtimeMs, opts.groupProbe ?? probeGroup);
    c.alive = c.liveness.state === 'alive';
  }
  return c;
}

const order = (a: Companion, b: Companion) => Number(b.alive ?? false) - Number(a.alive ?? false) || b.startedMs - a.startedMs;

/** The companions recorded in `folder` (see `companionFolder`), live ones first. */
export async function listCompanions(folder: string, opts: CompanionReadOptions & { fs?: RunsFs } = {}): Promise<Companion[]> {
  const fs = opts.fs ?? nodeFs();
  const out: Companion[] = [];
  const files = await filesWithSibling(fs, folder, '.pgid', '.log');
  // The groups' liveness from /proc read once, asynchronously: this runs in the extension host.
  const groupProbe = opts.groupProbe ?? (files.length ? await groupProbeAsync() : undefined);
  const readOpts = groupProbe ? { ...opts, groupProbe } : opts;
  for (const f of files) {
    const st = await tryStat(fs, f.path);
    if (!st) continue; // removed while listing
    let text: string | undefined;
    try {
      text = (await fs.readRange(f.path, 0, 64)).toString('utf8');
    } catch {
      /* unreadable: state unknown */
    }
    const c = companionFromFiles(folder, f.name, text, st.mtimeMs, f.sibling !== undefined, readOpts);
    if (c) out.push(c);
  }
  return out.sort(order);
}

/** The same read, synchronously (the debug adapter's preflight and Stop). */
export function readCompanionsSync(folder: string, opts: CompanionReadOptions = {}): Companion[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const set = new Set(names);
  const out: Companion[] = [];
  for (const name of names) {
    if (!name.endsWith('.pgid')) continue;
    const path = join(folder, name);
    let mtimeMs: number;
    try {
      const st = statSync(path);
      if (!st.isFile()) continue;
      mtimeMs = st.mtimeMs;
    } catch {
      continue;
    }
    let text: string | undefined;
    try {
      text = readFileSync(path, 'utf8').slice(0, 64);
    } catch {
      /* unreadable */
    }
    const c = companionFromFiles(folder, name, text, mtimeMs, set.has(`${name.slice(0, -5)}.log`), opts);
    if (c) out.push(c);
  }
  return out.sort(order);
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

/** Ends a process group: SIGTERM, then SIGKILL if it is still there after `graceMs`. */
export async function stopGroup(
  pgid: number,
  graceMs = 3000,
  isGroupAlive: (pgid: number) => boolean = groupAlive,
): Promise<'stopped' | 'killed' | 'gone'> {
  if (!isGroupAlive(pgid)) return 'gone';
  try {
    process.kill(-pgid, 'SIGTERM');
  } catch {
    return 'gone';
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isGroupAlive(pgid)) return 'stopped';
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    return 'stopped';
  }
  return 'killed';
}

/** Stops the live companions of a list (only verified-live ones: a reused group id is never signalled). */
export async function stopCompanions(list: readonly Companion[], graceMs = 3000): Promise<Companion[]> {
  const live = list.filter((c): c is Companion & { pgid: number } => c.alive === true && c.pgid !== undefined && c.pgid > 1);
  await Promise.all(live.map((c) => stopGroup(c.pgid, graceMs)));
  return live;
}
