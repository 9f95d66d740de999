// Experiment roots and the first level of each: what one readdir of the root and one of each
// experiment give.
import { isAbsolute, join, resolve } from 'node:path';
import { NOT_EXPERIMENTS } from '../agentjet/layout';
import { LAUNCH_RECORD_DIR } from '../agentjet/launchRecord';
import { mapLimit, tryReaddir, tryStat, type RunsFs } from '../fs/seam';
import type { DiscoverOptions, ExperimentEntry, ExperimentRoot } from './runTypes';

const SESSION_RE = /^(\d{4})_(\d{2})_(\d{2})_(\d{2})_(\d{2})$/;

/** `YYYY_MM_DD_HH_MM` (local time, as `datetime.now().strftime` wrote it). */
export function parseSessionTime(name: string): number | undefined {
  const m = SESSION_RE.exec(name);
  if (!m) return undefined;
  const t = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5])).getTime();
  return Number.isFinite(t) ? t : undefined;
}

export function isSessionName(name: string): boolean {
  return SESSION_RE.test(name);
}

/** The default roots of one workspace folder, plus configured roots (relative ones against the folder). */
export function candidateRoots(
  workspaceFolders: readonly string[],
  configured: readonly string[] = [],
  launchExpDirs: readonly string[] = [],
): ExperimentRoot[] {
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
    try {
      real = await fs.realpath(r.path);
    } catch {
      /* keep the given path */
    }
    if (seen.has(real)) continue;
    seen.add(real);
    out.push(r);
  }
  return out;
}

/** The experiments of one root, newest first: one readdir of the root and one per experiment. */
export async function listExperiments(
  fs: RunsFs,
  root: string,
  opts: DiscoverOptions = {},
): Promise<{ experiments: ExperimentEntry[]; error?: string }> {
  const { entries, error } = await tryReaddir(fs, root);
  if (error) return { experiments: [], error };
  // Any name is an experiment name (`..x_3` included): a folder without sessions or a snapshot
  // (`.git`, `.ipynb_checkpoints`) is dropped by readExperimentEntry, not by its name.
  const dirs = entries.filter((e) => e.kind === 'dir' && !NOT_EXPERIMENTS.has(e.name));
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
  const sessions = entries
    .filter((e) => e.kind === 'dir' && isSessionName(e.name))
    .map((e) => e.name)
    .sort();
  const snapshot = entries.some((e) => e.name === 'yaml_backup.yaml' && e.kind === 'file') ? join(path, 'yaml_backup.yaml') : undefined;
  const records = entries.some((e) => e.name === LAUNCH_RECORD_DIR);
  // A launch the extension started whose launcher named no folder (stopped or failed early) leaves
  // only its launch record: still a run, with how it ended.
  if (!error && sessions.length === 0 && !snapshot && !records) return undefined;
  let timeMs = sessions.length ? parseSessionTime(sessions[sessions.length - 1]!) : undefined;
  if (timeMs === undefined) timeMs = (await tryStat(fs, path))?.mtimeMs ?? 0;
  const entry: ExperimentEntry = { name, path, root, sessions, timeMs };
  if (!error) entry.hasLaunchRecords = records;
  if (snapshot) entry.snapshot = snapshot;
  if (error) entry.error = error;
  return entry;
}
/**
 * With `--exp-dir D`, AgentJet writes `D/<exp>/yaml_backup.yaml` but the logs to
 * `saved_experiments/<exp>/...` under the working directory (ajet/backbone/warm_up.py): one run, two
 * folders. A snapshot-only entry whose name matches a log entry without a snapshot is folded into it
 * (the log entry gets the snapshot). `memo` keeps merged objects stable between calls.
 */
export function mergeSplitExperiments(list: readonly ExperimentEntry[], memo: Map<string, ExperimentEntry> = new Map()): ExperimentEntry[] {
  const byName = new Map<string, ExperimentEntry[]>();
  for (const e of list) byName.set(e.name, [...(byName.get(e.name) ?? []), e]);
  const drop = new Set<ExperimentEntry>();
  const replace = new Map<ExperimentEntry, ExperimentEntry>();
  for (const group of byName.values()) {
    if (group.length < 2) continue;
    const logs = group.filter((e) => e.sessions.length > 0 && !e.snapshot);
    const snaps = group.filter((e) => e.sessions.length === 0 && e.snapshot);
    if (logs.length !== 1 || snaps.length !== 1) continue;
    const log = logs[0]!,
      snap = snaps[0]!;
    const key = `${log.path}\0${snap.snapshot}\0${log.timeMs}\0${log.sessions.join(',')}`;
    let merged = memo.get(key);
    if (!merged) {
      merged = { ...log, snapshot: snap.snapshot!, backupPath: snap.path };
      memo.set(key, merged);
    }
    replace.set(log, merged);
    drop.add(snap);
  }
  return list.filter((e) => !drop.has(e)).map((e) => replace.get(e) ?? e);
}
