// Run discovery: experiment roots -> experiments -> sessions -> hosts -> artefacts, one level at a
// time, all through the counted async RunsFs. Bad trees (missing folders, permission errors,
// dangling links, loops, files that appear or vanish mid-scan) become data, never exceptions.
import { hostname } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { readConfigFacts, type Dialect } from '../agentjet/dialect';
import { fsErrorText, mapLimit, tryReaddir, tryStat, type RunsFs } from './fs';
import { completeLines, latestStepReward, readTailRecords, splitRecords } from './records';
import type { RunStatus } from './types';

export type { RunStatus } from './types';

export interface ExperimentRoot {
  path: string;
  /** `saved_experiments` (AgentJet), `launcher_record` (ASTuner), a configured root, or a launch's `--exp-dir`. */
  source: 'saved_experiments' | 'launcher_record' | 'configured' | 'launch';
}

/** First level: what one readdir of the root and one of each experiment give. */
export interface ExperimentEntry {
  name: string;
  path: string;
  root: string;
  /** Session folder names (`YYYY_MM_DD_HH_MM`), oldest first. */
  sessions: string[];
  snapshot?: string;
  /** Start of the latest session (local time), else the folder's mtime. */
  timeMs: number;
  error?: string;
}

export interface LockInfo {
  path: string;
  pid?: number;
  mtimeMs: number;
  /** True/false when checked on this host; undefined for another host's folder. */
  alive?: boolean;
}

export interface HostInfo {
  /** Folder name: `<host>` or `<host>_<pid>` */
  name: string;
  host: string;
  pid?: number;
  path: string;
  local: boolean;
  lock?: LockInfo;
  modules: string[];
  hasTrajectories: boolean;
  /** Exception records (a floor for very large exception logs); 0 while the host's lock is held. */
  exceptions: number;
  status: RunStatus;
  reason?: string;
  /** Newest mtime among the lock, rollout and regular logs. */
  lastWriteMs?: number;
  error?: string;
}

export interface SessionInfo {
  name: string;
  path: string;
  timeMs?: number;
  hosts: HostInfo[];
  status: RunStatus;
  error?: string;
}

export interface CheckpointInfo { step: number; path: string }

export interface ExperimentInfo {
  entry: ExperimentEntry;
  status: RunStatus;
  reason?: string;
  sessions: SessionInfo[];
  hosts: string[];
  project?: string;
  latestStep?: number;
  latestReward?: number;
  checkpoints: CheckpointInfo[];
  checkpointDir?: string;
  exceptionCount: number;
  snapshotError?: string;
}

export interface DiscoverOptions {
  /** This machine's host name (tests pass a fixed one). */
  localHost?: string;
  /** Another host's run counts as running when something there was written this recently. */
  remoteFreshMs?: number;
  now?: () => number;
  isAlive?: (pid: number) => boolean;
  concurrency?: number;
}

const SESSION_RE = /^(\d{4})_(\d{2})_(\d{2})_(\d{2})_(\d{2})$/;
const DEFAULT_REMOTE_FRESH_MS = 5 * 60_000;

export function parseSessionTime(name: string): number | undefined {
  const m = SESSION_RE.exec(name);
  if (!m) return undefined;
  const t = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5])).getTime();
  return Number.isFinite(t) ? t : undefined;
}

export function isSessionName(name: string): boolean { return SESSION_RE.test(name); }

/** `gpu-node-0` or `gpu-node-0_4242` (a second process on the same host). */
export function parseHostFolder(name: string, localHost: string): { host: string; pid?: number } {
  if (sameHost(name, localHost)) return { host: name };
  const m = /^(.+)_(\d+)$/.exec(name);
  return m ? { host: m[1]!, pid: Number(m[2]) } : { host: name };
}

function sameHost(a: string, b: string): boolean {
  const short = (h: string) => h.toLowerCase().split('.')[0]!;
  return a.toLowerCase() === b.toLowerCase() || short(a) === short(b);
}

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as { code?: string }).code === 'EPERM';
  }
}

/** The default roots of one workspace folder, plus configured roots (relative ones against the folder). */
export function candidateRoots(workspaceFolders: readonly string[], configured: readonly string[] = [], launchExpDirs: readonly string[] = []): ExperimentRoot[] {
  const out: ExperimentRoot[] = [];
  for (const ws of workspaceFolders) {
    out.push({ path: join(ws, 'saved_experiments'), source: 'saved_experiments' });
    out.push({ path: join(ws, 'launcher_record'), source: 'launcher_record' });
  }
  const rel = (p: string) => (isAbsolute(p) ? [resolve(p)] : workspaceFolders.map((ws) => resolve(ws, p)));
  for (const c of configured) for (const p of rel(c)) out.push({ path: p, source: 'configured' });
  for (const c of launchExpDirs) for (const p of rel(c)) out.push({ path: p, source: 'launch' });
  return out;
}

/** Keeps the roots that exist and are folders, one per real path. */
export async function existingRoots(fs: RunsFs, roots: readonly ExperimentRoot[]): Promise<ExperimentRoot[]> {
  const seen = new Set<string>();
  const out: ExperimentRoot[] = [];
  for (const r of roots) {
    const st = await tryStat(fs, r.path);
    if (!st?.isDirectory()) continue;
    let real = r.path;
    try { real = await fs.realpath(r.path); } catch { /* keep the given path */ }
    if (seen.has(real)) continue;
    seen.add(real);
    out.push(r);
  }
  return out;
}

/** Folders under a root that are not experiments. */
const NOT_EXPERIMENTS = new Set(['companion_logs']);

/** The experiments of one root, newest first: one readdir of the root and one per experiment. */
export async function listExperiments(fs: RunsFs, root: string, opts: DiscoverOptions = {}): Promise<{ experiments: ExperimentEntry[]; error?: string }> {
  const { entries, error } = await tryReaddir(fs, root);
  if (error) return { experiments: [], error };
  const dirs = entries.filter((e) => e.kind === 'dir' && !NOT_EXPERIMENTS.has(e.name) && !e.name.startsWith('.'));
  const experiments = await mapLimit(dirs, opts.concurrency ?? 32, (d) => readExperimentEntry(fs, root, d.name));
  return { experiments: sortNewestFirst(experiments.filter((e): e is ExperimentEntry => e !== undefined)) };
}

export function sortNewestFirst(list: ExperimentEntry[]): ExperimentEntry[] {
  return list.sort((a, b) => b.timeMs - a.timeMs || a.name.localeCompare(b.name));
}

/** One experiment folder's first level; undefined when it vanished or holds nothing run-like. */
export async function readExperimentEntry(fs: RunsFs, root: string, name: string): Promise<ExperimentEntry | undefined> {
  const path = join(root, name);
  const { entries, error } = await tryReaddir(fs, path);
  if (error === 'not found' || error === 'not a folder') return undefined;
  const sessions = entries.filter((e) => e.kind === 'dir' && isSessionName(e.name)).map((e) => e.name).sort();
  const snapshot = entries.some((e) => e.name === 'yaml_backup.yaml' && e.kind === 'file') ? join(path, 'yaml_backup.yaml') : undefined;
  if (!error && sessions.length === 0 && !snapshot) return undefined;
  let timeMs = sessions.length ? parseSessionTime(sessions[sessions.length - 1]!) : undefined;
  if (timeMs === undefined) timeMs = (await tryStat(fs, path))?.mtimeMs ?? 0;
  const entry: ExperimentEntry = { name, path, root, sessions, timeMs };
  if (snapshot) entry.snapshot = snapshot;
  if (error) entry.error = error;
  return entry;
}

/** Status, sessions, hosts, latest step/reward and checkpoints of one experiment. */
export async function inspectExperiment(fs: RunsFs, entry: ExperimentEntry, opts: DiscoverOptions = {}): Promise<ExperimentInfo> {
  const sessions = await mapLimit(entry.sessions, 4, (s) => inspectSession(fs, join(entry.path, s), opts));
  const info: ExperimentInfo = { entry, status: 'empty', sessions, hosts: [], checkpoints: [], exceptionCount: 0 };
  info.hosts = [...new Set(sessions.flatMap((s) => s.hosts.map((h) => h.host)))];
  const running = sessions.find((s) => s.status === 'running');
  const latest = sessions[sessions.length - 1];
  const decisive = running ?? latest;
  if (decisive) {
    info.status = decisive.status;
    const why = decisive.hosts.find((h) => h.status === decisive.status)?.reason;
    if (why) info.reason = why;
  } else if (entry.error) {
    info.reason = entry.error;
  }
  // Step and reward: the newest session with rollout records.
  for (let i = sessions.length - 1; i >= 0 && info.latestStep === undefined; i--) {
    const sr = await sessionStepReward(fs, sessions[i]!);
    if (sr) {
      info.latestStep = sr.step;
      if (sr.meanReward !== undefined) info.latestReward = sr.meanReward;
    }
  }
  info.exceptionCount = latest ? latest.hosts.reduce((n, h) => n + h.exceptions, 0) : 0;
  if (entry.snapshot) {
    const snap = await readSnapshotFacts(fs, entry.snapshot);
    if (snap.error) info.snapshotError = snap.error;
    if (snap.project) info.project = snap.project;
    const base = snap.checkpointBase ?? 'saved_checkpoints';
    if (snap.project) {
      // The folder name is the experiment name the launcher used for both trees.
      const dir = join(isAbsolute(base) ? base : resolve(dirname(entry.root), base), snap.project, entry.name);
      info.checkpointDir = dir;
      info.checkpoints = await listCheckpoints(fs, dir);
    }
  }
  return info;
}

export async function listCheckpoints(fs: RunsFs, dir: string): Promise<CheckpointInfo[]> {
  const { entries } = await tryReaddir(fs, dir);
  return entries
    .map((e) => ({ e, m: /^global_step_(\d+)$/.exec(e.name) }))
    .filter((x) => x.m && x.e.kind === 'dir')
    .map((x) => ({ step: Number(x.m![1]), path: join(dir, x.e.name) }))
    .sort((a, b) => a.step - b.step);
}

export interface SnapshotFacts { project?: string; experimentName?: string; checkpointBase?: string; dialect?: Dialect; error?: string }

export async function readSnapshotFacts(fs: RunsFs, path: string): Promise<SnapshotFacts> {
  const MAX = 2 * 1024 * 1024;
  let buf: Buffer;
  try {
    buf = await fs.readRange(path, 0, MAX + 1);
  } catch (err) {
    return { error: fsErrorText(err) };
  }
  // A resolved config is tens of KB; a huge one is not worth parsing for two keys.
  if (buf.length > MAX) return { error: 'snapshot larger than 2 MB, not read' };
  return snapshotFacts(buf.toString('utf8'));
}

export function snapshotFacts(text: string): SnapshotFacts {
  const f = readConfigFacts(text);
  if (!f.dialect || f.error) return { error: f.error ?? 'no ajet:/astuner: section' };
  const out: SnapshotFacts = { dialect: f.dialect };
  if (f.project !== undefined) out.project = f.project;
  if (f.experimentName !== undefined) out.experimentName = f.experimentName;
  if (f.checkpointBase !== undefined) out.checkpointBase = f.checkpointBase;
  return out;
}

export async function inspectSession(fs: RunsFs, path: string, opts: DiscoverOptions = {}): Promise<SessionInfo> {
  const name = basename(path);
  const { entries, error } = await tryReaddir(fs, path);
  const session: SessionInfo = { name, path, hosts: [], status: 'empty' };
  const t = parseSessionTime(name);
  if (t !== undefined) session.timeMs = t;
  if (error) { session.error = error; return session; }
  const hostDirs = entries.filter((e) => e.kind === 'dir').map((e) => e.name).sort();
  session.hosts = await mapLimit(hostDirs, 4, (h) => inspectHost(fs, join(path, h), opts));
  session.status = combineStatus(session.hosts.map((h) => h.status));
  return session;
}

/** A session (or experiment) is running if any host runs, failed if any failed, ... */
export function combineStatus(list: readonly RunStatus[]): RunStatus {
  for (const s of ['running', 'failed', 'interrupted', 'finished'] as const) if (list.includes(s)) return s;
  return 'empty';
}

export async function inspectHost(fs: RunsFs, path: string, opts: DiscoverOptions = {}): Promise<HostInfo> {
  const localHost = opts.localHost ?? hostname();
  const name = basename(path);
  const parsed = parseHostFolder(name, localHost);
  const host: HostInfo = { name, host: parsed.host, path, local: sameHost(parsed.host, localHost), modules: [], hasTrajectories: false, exceptions: 0, status: 'empty' };
  if (parsed.pid !== undefined) host.pid = parsed.pid;
  const { entries, error } = await tryReaddir(fs, path);
  if (error) { host.error = error; host.reason = error; return host; }
  host.modules = entries.filter((e) => e.kind === 'dir' && e.name !== 'trajectory').map((e) => e.name).sort();
  host.hasTrajectories = entries.some((e) => e.kind === 'dir' && e.name === 'trajectory');
  const now = (opts.now ?? Date.now)();
  const writes: number[] = [];
  if (entries.some((e) => e.name === '.logger_lock')) {
    const lockPath = join(path, '.logger_lock');
    const st = await tryStat(fs, lockPath);
    if (st) {
      const lock: LockInfo = { path: lockPath, mtimeMs: st.mtimeMs };
      try {
        const pid = Number.parseInt((await fs.readRange(lockPath, 0, 64)).toString('utf8').trim(), 10);
        if (Number.isInteger(pid) && pid > 0) lock.pid = pid;
      } catch { /* vanished between stat and read: treated as no pid */ }
      if (host.local) lock.alive = lock.pid !== undefined && (opts.isAlive ?? pidAlive)(lock.pid);
      host.lock = lock;
      writes.push(st.mtimeMs);
    }
  }
  if (host.lock && !host.local) {
    for (const f of ['rollout/rollout.json.log', 'regular/regular.log']) {
      const st = await tryStat(fs, join(path, f));
      if (st) writes.push(st.mtimeMs);
    }
  }
  if (writes.length) host.lastWriteMs = Math.max(...writes);
  if (host.lock) {
    if (host.local) {
      host.status = host.lock.alive ? 'running' : 'interrupted';
      host.reason = host.lock.alive ? `process ${host.lock.pid} is alive` : host.lock.pid ? `lock names process ${host.lock.pid}, which is gone` : 'lock file without a process id';
    } else {
      const fresh = now - (host.lastWriteMs ?? 0) < (opts.remoteFreshMs ?? DEFAULT_REMOTE_FRESH_MS);
      host.status = fresh ? 'running' : 'interrupted';
      host.reason = fresh ? `host ${host.host} wrote in the last minutes` : `lock on host ${host.host}, nothing written for ${Math.round((now - (host.lastWriteMs ?? 0)) / 60_000)} min`;
    }
    return host;
  }
  const failure = await hostFailure(fs, path, host);
  if (failure) {
    host.status = 'failed';
    host.reason = failure;
  } else if (host.modules.length) {
    host.status = 'finished';
  }
  return host;
}

/** Why a host's run failed: exception records, or a traceback at the end of the regular log. */
async function hostFailure(fs: RunsFs, path: string, host: HostInfo): Promise<string | undefined> {
  if (host.modules.includes('exception')) {
    const n = await countRecordsCheap(fs, join(path, 'exception', 'exception.json.log'));
    host.exceptions = n;
    if (n > 0) return `${n} exception record${n === 1 ? '' : 's'}`;
  }
  if (host.modules.includes('regular')) {
    const tb = await tracebackAtEnd(fs, join(path, 'regular', 'regular.log'));
    if (tb) return tb;
  }
  return undefined;
}

/** Exception records in the last 256 KB of an exception log (exact for small logs, a floor otherwise). */
async function countRecordsCheap(fs: RunsFs, path: string): Promise<number> {
  const st = await tryStat(fs, path);
  if (!st || st.size === 0) return 0;
  try {
    const start = Math.max(0, st.size - 256 * 1024);
    const buf = await fs.readRange(path, start, st.size - start);
    return splitRecords(completeLines(buf.toString('utf8') + '\n', start === 0)).length;
  } catch {
    return 0;
  }
}

/** The exception line of a Python traceback that ends the log, if it does. */
export async function tracebackAtEnd(fs: RunsFs, path: string, tailBytes = 16 * 1024): Promise<string | undefined> {
  const st = await tryStat(fs, path);
  if (!st || st.size === 0) return undefined;
  let text: string;
  try {
    const start = Math.max(0, st.size - tailBytes);
    text = (await fs.readRange(path, start, st.size - start)).toString('utf8');
  } catch {
    return undefined;
  }
  return tracebackAtEndOf(text);
}

export function tracebackAtEndOf(text: string): string | undefined {
  const at = text.lastIndexOf('Traceback (most recent call last):');
  if (at < 0) return undefined;
  const after = text.slice(at).split('\n').map((l) => l.replace(/\r$/, ''));
  // A normal log line after the traceback means the run carried on.
  for (const line of after.slice(1)) {
    const m = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? \| ([A-Z]+)/.exec(line);
    if (m && m[1] !== 'ERROR' && m[1] !== 'CRITICAL') return undefined;
  }
  const last = after.filter((l) => l.trim() !== '').at(-1)?.trim();
  const m = last && /^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit)\b.*)$/.exec(last);
  return m ? `traceback: ${m[1]!.slice(0, 200)}` : 'traceback at the end of the regular log';
}

async function sessionStepReward(fs: RunsFs, session: SessionInfo): Promise<{ step: number; meanReward?: number } | undefined> {
  let best: { step: number; rewards: number[] } | undefined;
  for (const h of session.hosts) {
    if (!h.modules.includes('rollout')) continue;
    let tail;
    try {
      tail = await readTailRecords(fs, join(h.path, 'rollout', 'rollout.json.log'), { minRecords: 2 });
    } catch {
      continue;
    }
    const sr = latestStepReward(tail.records);
    if (!sr) continue;
    const rewards = sr.meanReward !== undefined ? Array<number>(sr.records).fill(sr.meanReward) : [];
    if (!best || sr.step > best.step) best = { step: sr.step, rewards };
    else if (sr.step === best.step) best.rewards.push(...rewards);
  }
  if (!best) return undefined;
  const out: { step: number; meanReward?: number } = { step: best.step };
  if (best.rewards.length) out.meanReward = best.rewards.reduce((a, b) => a + b, 0) / best.rewards.length;
  return out;
}

/** What a host folder holds, for the tree's artefact nodes. */
export interface HostArtefacts {
  logs: { module: string; jsonLog?: string; textLog?: string; size: number }[];
  regularLog?: string;
  trajectorySplits: { split: string; path: string }[];
  error?: string;
}

export async function listHostArtefacts(fs: RunsFs, hostPath: string): Promise<HostArtefacts> {
  const { entries, error } = await tryReaddir(fs, hostPath);
  const out: HostArtefacts = { logs: [], trajectorySplits: [] };
  if (error) { out.error = error; return out; }
  const mods = entries.filter((e) => e.kind === 'dir' && e.name !== 'trajectory').map((e) => e.name).sort(moduleOrder);
  await mapLimit(mods, 8, async (mod) => {
    const dir = join(hostPath, mod);
    const files = (await tryReaddir(fs, dir)).entries.filter((e) => e.kind === 'file');
    if (mod === 'regular') {
      if (files.some((f) => f.name === 'regular.log')) out.regularLog = join(dir, 'regular.log');
      return;
    }
    const json = files.find((f) => f.name === `${mod}.json.log`);
    const text = files.find((f) => f.name === `${mod}.log`);
    if (!json && !text) return;
    const item: HostArtefacts['logs'][number] = { module: mod, size: 0 };
    if (json) { item.jsonLog = join(dir, json.name); item.size = (await tryStat(fs, item.jsonLog))?.size ?? 0; }
    if (text) item.textLog = join(dir, text.name);
    out.logs.push(item);
  });
  out.logs.sort((a, b) => moduleOrder(a.module, b.module));
  if (entries.some((e) => e.kind === 'dir' && e.name === 'trajectory')) {
    const t = await tryReaddir(fs, join(hostPath, 'trajectory'));
    out.trajectorySplits = t.entries.filter((e) => e.kind === 'dir').map((e) => ({ split: e.name, path: join(hostPath, 'trajectory', e.name) })).sort((a, b) => a.split.localeCompare(b.split));
  }
  return out;
}

const MODULE_ORDER = ['rollout', 'evaluation', 'exception', 'token_clip', 'bad_case', 'benchmark'];
function moduleOrder(a: string, b: string): number {
  const ia = MODULE_ORDER.indexOf(a), ib = MODULE_ORDER.indexOf(b);
  return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
}

/** `trajectory/<split>/step_<N>` folders, by step. */
export async function listTrajectorySteps(fs: RunsFs, splitPath: string): Promise<{ step: number; path: string }[]> {
  const { entries } = await tryReaddir(fs, splitPath);
  return entries
    .map((e) => ({ e, m: /^step_(\d+)$/.exec(e.name) }))
    .filter((x) => x.m && x.e.kind === 'dir')
    .map((x) => ({ step: Number(x.m![1]), path: join(splitPath, x.e.name) }))
    .sort((a, b) => a.step - b.step);
}

/** The JSON files of one trajectory step folder. */
export async function listTrajectoryFiles(fs: RunsFs, stepPath: string, limit = 500): Promise<{ files: string[]; more: number }> {
  const { entries } = await tryReaddir(fs, stepPath);
  const files = entries.filter((e) => e.kind === 'file' && e.name.endsWith('.json')).map((e) => e.name).sort();
  return { files: files.slice(0, limit).map((f) => join(stepPath, f)), more: Math.max(0, files.length - limit) };
}

/** Bytes under a folder, without following links (so loops cannot recurse); capped by entry count. */
export async function folderSize(fs: RunsFs, path: string, maxEntries = 5000): Promise<{ bytes: number; complete: boolean }> {
  let bytes = 0;
  let seen = 0;
  let complete = true;
  const queue = [path];
  while (queue.length) {
    const batch = queue.splice(0, 16);
    await mapLimit(batch, 8, async (dir) => {
      const { entries } = await tryReaddir(fs, dir);
      for (const e of entries) {
        if (++seen > maxEntries) { complete = false; return; }
        if (e.symlink) continue;
        if (e.kind === 'dir') queue.push(join(dir, e.name));
        else if (e.kind === 'file') bytes += (await tryStat(fs, join(dir, e.name)))?.size ?? 0;
      }
    });
    if (!complete) break;
  }
  return { bytes, complete };
}
